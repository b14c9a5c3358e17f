#include "traffic.hpp"

#include <array>

namespace commlab {

uint64_t port_critical_B(const std::vector<Message>& messages,
                         const std::vector<int>& node_of_rank) {
  // step -> node -> {bytes out to other nodes, bytes in from them}
  std::map<int, std::map<int, std::array<uint64_t, 2>>> ports;
  for (const Message& m : messages) {
    if (node_of_rank.empty()) break;
    const int from = node_of_rank.at(m.from), to = node_of_rank.at(m.to);
    if (from == to) continue;
    auto& step = ports[m.step];
    step[from][0] += m.bytes;
    step[to][1] += m.bytes;
  }
  uint64_t B = 0;
  for (const auto& [step, nodes] : ports) {
    uint64_t busiest = 0;
    for (const auto& [node, out_in] : nodes) busiest = std::max({busiest, out_in[0], out_in[1]});
    B += busiest;
  }
  return B;
}

LinkLoad link_load(const std::vector<Message>& messages, const std::vector<int>& node_of_rank,
                   const Topology& topology) {
  LinkLoad load;
  if (node_of_rank.empty()) return load;
  std::map<int, std::vector<const Message*>> steps;
  for (const Message& m : messages) steps[m.step].push_back(&m);
  const int nodes = *std::max_element(node_of_rank.begin(), node_of_rank.end()) + 1;
  LinkCounter links(topology, nodes);
  for (const auto& [step, sent] : steps) {
    for (const Message* m : sent) {
      const int a = node_of_rank.at(m->from), b = node_of_rank.at(m->to);
      if (a != b) links.add(a, b, m->bytes);
    }
    load.link_critical_B += links.end_step();
  }
  load.hop_B = links.hop_B();
  return load;
}

}  // namespace commlab
