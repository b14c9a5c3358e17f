// Swing's latency-optimal all-reduce (De Sensi et al., NSDI 2024): recursive
// doubling's whole-buffer exchanges, with Swing's partners. In step s rank r
// swaps its buffer with r + rho(s) if r is even, r - rho(s) if odd (mod P),
// rho(s) = (1 - (-2)^(s+1)) / 3 = 1, -1, 3, -5, 11, ..., and folds what it
// gets into its own. P = 8, ranks holding a .. h (partner in ()):
//
//            rank 0    rank 1    rank 2    rank 3    rank 4    rank 5    rank 6    rank 7
//   s = 0    ab (1)    ab (0)    cd (3)    cd (2)    ef (5)    ef (4)    gh (7)    gh (6)
//   s = 1    abgh (7)  abcd (2)  abcd (1)  cdef (4)  cdef (3)  efgh (6)  efgh (5)  abgh (0)
//   s = 2    all (3)   all (6)   all (5)   all (0)   all (7)   all (2)   all (1)   all (4)
//
// Partners at distance 1, 1, 3 (recursive doubling's: 1, 2, 4): about a
// third nearer, which on a torus or a ring of nodes loads fewer links; the
// bytes and steps are recursive doubling's, log2 P steps of N each. A P
// that is not a power of two is folded first (fold.cpp: 2 steps and 2 x
// extra x N bytes more). Counts below P change nothing: every message is the
// whole buffer.
#include <cmath>

#include "collectives/butterfly.hpp"

namespace commlab {

namespace {

void allreduce_swing_latency(const CollectiveJob& job) {
  butterfly_exchange(job, Butterfly::of(job.comm.size(), swing_partner));
}

Traffic model_allreduce_swing_latency(int P, size_t count, size_t esize, int) {
  return tally_butterfly_exchange(Butterfly(P, swing_partner), count, esize);
}

// At any scale: recursive doubling's steps and bytes, with Swing's partners
// deciding which cross a node's port.
ScaledTraffic scaled_allreduce_swing_latency(int P, double N, int ranks_per_node,
                                             const Topology& network) {
  return scaled_butterfly_exchange(P, N, ranks_per_node, swing_partner, network);
}

}  // namespace

// The textbook's T: what the busiest rank sends, for a power of two.
CollectiveAlgorithm allreduce_swing_latency_algorithm() {
  CollectiveAlgorithm a{"swing_latency", allreduce_swing_latency,
                        sized<model_allreduce_swing_latency>};
  a.own_copies = [](const JobShape& s, int rank, bool in_place) {
    return butterfly_exchange_own_copies(Butterfly::of(s.P, swing_partner), rank, in_place);
  };
  a.teach(taught::tree);
  a.at_scale = [](int P, double N, int k) { return scaled_allreduce_swing_latency(P, N, k, {}); };
  a.on_network = scaled_allreduce_swing_latency;
  a.not_in_libraries = true;
  return a;
}

}  // namespace commlab
