// Ring all-reduce, turning left: lab 06. Copy this file to
// allreduce_algos/reverse_ring.cpp, add the line COMMLAB_ALLREDUCE(reverse_ring)
// to allreduce_algos/algorithms.def, fill in the two TODOs, and check it:
//   make lab && build/bin/lab_check reverse_ring
//
// The ring of allreduce_algos/ring.cpp sends every message to the right
// (r+1). Yours sends every message to the LEFT neighbour (r-1) and receives
// from the right (r+1). Write the schedule here, step by step, before the
// code (lab/06-implement/README.md, part 1):
//
//   reduce-scatter, steps s = 0 .. P-2: rank r sends chunk ? to r-1 and
//     folds chunk ?, from r+1, into its own copy
//   all-gather, steps P-1+s for s = 0 .. P-2: rank r sends chunk ? ...
#include "collectives/algorithm.hpp"

namespace commlab {

namespace {

void allreduce_reverse_ring(const CollectiveJob& job) {
  Comm& comm = job.comm;
  const int P = comm.size(), me = comm.rank();
  const int left = (me - 1 + P) % P, right = (me + 1) % P;
  const Chunks chunks{allreduce_buffer(job), job.parts(), job.esize()};
  void* incoming = job.mem.scratch(chunks.largest_B());
  (void)left, (void)right, (void)incoming;  // remove once you use them
  // TODO part 2: comm.begin_phase(Phase::reduce_scatter) (it names the
  // steps that follow in --show), then the reduce-scatter, P-1 steps of
  //   comm.sendrecv_reduce(left, chunks.at(send), chunks.bytes(send), right, incoming,
  //                        chunks.at(fold), chunks.bytes(fold), job.red, {s, send});
  // then comm.begin_phase(Phase::all_gather) and the all-gather, P-1 steps of
  //   comm.sendrecv(left, chunks.at(send), chunks.bytes(send), right, chunks.at(store),
  //                 chunks.bytes(store), {P - 1 + s, send});
}

Traffic model_allreduce_reverse_ring(int P, size_t count, size_t esize, int) {
  const Partition parts{count, P};
  Tally t(P);
  (void)parts, (void)esize;  // remove once you use them
  // TODO part 3: one t.message(step, from, to, bytes) for every message every
  // rank sends, in the same steps as above; add Arrival::reduced as a fifth
  // argument where the receiver folds the message into its buffer.
  return t.traffic();
}

}  // namespace

CollectiveAlgorithm allreduce_reverse_ring_algorithm() {
  return {"reverse_ring", allreduce_reverse_ring, sized<model_allreduce_reverse_ring>};
}

}  // namespace commlab
