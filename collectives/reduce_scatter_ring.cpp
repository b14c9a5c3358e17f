// Ring reduce-scatter: the first half of the ring all-reduce. The buffer is
// cut into P chunks; each travels once round the ring, every rank adding its
// own contribution as it passes, and ends complete on the rank it belongs to.
//
//   steps s = 0 .. P-2:
//     rank r sends chunk (r-s-1) mod P to rank r+1, receives chunk (r-s-2) mod P
//     from rank r-1 and adds it into its own copy of that chunk.
//   After the last step rank r holds chunk r reduced over every rank.
//
// P-1 steps; every rank sends N minus one chunk, whatever P is.
#include <cstring>

#include "collective.hpp"

namespace commlab {

void reduce_scatter_ring(const CollectiveJob& job) {
  Comm& comm = job.comm;
  const int P = comm.size(), me = comm.rank();
  const int right = (me + 1) % P, left = (me - 1 + P) % P;
  const Partition chunks = job.parts();
  const size_t es = job.esize(), bytes = job.count * es;
  auto mod = [P](int x) { return ((x % P) + P) % P; };
  // Work on a copy of the input (in place: on the buffer itself), adding in arriving chunks.
  char* room =
      static_cast<char*>(job.mem.scratch(chunks.largest() * es + (job.in_place() ? 0 : bytes)));
  char* incoming = room;
  char* work = job.in_place() ? static_cast<char*>(job.out) : room + chunks.largest() * es;
  if (!job.in_place() && bytes) job.mem.copy(work, job.in, bytes);
  auto at = [&](int c) { return work + chunks.offset(c) * es; };

  for (int s = 0; s < P - 1; ++s) {
    int send = mod(me - s - 1), recv = mod(me - s - 2);
    comm.sendrecv_reduce(right, at(send), chunks.size(send) * es, left, incoming, at(recv),
                         chunks.size(recv) * es, job.red, {s, send});
  }
  // MPI puts the result at the front of the output (of the buffer, in place,
  // where the two may overlap: so through `incoming`).
  job.mem.copy(incoming, at(me), chunks.size(me) * es);
  job.mem.copy(job.out, incoming, chunks.size(me) * es);
}

Traffic model_reduce_scatter_ring(int P, size_t count, size_t esize, int) {
  const Partition chunks{count, P};
  Tally t(P);
  for (int s = 0; s < P - 1; ++s)
    for (int r = 0; r < P; ++r)
      t.message(s, r, (r + 1) % P, chunks.size(((r - s - 1) % P + P) % P) * esize);
  return t.traffic();
}

}  // namespace commlab
