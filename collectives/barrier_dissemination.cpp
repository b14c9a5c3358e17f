// Dissemination barrier (Hensgen, Finkel and Manber): no root. In round k
// every rank signals the rank 2^k after it and waits for the one 2^k before.
//
//   round k = 0 .. ceil(log2 P)-1 (d = 2^k):
//     rank r sends an empty message to rank r+d and receives one from rank r-d.
//
// After round k a rank has heard, directly or through others, from the 2^(k+1)-1
// ranks before it; after the last round, from everyone. ceil(log2 P) steps.
#include "algorithms.hpp"

namespace commlab {

void barrier_dissemination(const CollectiveJob& job) {
  Comm& comm = job.comm;
  const int P = comm.size(), me = comm.rank();
  for (int k = 0, d = 1; d < P; ++k, d *= 2)
    comm.sendrecv((me + d) % P, nullptr, 0, (me - d + P) % P, nullptr, 0, {k});
}

Traffic model_barrier_dissemination(int P, size_t, size_t, int) {
  Tally t(P);
  for (int k = 0, d = 1; d < P; ++k, d *= 2)
    for (int r = 0; r < P; ++r) t.message(k, r, (r + d) % P, 0);
  return t.traffic();
}

// Its entry in the barrier operation's list (collectives/barrier.def).
CollectiveAlgorithm barrier_dissemination_algorithm() {
  return {"dissemination", barrier_dissemination, sized<model_barrier_dissemination>};
}

}  // namespace commlab
