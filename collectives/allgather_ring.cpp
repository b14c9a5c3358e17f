// Ring all-gather: every rank puts its own part in place, then the parts go
// round the ring, each rank passing on to the right what it got from the left.
//
//   steps s = 0 .. P-2:
//     rank r sends part (r-s) mod P to rank r+1 and receives part (r-s-1) mod P
//     from rank r-1.
//
// P-1 steps; every rank sends N minus one part and receives N minus its own:
// the bandwidth-optimal all-gather, and the second half of the ring all-reduce.
#include <cstring>

#include "collective.hpp"

namespace commlab {

void allgather_ring(const CollectiveJob& job) {
  Comm& comm = job.comm;
  const int P = comm.size(), me = comm.rank();
  const int right = (me + 1) % P, left = (me - 1 + P) % P;
  const Partition parts = job.parts();
  const size_t es = job.esize();
  auto* out = static_cast<char*>(job.out);
  auto at = [&](int c) { return out + parts.offset(c) * es; };
  auto mod = [P](int x) { return ((x % P) + P) % P; };
  if (!job.in_place() && parts.size(me)) job.mem.copy(at(me), job.in, parts.size(me) * es);

  for (int s = 0; s < P - 1; ++s) {
    int send = mod(me - s), recv = mod(me - s - 1);
    comm.sendrecv(right, at(send), parts.size(send) * es, left, at(recv), parts.size(recv) * es,
                  {s, send});
  }
}

void tally_allgather_ring(Tally& t, int P, size_t count, size_t esize, int first_step) {
  const Partition parts{count, P};
  for (int s = 0; s < P - 1; ++s)
    for (int r = 0; r < P; ++r) {
      int send = ((r - s) % P + P) % P;
      t.message(first_step + s, r, (r + 1) % P, parts.size(send) * esize);
    }
}

Traffic model_allgather_ring(int P, size_t count, size_t esize, int) {
  Tally t(P);
  tally_allgather_ring(t, P, count, esize, 0);
  return t.traffic();
}

}  // namespace commlab
