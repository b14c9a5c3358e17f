// Ring reduce-scatter: the first half of the ring all-reduce. The buffer is
// cut into P chunks; each travels once round the ring, every rank adding its
// own contribution as it passes, and ends complete on the rank it belongs to
// (ring.cpp: in step s rank r sends chunk (r-s-1) mod P to rank r+1 and folds
// in chunk (r-s-2) mod P from rank r-1; after P-1 steps rank r holds chunk r).
//
// P-1 steps; every rank sends N minus one chunk, whatever P is.
#include "algorithms.hpp"

namespace commlab {

void reduce_scatter_ring(const CollectiveJob& job) {
  const int me = job.comm.rank();
  const Partition parts = job.parts();
  const size_t es = job.esize(), bytes = job.count * es;
  // Work on a copy of the input (in place: on the buffer itself). The ring's
  // own scratch comes first in Memory's one scratch buffer, so the copy sits
  // behind it: room for both is taken here, before the ring asks for its part.
  char* room =
      static_cast<char*>(job.mem.scratch(parts.largest() * es + (job.in_place() ? 0 : bytes)));
  const Chunks work{job.in_place() ? static_cast<char*>(job.out) : room + parts.largest() * es,
                    parts, es};
  if (!job.in_place()) job.mem.copy(work.base, job.in, bytes);
  job.comm.watch(work.base, bytes);  // --show --steps: the chunks as they fold, not the result
  ring_reduce_scatter(job.comm, Ring(job.comm.size()), work, job.red, job.mem, 0);
  // MPI puts the result at the front of the output (of the buffer, in place,
  // where the two may overlap: so through the scratch at the front).
  job.mem.copy(room, work.at(me), work.bytes(me));
  job.mem.copy(job.out, room, work.bytes(me));
}

Traffic model_reduce_scatter_ring(int P, size_t count, size_t esize, int) {
  Tally t(P);
  tally_ring_reduce_scatter(t, Ring(P), {count, P}, esize, 0);
  return t.traffic();
}

// Its entry in the reduce_scatter operation's list (collectives/reduce_scatter.def).
CollectiveAlgorithm reduce_scatter_ring_algorithm() {
  return {"ring", reduce_scatter_ring, sized<model_reduce_scatter_ring>};
}

}  // namespace commlab
