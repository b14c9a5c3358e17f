// The network between the nodes' ports. Every model elsewhere charges a
// node's port, as if one ideal switch joined the nodes; on a torus or a ring
// of nodes a message d hops away loads d links, and algorithms that talk to
// far partners (recursive doubling, Rabenseifner: P/2, P/4, ...) crowd links
// that near partners (Swing) would not. Here: which links each message
// crosses, and the bytes on the busiest one, step by step.
//
//   switch         every node's port to one ideal switch: a message crosses
//                  its sender's link out and its receiver's link in
//   ring:K         K nodes in a ring (a 1-D torus), links both ways
//   torus:AxB      a 2-D torus of A x B nodes (node n at column n % A, row n / A)
//   fattree:K:O    leaves of K nodes, each leaf with K/O uplinks, one to each
//                  of K/O spines (O: the oversubscription, 1 = full bisection);
//                  any number of leaves
//   dragonfly:GxA  G groups of A nodes; a group is one switch (its routers
//                  taken as one) and every two groups share one global link
//                  each way
//
// Routes on a torus go dimension by dimension (columns first), each the
// shorter way round; a tie, exactly half way round, goes the positive way
// (to higher node numbers), as a deterministic router would. On the fat
// tree a message between leaves climbs to spine (destination mod K/O), the
// "D-mod-k" rule of InfiniBand's fat-tree routing, so the route is fixed and
// its load countable. On the dragonfly routes are minimal: the sender's
// group, the one global link, the receiver's group. Every link is full
// duplex, each direction a link of its own, and all carry one node link's
// bandwidth.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace commlab {

struct Topology {
  enum class Kind { ideal_switch, torus, fat_tree, dragonfly };
  Kind kind = Kind::ideal_switch;
  std::vector<int> dims;  // torus: {K} for a ring, {A, B}
  int group = 0;          // fat tree: nodes per leaf; dragonfly: nodes per group
  int uplinks = 0;        // fat tree: uplinks per leaf (group / oversubscription)
  int groups = 0;         // dragonfly: the groups
  // "switch", "ring:8", "torus:4x4", "fattree:16:2", "dragonfly:8x4"; a
  // UsageError naming the text otherwise.
  static Topology parse(const std::string& text);
  std::string describe() const;
  int nodes() const;  // 0: any number (the switch, the fat tree)
  // Link ids are below links(n) for nodes 0 .. n-1.
  int links(int nodes_used) const;
  // The directed links (ids) a message from node a to node b crosses, in order.
  std::vector<int> route(int a, int b) const;
  void route(int a, int b, std::vector<int>& links) const;  // into `links`, cleared first

 private:
  void torus_route(int a, int b, std::vector<int>& links) const;
};

// One step's messages routed onto the links, for the replay of a run's
// messages and for the closed forms at P = 2^20: add every message of a
// step, then end_step() gives the busiest link's bytes. On a ring or torus
// a message's links are a run along each dimension, added as a range
// (difference arrays), so a step of P messages costs O(P + links) whatever
// their distance.
class LinkCounter {
 public:
  // For nodes 0 .. nodes_used-1; a UsageError if the topology has fewer.
  LinkCounter(const Topology& topology, int nodes_used);
  void add(int a, int b, uint64_t bytes);    // nodes a and b, a != b
  uint64_t end_step();                       // the step's busiest link's bytes; starts the next
  uint64_t hop_B() const { return hop_B_; }  // every message's bytes times its links, so far

 private:
  void run(size_t k, int line, int from, int to, uint64_t bytes);
  // A torus's lines of one dimension and direction in load_: entry (line,
  // position) at at + line x line_stride + position x pos_stride.
  struct Lines {
    size_t at, lines;
    int K;
    size_t line_stride, pos_stride;
    uint64_t busiest(std::vector<uint64_t>& load) const;
  };
  Topology t_;
  std::vector<std::array<Lines, 2>> lines_;  // torus: by dimension, positive and negative
  std::vector<uint64_t> load_;  // by link id, or difference arrays along a torus's lines
  std::vector<int> scratch_;
  uint64_t hop_B_ = 0;
  bool used_ = false;
};

}  // namespace commlab
