// Ring all-reduce, turning left: lab 06's reference solution. The ring of
// allreduce_algos/ring.cpp with every message going to the left neighbour
// (r-1) and coming from the right (r+1), written out by hand.
//
//   reduce-scatter, steps s = 0 .. P-2: rank r sends chunk (r+s+1) mod P to
//     r-1 and folds chunk (r+s+2) mod P, from r+1, into its own copy; after
//     the last step (s = P-2, chunk (r+P) mod P = r) rank r holds chunk r
//     reduced over every rank
//   all-gather, steps P-1+s for s = 0 .. P-2: rank r sends chunk (r+s) mod P
//     to r-1 and stores chunk (r+s+1) mod P from r+1
//
// P = 4, count 4 (one element a chunk), element i of rank r starting as
// 10r + i (the known vectors of --show): each rank's buffer after each step.
//
//   step           rank 0          rank 1          rank 2          rank 3
//   0 (c r+2)      [0 1 14 3]      [10 11 12 36]   [50 21 22 23]   [30 32 32 33]
//   1 (c r+3)      [0 1 14 39]     [60 11 12 36]   [50 53 22 23]   [30 32 46 33]
//   2 (c r)        [60 1 14 39]    [60 64 12 36]   [50 53 68 23]   [30 32 46 72]   chunk r done
//   3 (c r+1)      [60 64 14 39]   [60 64 68 36]   [50 53 68 72]   [60 32 46 72]
//   4 (c r+2)      [60 64 68 39]   [60 64 68 72]   [60 53 68 72]   [60 64 46 72]
//   5 (c r+3)      [60 64 68 72]   [60 64 68 72]   [60 64 68 72]   [60 64 68 72]
//
// Each rank sends 2(P-1) chunks, as the ring turning right does. With
// count < P the empty chunks travel as 0-byte messages.
#include "collectives/algorithm.hpp"

namespace commlab {

namespace {

void allreduce_reverse_ring(const CollectiveJob& job) {
  Comm& comm = job.comm;
  const int P = comm.size(), me = comm.rank();
  const int left = (me - 1 + P) % P, right = (me + 1) % P;
  const Chunks chunks{allreduce_buffer(job), job.parts(), job.esize()};
  void* incoming = job.mem.scratch(chunks.largest_B());
  comm.begin_phase(Phase::reduce_scatter);
  for (int s = 0; s < P - 1; ++s) {
    const int send = (me + s + 1) % P, fold = (me + s + 2) % P;
    comm.sendrecv_reduce(left, chunks.at(send), chunks.bytes(send), right, incoming,
                         chunks.at(fold), chunks.bytes(fold), job.red, {s, send});
  }
  comm.begin_phase(Phase::all_gather);
  for (int s = 0; s < P - 1; ++s) {
    const int send = (me + s) % P, store = (me + s + 1) % P;
    comm.sendrecv(left, chunks.at(send), chunks.bytes(send), right, chunks.at(store),
                  chunks.bytes(store), {P - 1 + s, send});
  }
}

Traffic model_allreduce_reverse_ring(int P, size_t count, size_t esize, int) {
  const Partition parts{count, P};
  Tally t(P);
  for (int s = 0; s < P - 1; ++s)
    for (int r = 0; r < P; ++r)
      t.message(s, r, (r - 1 + P) % P, parts.size((r + s + 1) % P) * esize, Arrival::reduced);
  for (int s = 0; s < P - 1; ++s)
    for (int r = 0; r < P; ++r)
      t.message(P - 1 + s, r, (r - 1 + P) % P, parts.size((r + s) % P) * esize);
  return t.traffic();
}

}  // namespace

CollectiveAlgorithm allreduce_reverse_ring_algorithm() {
  CollectiveAlgorithm a{"reverse_ring", allreduce_reverse_ring,
                        sized<model_allreduce_reverse_ring>};
  a.teach(taught::ring);
  return a;
}

}  // namespace commlab
