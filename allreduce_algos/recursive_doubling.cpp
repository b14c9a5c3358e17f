// Recursive-doubling all-reduce: the latency-optimal one, for short buffers
// (Thakur, Rabenseifner and Gropp 2005, section 4.1; MPICH uses it below
// 2 KiB). In step k every rank swaps its whole buffer with the rank whose
// number differs in bit k and folds what it gets into its own, so after
// log2 P steps every rank holds the reduction of all. P = 4, ranks holding
// a, b, c, d:
//
//            rank 0      rank 1      rank 2      rank 3
//   k = 0    a+b  (1)    a+b  (0)    c+d  (3)    c+d  (2)     partner in ()
//   k = 1    a+b+c+d (2) a+b+c+d (3) a+b+c+d (0) a+b+c+d (1)
//
// log2 P steps, each moving the whole buffer: every rank sends log2(P) x N,
// against the ring's 2(P-1)/P x N in 2(P-1) steps, so it wins where the
// per-message latency outweighs the bytes. A P that is not a power of two
// is folded first (fold.cpp: 2 steps and 2 x extra x N bytes more). Counts
// below P change nothing: every message is the whole buffer.
#include <cmath>

#include "collectives/butterfly.hpp"

namespace commlab {

namespace {

// The butterfly's exchange (collectives/butterfly.cpp), partners a bit
// apart from the lowest bit up.
void allreduce_recursive_doubling(const CollectiveJob& job) {
  butterfly_exchange(job, Butterfly::of(job.comm.size(), bit_low_first));
}

Traffic model_allreduce_recursive_doubling(int P, size_t count, size_t esize, int) {
  return tally_butterfly_exchange(Butterfly(P, bit_low_first), count, esize);
}

// At any scale: the fold's step in and step out (ranks past the power of
// two hand N to a partner and take the result back), and log2 p2 steps in
// which every virtual rank swaps N with the one a bit away and reduces it.
ScaledTraffic scaled_allreduce_recursive_doubling(int P, double N, int ranks_per_node,
                                                  const Topology& network) {
  return scaled_butterfly_exchange(P, N, ranks_per_node, bit_low_first, network);
}

}  // namespace

// The textbook's T: what the busiest rank sends, for a power of two.
CollectiveAlgorithm allreduce_recursive_doubling_algorithm() {
  CollectiveAlgorithm a{"recursive_doubling", allreduce_recursive_doubling,
                        sized<model_allreduce_recursive_doubling>};
  a.own_copies = [](const JobShape& s, int rank, bool in_place) {
    return butterfly_exchange_own_copies(Butterfly::of(s.P, bit_low_first), rank, in_place);
  };
  a.teach(taught::tree);
  a.at_scale = [](int P, double N, int k) {
    return scaled_allreduce_recursive_doubling(P, N, k, {});
  };
  a.on_network = scaled_allreduce_recursive_doubling;
  return a;
}

}  // namespace commlab
