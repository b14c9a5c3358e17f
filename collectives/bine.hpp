// Bine trees (De Sensi et al., SC 2025): a binomial tree's steps, in each of
// which every rank holding the data passes it on, but with Swing's partners:
// position t sends to t + rho(s) if t is even, t - rho(s) if odd (mod p2),
// rho(s) = 1, -1, 3, -5, 11, ... (swing_rho). A message at distance rho(s)
// goes |rho(s)| = round(2^(s+1) / 3) positions round the ring, where the
// binomial tree's goes 2^s. Shared by bcast_bine, reduce_bine, scatter_bine
// and gather_bine.
//
// Which s each step takes, as in the binomial trees they stand in for:
//   halving: step t takes rho(L-1-t) (L = steps), the far partner first.
//     bcast_bine runs it; reduce_bine runs it backwards, so that its step k
//     takes rho(k), as reduce_binomial's 2^k: one tree, mirrored.
//   doubling: step t takes rho(t), 1 -1 3 ..., as bcast_binomial's 1 2 4 ...
//     No collective runs it: its last step sends P/2 messages |rho(L-1)|
//     positions, which crowd the links of a ring (at P = 64 on a ring of
//     64, 24N on the busiest link against the halving order's 6N). Kept for
//     the unit tests, which check both orders.
// Every rank but the root receives once, in either order (the unit tests
// check every power of two to 2^14): P = 8,
//
//   halving    step 0: 0->3   step 1: 0->7 3->4   step 2: 0->1 3->2 7->6 4->5
//   doubling   step 0: 0->1   step 1: 0->7 1->2   step 2: 0->3 7->4 1->6 2->5
//
// The tree is built on the p2 positions of the smallest power of two >= P.
// For P < p2, p2 - P of the positions that receive in the last step (leaves:
// they send nothing) are dropped, the last ones in position order, and the P
// positions left hold the ranks counted from the root, in position order.
// Dropping positions between two others only brings them nearer round the
// ring of P, so no message goes further than in the p2 tree; every rank
// receives once, in its position's step, and sends at most what its position
// does. P = 6, halving (p2 = 8; of the last step's positions 1 2 5 6, 5 and
// 6 dropped):
//
//   position   0    1    2    3    4    5    6    7
//   rank v     0    1    2    3    4    -    -    5
//   step       -    2    2    0    1   (2)  (2)   1    (the step it receives in)
//   from       -    0    3    0    3   (4)  (7)   0    (the position it receives from)
//
// so rank 0 sends to 3, 5, 1 in steps 0, 1, 2, and rank 3 to 4, 2 in steps
// 1, 2. Dropping the positions >= P instead (a virtual position's sends
// made by its nearest real ancestor) would keep rank v at position v, but
// whoever stands in for a virtual position sends for its subtree too, from
// where it stands: in the halving order at P = 747 one rank would send 11
// messages, where the binomial tree's root sends 10, and a last-step
// message, |rho(0)| = 1, would go 63 ranks; in the doubling order, whose
// virtual positions just left of the root are reached early, at P = 1000
// one rank would send 48 messages, 9 in one step.
#pragma once
#include <vector>

#include "core/vocabulary/partition.hpp"

namespace commlab {

enum class BineOrder { doubling, halving };

struct BineTree {
  BineTree(int P, BineOrder order);
  int P, p2, steps;  // steps = log2 p2 = ceil(log2 P)
  BineOrder order;
  std::vector<int> rank_at;   // by position: the rank v there; -1 for a dropped leaf
  std::vector<int> position;  // by rank v
  std::vector<int> got;       // by rank v: the step it receives the data in; -1 for the root
  // Preorder: each rank, then its children's subtrees in the order it sends
  // to them, so that every subtree is a run of consecutive entries (P = 8:
  // 0 3 4 5 2 7 6 1; rank 3's subtree is 3 4 5 2). scatter_bine and
  // gather_bine keep the parts in this order.
  std::vector<int> preorder;  // by index: the rank v there
  std::vector<int> first;     // by rank v: its index in preorder
  std::vector<int> span;      // by rank v: the ranks in its subtree, itself included
  int distance_step(int t) const { return order == BineOrder::doubling ? t : steps - 1 - t; }
  // The rank v sends to in step t, -1 for none (v does not hold the data
  // before t, or the partner's position was dropped).
  int child(int v, int t) const;
  int parent(int v) const;  // the rank v receives from (v > 0)
  // Made once per thread for each P and order: a timed call does not build it again.
  static const BineTree& of(int P, BineOrder order);

 private:
  void visit(int v);  // adds v's subtree to preorder (depth: steps)
};

// The parts of ranks counted from `root`, packed in the preorder of the
// halving tree of parts.parts ranks, as scatter_bine and gather_bine hold
// them: a subtree's parts are one run.
struct BinePacked {
  BinePacked(const Partition& parts, int root, size_t esize);
  const BineTree& tree;
  std::vector<size_t> at_B;  // by preorder index i: bytes before its part; [P] all
  size_t entry_B(int i) const { return at_B[i + 1] - at_B[i]; }
  size_t start_B(int v) const { return at_B[tree.first[v]]; }  // where v's subtree begins
  size_t subtree_B(int v) const { return at_B[tree.first[v] + tree.span[v]] - start_B(v); }
};

}  // namespace commlab
