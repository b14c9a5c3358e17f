// Pairwise-exchange all-to-all: rank r's buffer is P blocks, block j for rank
// j; rank r ends with block r of every rank, in rank order. One partner per
// step, so every rank sends and receives exactly one block at a time.
//
//   step 0 (no message): keep my own block
//   steps s = 1 .. P-1 (numbered s-1):
//     rank r sends block r+s to rank r+s and receives rank (r-s)'s block r.
//
// P-1 steps; every rank sends N minus its own block.
#include <cstring>

#include "algorithms.hpp"

namespace commlab {

void alltoall_pairwise(const CollectiveJob& job) {
  Comm& comm = job.comm;
  const int P = comm.size(), me = comm.rank();
  const Partition blocks = job.parts();  // what each rank's buffer is cut into
  const size_t es = job.esize(), mine = blocks.size(me) * es;  // every block I receive
  // In place the blocks received overwrite blocks still to be sent: send from a copy.
  const char* in = static_cast<const char*>(job.in);
  if (job.in_place()) {
    char* copy = static_cast<char*>(job.mem.scratch(job.count * es));
    if (job.count) job.mem.copy(copy, in, job.count * es);
    in = copy;
  }
  auto* out = static_cast<char*>(job.out);
  auto block = [&](int j) { return in + blocks.offset(j) * es; };
  if (mine) job.mem.copy(out + me * mine, block(me), mine);

  for (int s = 1; s < P; ++s) {
    int to = (me + s) % P, from = (me - s + P) % P;
    comm.sendrecv(to, block(to), blocks.size(to) * es, from, out + from * mine, mine, {s - 1, to});
  }
}

Traffic model_alltoall_pairwise(int P, size_t count, size_t esize, int) {
  const Partition blocks{count, P};
  Tally t(P);
  for (int s = 1; s < P; ++s)
    for (int r = 0; r < P; ++r) t.message(s - 1, r, (r + s) % P, blocks.size((r + s) % P) * esize);
  return t.traffic();
}

// Its entry in the alltoall operation's list (collectives/alltoall.def).
CollectiveAlgorithm alltoall_pairwise_algorithm() {
  return {"pairwise", alltoall_pairwise, sized<model_alltoall_pairwise>};
}

}  // namespace commlab
