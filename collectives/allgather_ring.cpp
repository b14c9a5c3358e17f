// Ring all-gather: every rank puts its own part in place, then the parts go
// round the ring, each rank passing on to the right what it got from the left
// (ring.cpp: in step s rank r sends part (r-s) mod P and receives part
// (r-s-1) mod P).
//
// P-1 steps; every rank sends N minus one part and receives N minus its own:
// the bandwidth-optimal all-gather, and the second half of the ring all-reduce.
#include "algorithms.hpp"

namespace commlab {

void allgather_ring(const CollectiveJob& job) {
  const int me = job.comm.rank();
  const Chunks parts{static_cast<char*>(job.out), job.parts(), job.esize()};
  if (!job.in_place()) job.mem.copy(parts.at(me), job.in, parts.bytes(me));
  ring_allgather(job.comm, Ring(job.comm.size()), parts, 0);
}

Traffic model_allgather_ring(int P, size_t count, size_t esize, int) {
  Tally t(P);
  tally_ring_allgather(t, Ring(P), {count, P}, esize, 0);
  return t.traffic();
}

// Its entry in the allgather operation's list (collectives/allgather.def).
CollectiveAlgorithm allgather_ring_algorithm() {
  return {"ring", allgather_ring, sized<model_allgather_ring>};
}

}  // namespace commlab
