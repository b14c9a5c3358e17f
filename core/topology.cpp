#include "topology.hpp"

#include <fmt/format.h>

#include <map>
#include <regex>

#include "usage_error.hpp"

namespace commlab {

Topology Topology::parse(const std::string& text) {
  std::smatch m;
  const auto count = [&](const std::string& s) {
    if (s.size() > 6 || std::stoi(s) < 2)
      throw UsageError(
          fmt::format("--topology {}: {} nodes in a dimension (use 2 to 999999)", text, s));
    return std::stoi(s);
  };
  if (text == "switch") return {};
  if (std::regex_match(text, m, std::regex("ring:([0-9]+)"))) return {{count(m[1])}};
  if (std::regex_match(text, m, std::regex("torus:([0-9]+)x([0-9]+)")))
    return {{count(m[1]), count(m[2])}};
  throw UsageError(fmt::format("--topology {}: use switch, ring:K or torus:AxB", text));
}

std::string Topology::describe() const {
  if (dims.empty()) return "switch";
  return dims.size() == 1 ? fmt::format("ring:{}", dims[0])
                          : fmt::format("torus:{}x{}", dims[0], dims[1]);
}

int Topology::nodes() const {
  int n = dims.empty() ? 0 : 1;
  for (int d : dims) n *= d;
  return n;
}

std::vector<int> Topology::route(int a, int b) const {
  std::vector<int> links;
  if (a == b) return links;
  if (dims.empty()) return {2 * a, 2 * b + 1};        // a's link out, b's link in
  std::vector<int> at(dims.size()), to(dims.size());  // coordinates, columns first
  for (size_t k = 0, stride = 1; k < dims.size(); stride *= dims[k], ++k)
    at[k] = a / int(stride) % dims[k], to[k] = b / int(stride) % dims[k];
  const auto node = [&] {
    int n = 0;
    for (size_t k = dims.size(); k-- > 0;) n = n * dims[k] + at[k];
    return n;
  };
  for (size_t k = 0; k < dims.size(); ++k) {
    const int K = dims[k], up = ((to[k] - at[k]) % K + K) % K;  // hops the positive way
    const bool positive = 2 * up <= K;                          // a tie goes the positive way
    for (int h = 0; h < (positive ? up : K - up); ++h) {
      // Link id: (node x dimensions + dimension) x 2 + direction (0: positive).
      links.push_back((node() * int(dims.size()) + int(k)) * 2 + (positive ? 0 : 1));
      at[k] = (at[k] + (positive ? 1 : K - 1)) % K;
    }
  }
  return links;
}

LinkLoad link_load(const std::vector<Message>& messages, const std::vector<int>& node_of_rank,
                   const Topology& topology) {
  std::map<int, std::map<int, uint64_t>> steps;  // step -> link -> bytes
  LinkLoad load;
  for (const Message& m : messages) {
    if (node_of_rank.empty()) break;
    const int a = node_of_rank.at(m.from), b = node_of_rank.at(m.to);
    if (topology.nodes() && std::max(a, b) >= topology.nodes())
      throw UsageError(fmt::format("{} has {} nodes; the ranks ran on {}", topology.describe(),
                                   topology.nodes(), std::max(a, b) + 1));
    const std::vector<int> links = topology.route(a, b);
    for (int link : links) steps[m.step][link] += m.bytes;
    load.hop_B += m.bytes * links.size();
  }
  for (const auto& [step, links] : steps) {
    uint64_t busiest = 0;
    for (const auto& [link, bytes] : links) busiest = std::max(busiest, bytes);
    load.link_critical_B += busiest;
  }
  return load;
}

}  // namespace commlab
