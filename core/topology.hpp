// The network between the nodes' ports. Every model elsewhere charges a
// node's port, as if one ideal switch joined the nodes; on a torus or a ring
// of nodes a message d hops away loads d links, and algorithms that talk to
// far partners (recursive doubling, Rabenseifner: P/2, P/4, ...) crowd links
// that near partners (Swing) would not. Here: which links each message
// crosses, and the bytes on the busiest one, step by step.
//
//   switch      every node's port to one ideal switch: a message crosses its
//               sender's link out and its receiver's link in (port_critical_B)
//   ring:K      K nodes in a ring (a 1-D torus), links both ways
//   torus:AxB   a 2-D torus of A x B nodes (node n at column n % A, row n / A)
//
// Routes on a torus go dimension by dimension (columns first), each the
// shorter way round; a tie, exactly half way round, goes the positive way
// (to higher node numbers), as a deterministic router would. Links are full
// duplex: each direction is a link of its own.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "traffic.hpp"

namespace commlab {

struct Topology {
  std::vector<int> dims;  // empty: the switch; {K}: a ring; {A, B}: a torus
  // "switch", "ring:8", "torus:4x4"; a UsageError naming the text otherwise.
  static Topology parse(const std::string& text);
  std::string describe() const;
  int nodes() const;  // 0 for the switch: any number
  // The directed links (ids) a message from node a to node b crosses, in order.
  std::vector<int> route(int a, int b) const;
};

struct LinkLoad {
  uint64_t link_critical_B = 0;  // per step, the bytes on the busiest directed link, summed
  uint64_t hop_B = 0;            // every message's bytes times the links it crosses
};
// For `messages` of ranks placed on nodes by node_of_rank (empty: one node,
// nothing crosses). A node beyond the topology's is a UsageError.
LinkLoad link_load(const std::vector<Message>& messages, const std::vector<int>& node_of_rank,
                   const Topology& topology);

}  // namespace commlab
