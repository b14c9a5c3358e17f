// Bruck's all-gather, for any P. Each rank collects the parts in the order of
// the ranks counted from itself (r, r+1, ... mod P), so what it has is always
// one run at the front of a scratch buffer, and rotates them into place at the end.
//
//   round k = 0 .. ceil(log2 P)-1 (d = 2^k):
//     rank r sends the first min(d, P-d) parts it holds to rank r-d and
//     receives as many from rank r+d (parts r+d, r+d+1, ...), placed after its own d.
//
// ceil(log2 P) steps, like recursive doubling, with no power of two needed.
#include <algorithm>
#include <cstring>

#include "algorithms.hpp"

namespace commlab {

void allgather_bruck(const CollectiveJob& job) {
  Comm& comm = job.comm;
  const int P = comm.size(), me = comm.rank();
  const Partition parts = job.parts();
  const RotatedParts rel{parts, me};
  const size_t es = job.esize();
  auto bytes = [&](int from, int to) { return (rel.offset(to) - rel.offset(from)) * es; };
  char* held = static_cast<char*>(job.mem.scratch(job.count * es));
  const char* mine = job.in_place() ? static_cast<const char*>(job.out) + parts.offset(me) * es
                                    : static_cast<const char*>(job.in);
  if (rel.size(0)) job.mem.copy(held, mine, rel.size(0) * es);

  for (int k = 0, d = 1; d < P; ++k, d *= 2) {
    const int n = std::min(d, P - d);
    comm.sendrecv((me - d + P) % P, held, bytes(0, n), (me + d) % P, held + bytes(0, d),
                  bytes(d, d + n), {k, me, (me + n - 1) % P});
  }
  rotate_copy(job.mem, job.out, held, job.count * es, (job.count - parts.offset(me)) * es);
}

Traffic model_allgather_bruck(int P, size_t count, size_t esize, int) {
  const Partition parts{count, P};
  Tally t(P);
  for (int k = 0, d = 1; d < P; ++k, d *= 2)
    for (int r = 0; r < P; ++r) {
      const RotatedParts rel{parts, r};
      t.message(k, r, (r - d + P) % P, rel.offset(std::min(d, P - d)) * esize);
    }
  return t.traffic();
}

// Its entry in the allgather operation's list (collectives/allgather.def).
CollectiveAlgorithm allgather_bruck_algorithm() {
  return {"bruck", allgather_bruck, sized<model_allgather_bruck>};
}

}  // namespace commlab
