// Broadcast for large messages (van de Geijn): scatter the root's buffer in P
// parts down a binomial tree, then put the parts back together everywhere with
// a ring all-gather. Each rank receives about 2N instead of N, but no link
// carries more than about 2N either, where the binomial tree sends the whole
// buffer log2 P times from the root.
//
//   steps 0 .. L-1        binomial scatter (scatter_binomial.cpp), L = ceil(log2 P)
//   steps L .. L+P-2      ring all-gather (allgather_ring.cpp), in place
#include "algorithms.hpp"

namespace commlab {

void bcast_scatter_allgather(const CollectiveJob& job) {
  Comm& comm = job.comm;
  char* buffer = static_cast<char*>(job.out);
  const int me = comm.rank();
  // Scatter in place: the root keeps its buffer; rank r gets part r where it belongs.
  CollectiveJob scatter = job;
  scatter.in = buffer;
  scatter.out = me == job.root ? buffer : buffer + job.parts().offset(me) * job.esize();
  comm.begin_phase(Phase::scatter);
  scatter_binomial(scatter);

  comm.set_step_offset(binomial_rounds(comm.size()));
  CollectiveJob allgather = job;
  allgather.in = allgather.out = buffer;
  comm.begin_phase(Phase::all_gather);
  allgather_ring(allgather);
  comm.set_step_offset(0);
}

Traffic model_bcast_scatter_allgather(int P, size_t count, size_t esize, int root) {
  Tally t(P);
  tally_scatter_binomial(t, P, count, esize, root, 0);
  tally_ring_allgather(t, Ring(P), {count, P}, esize, binomial_rounds(P));
  return t.traffic();
}

// Its entry in the bcast operation's list (collectives/bcast.def).
CollectiveAlgorithm bcast_scatter_allgather_algorithm() {
  return {"scatter_allgather", bcast_scatter_allgather, sized<model_bcast_scatter_allgather>};
}

}  // namespace commlab
