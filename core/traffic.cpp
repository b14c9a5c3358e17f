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

}  // namespace commlab
