// Rabenseifner's all-reduce: a reduce-scatter by recursive halving, then an
// all-gather by recursive doubling (Thakur, Rabenseifner and Gropp 2005,
// section 4.4; MPICH's choice for long buffers). The buffer is cut into P
// chunks. Halving: in each step a rank swaps half of the chunks it still
// works on with the rank whose number differs in one bit, from the lowest
// bit up, keeps the half its bit says and folds the partner's copy of it
// into its own. Doubling: the same partners in reverse order swap the
// finished blocks, which double each step. The vector halves while the
// distance doubles, so the biggest message goes to a neighbour, as in Open
// MPI's ompi_coll_base_allreduce_intra_redscat_allgather and MPICH's
// reduce_scatter_allgather: on a topology, or with ranks packed on nodes,
// the N/2 swap stays on the nearest link. P = 4 (chunks 0..3; * = reduced
// over every rank; a rank ends with the chunk its bits reversed name):
//
//   step  rank 0          rank 1          rank 2          rank 3
//   0     keeps 0,1 (1)   keeps 2,3 (0)   keeps 0,1 (3)   keeps 2,3 (2)   partner in ()
//   1     keeps 0 (2)     keeps 2 (3)     keeps 1 (0)     keeps 3 (1)
//         0*              2*              1*              3*
//   2     0*,1* (2)       2*,3* (3)       0*,1* (0)       2*,3* (1)
//   3     all (1)         all (0)         all (3)         all (2)
//
// 2 log2 P steps, and every rank sends 2(P-1)/P x N, as the ring does, in
// far fewer steps. The order cannot be seen in the counted bytes or
// messages (the other order, biggest message to the farthest rank, counts
// the same); it shows in link_critical_B on a topology and in predict with
// ranks per node. A P that is not a power of two is folded first
// (fold.cpp: 2 steps and 2 x extra x N bytes more); chunks are cut among the
// p2 ranks left. With count < P some chunks are empty: the blocks holding
// only them travel as zero-byte messages.
#include "collectives/butterfly.hpp"

namespace commlab {

namespace {

// The halving and the doubling are the butterfly's (collectives/butterfly.cpp),
// partners a bit apart from the lowest bit up: rank v ends with chunk
// bit-reversed v.
void allreduce_rabenseifner(const CollectiveJob& job) {
  halving_doubling(job, Butterfly::of(job.comm.size(), bit_low_first), allreduce_buffer(job));
}

Traffic model_allreduce_rabenseifner(int P, size_t count, size_t esize, int) {
  return tally_halving_doubling(Butterfly(P, bit_low_first), count, esize);
}

// At any scale, chunks of N/p2: the fold's step in and out (as recursive
// doubling's), then for each bit d one halving step and one doubling step
// between the same partners, each message d chunks; the halving reduces
// (p2-1)/p2 x N on every rank, plus N on the ranks that took a fold.
ScaledTraffic scaled_allreduce_rabenseifner(int P, double N, int ranks_per_node,
                                            const Topology& network) {
  return scaled_halving_doubling(P, N, ranks_per_node, bit_low_first, network);
}

}  // namespace

// The textbook's T: what every rank sends, for a power of two (the ring's).
CollectiveAlgorithm allreduce_rabenseifner_algorithm() {
  CollectiveAlgorithm a{"rabenseifner", allreduce_rabenseifner,
                        sized<model_allreduce_rabenseifner>};
  a.teach(taught::ring);
  a.at_scale = [](int P, double N, int k) { return scaled_allreduce_rabenseifner(P, N, k, {}); };
  a.on_network = scaled_allreduce_rabenseifner;
  return a;
}

}  // namespace commlab
