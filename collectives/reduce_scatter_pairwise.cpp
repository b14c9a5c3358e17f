// Pairwise-exchange reduce-scatter: each rank sends every other rank the chunk
// that rank will own, straight to it, one partner per step, and adds up what
// it gets for its own chunk.
//
//   steps s = 1 .. P-1 (numbered s-1):
//     rank r sends its chunk r+s to rank r+s, receives rank (r-s)'s copy of
//     chunk r and adds it into its result.
//
// P-1 steps, the same bytes as the ring (N minus one chunk per rank), but every
// message goes straight to its owner: no chunk waits for the one before it.
#include <cstring>

#include "algorithms.hpp"

namespace commlab {

void reduce_scatter_pairwise(const CollectiveJob& job) {
  Comm& comm = job.comm;
  const int P = comm.size(), me = comm.rank();
  const Partition chunks = job.parts();
  const size_t es = job.esize(), bytes = job.count * es;
  char* room =
      static_cast<char*>(job.mem.scratch(chunks.size(me) * es + (job.in_place() ? bytes : 0)));
  char* incoming = room;
  // In place the result overwrites the front of the input, which is still to
  // be sent: send from a copy.
  const char* in = static_cast<const char*>(job.in);
  if (job.in_place()) {
    if (bytes) job.mem.copy(room + chunks.size(me) * es, in, bytes);
    in = room + chunks.size(me) * es;
  }
  auto at = [&](int c) { return in + chunks.offset(c) * es; };
  if (chunks.size(me)) job.mem.copy(job.out, at(me), chunks.size(me) * es);

  for (int s = 1; s < P; ++s) {
    int to = (me + s) % P, from = (me - s + P) % P;
    comm.sendrecv_reduce(to, at(to), chunks.size(to) * es, from, incoming, job.out,
                         chunks.size(me) * es, job.red, {s - 1, to});
  }
}

Traffic model_reduce_scatter_pairwise(int P, size_t count, size_t esize, int) {
  const Partition chunks{count, P};
  Tally t(P);
  for (int s = 1; s < P; ++s)
    for (int r = 0; r < P; ++r)
      t.message(s - 1, r, (r + s) % P, chunks.size((r + s) % P) * esize, Arrival::reduced);
  return t.traffic();
}

// Its entry in the reduce_scatter operation's list (collectives/reduce_scatter.def).
CollectiveAlgorithm reduce_scatter_pairwise_algorithm() {
  return {"pairwise", reduce_scatter_pairwise, sized<model_reduce_scatter_pairwise>};
}

}  // namespace commlab
