// Non-blocking exchange: the ranks of each pair (0,1), (2,3), ... post a
// receive and a send to each other (MPI_Irecv, MPI_Isend) and wait for both,
// so both directions of the link are busy at once (osu_bibw). With an odd P
// the last rank sits the run out.
//
//   step 0: each rank of a pair sends its buffer to the other
#include "algorithms.hpp"

namespace commlab {

void sendrecv_exchange(const CollectiveJob& job) {
  Comm& comm = job.comm;
  const int peer = sendrecv_peer(comm.size(), comm.rank());
  if (peer < 0) return;
  const size_t bytes = job.count * job.esize();
  comm.irecv(peer, job.out, bytes, {0});
  comm.isend(peer, job.in, bytes, {0});
  comm.wait_all();
}

Traffic model_sendrecv_exchange(int P, size_t count, size_t esize, int) {
  Tally t(P);
  for (int even = 0; sendrecv_peer(P, even) >= 0; even += 2) {
    t.message(0, even, even + 1, count * esize);
    t.message(0, even + 1, even, count * esize);
  }
  return t.traffic();
}

// Its entry in the sendrecv operation's list (collectives/sendrecv.def).
CollectiveAlgorithm sendrecv_exchange_algorithm() {
  return {"exchange", sendrecv_exchange, sized<model_sendrecv_exchange>};
}

}  // namespace commlab
