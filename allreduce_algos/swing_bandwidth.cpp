// Swing's bandwidth-optimal all-reduce (De Sensi et al., "Swing: Short-
// cutting Rings for Higher Bandwidth Allreduce", NSDI 2024): Rabenseifner's
// reduce-scatter and all-gather, with Swing's partners. In step s rank r
// talks to r + rho(s) if r is even, r - rho(s) if odd (mod P), rho(s) = (1 -
// (-2)^(s+1)) / 3 = 1, -1, 3, -5, 11, ...: the partners are at distance 1,
// 1, 3, 5, 11, ... where Rabenseifner's are at P/2, P/4, ..., 1, and the
// largest messages (half the buffer, then a quarter) go to the nearest. On a
// torus or a ring of nodes, where a message d hops away loads d links, that
// is the saving; on one switch the bytes and steps are Rabenseifner's.
//
// The chunks a rank keeps are not its own number's: ordering the ranks
// depth first along the steps' split (collectives/butterfly.hpp) gives each
// a position, and rank r ends the reduce-scatter with chunk position(r).
// P = 4 (positions: rank 0 -> 0, 3 -> 1, 1 -> 2, 2 -> 3; * = reduced over
// every rank):
//
//   step  rank 0          rank 1          rank 2          rank 3
//   0     keeps 0,1 (1)   keeps 2,3 (0)   keeps 2,3 (3)   keeps 0,1 (2)   partner in ()
//   1     keeps 0 (3)     keeps 2 (2)     keeps 3 (1)     keeps 1 (0)
//         0*              2*              3*              1*
//   2     0*,1* (3)       2*,3* (2)       2*,3* (1)       0*,1* (0)
//   3     all (1)         all (0)         all (3)         all (2)
//
// 2 log2 P steps, and every rank sends 2(P-1)/P x N. A P that is not a power
// of two is folded first, as Rabenseifner's is (fold.cpp: 2 steps and 2 x
// extra x N bytes more; the paper's own way for other P is not this one);
// Swing's partners then run over the p2 virtual ranks. With count < P some
// chunks are empty and travel as zero-byte messages.
#include "collectives/butterfly.hpp"

namespace commlab {

namespace {

void allreduce_swing_bandwidth(const CollectiveJob& job) {
  halving_doubling(job, Butterfly::of(job.comm.size(), swing_partner), allreduce_buffer(job));
}

Traffic model_allreduce_swing_bandwidth(int P, size_t count, size_t esize, int) {
  return tally_halving_doubling(Butterfly(P, swing_partner), count, esize);
}

// At any scale: Rabenseifner's steps and message sizes, with Swing's partners
// deciding which cross a node's port.
ScaledTraffic scaled_allreduce_swing_bandwidth(int P, double N, int ranks_per_node,
                                               const Topology& network) {
  return scaled_halving_doubling(P, N, ranks_per_node, swing_partner, network);
}

}  // namespace

// The textbook's T: what every rank sends, for a power of two (the ring's).
CollectiveAlgorithm allreduce_swing_bandwidth_algorithm() {
  CollectiveAlgorithm a{"swing_bandwidth", allreduce_swing_bandwidth,
                        sized<model_allreduce_swing_bandwidth>};
  a.teach(taught::ring);
  a.at_scale = [](int P, double N, int k) { return scaled_allreduce_swing_bandwidth(P, N, k, {}); };
  a.on_network = scaled_allreduce_swing_bandwidth;
  a.not_in_libraries = true;
  return a;
}

}  // namespace commlab
