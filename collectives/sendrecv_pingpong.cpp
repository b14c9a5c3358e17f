// Ping-pong, the classic two-rank test (osu_latency, osu_bw). Ranks pair up as
// (0,1), (2,3), ...; with an odd P the last rank sits the run out.
//
//   step 0: the even rank of each pair sends its buffer to the odd one
//   step 1: the odd rank sends its own buffer back
//
// One run is a round trip: the program reports half of it, the one-way latency,
// and bytes / latency as the bandwidth.
#include "algorithms.hpp"

namespace commlab {

void sendrecv_pingpong(const CollectiveJob& job) {
  Comm& comm = job.comm;
  const int me = comm.rank(), peer = sendrecv_peer(comm.size(), me);
  if (peer < 0) return;
  const size_t bytes = job.count * job.esize();
  if (me % 2 == 0) {
    comm.send(peer, job.in, bytes, {0});
    comm.recv(peer, job.out, bytes, {1});
  } else {
    comm.recv(peer, job.out, bytes, {0});
    comm.send(peer, job.in, bytes, {1});
  }
}

Traffic model_sendrecv_pingpong(int P, size_t count, size_t esize, int) {
  Tally t(P);
  for (int even = 0; sendrecv_peer(P, even) >= 0; even += 2) {
    t.message(0, even, even + 1, count * esize);
    t.message(1, even + 1, even, count * esize);
  }
  return t.traffic();
}

// Its entry in the sendrecv operation's list (collectives/sendrecv.def): a
// round trip timed, half of it reported (the one-way time).
CollectiveAlgorithm sendrecv_pingpong_algorithm() {
  return {"pingpong", sendrecv_pingpong, sized<model_sendrecv_pingpong>, nullptr, 0.5};
}

}  // namespace commlab
