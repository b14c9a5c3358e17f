// Binomial-tree gather, the scatter tree run backwards. Ranks are counted from
// the root, v = (r - root) mod P, and parts are collected in that order (the
// root rotates them into place at the end).
//
//   round k = 0 .. L-1 (L = ceil(log2 P), d = 2^k, doubling):
//     a rank with v mod 2d == d sends the parts it holds, v .. v+d-1 (cut at P),
//     to v - d, and is done;
//     a rank with v mod 2d == 0 receives those of v+d .. v+2d-1 from v + d.
//
// L steps instead of P-1; the root receives half of everything in the last round.
#include <algorithm>
#include <cstring>

#include "algorithms.hpp"

namespace commlab {

void gather_binomial(const CollectiveJob& job) {
  Comm& comm = job.comm;
  const int P = comm.size(), me = comm.rank(), v = (me - job.root + P) % P;
  auto rank_of = [&](int u) { return (u + job.root) % P; };
  const Partition parts = job.parts();
  const RotatedParts rel{parts, job.root};
  const size_t es = job.esize();
  auto bytes = [&](int from, int to) { return (rel.offset(to) - rel.offset(from)) * es; };
  const int subtree = v == 0 ? 1 << binomial_rounds(P) : lowbit(v);
  const bool leaf = v != 0 && std::min(v + subtree, P) - v == 1;

  // Where this rank collects its subtree's parts, its own first. The root with
  // rank 0 collects straight into its result, whose order is already relative.
  char* held;
  const char* mine = static_cast<const char*>(job.in);
  if (v == 0 && job.in_place()) mine += parts.offset(me) * es;
  if (leaf) {
    held = const_cast<char*>(mine);  // sent as it is
  } else {
    held = v == 0 && job.root == 0 ? static_cast<char*>(job.out)
                                   : static_cast<char*>(job.mem.scratch(job.count * es));
    if (held != mine && parts.size(me)) job.mem.copy(held, mine, parts.size(me) * es);
  }

  for (int k = 0, d = 1; d < P; ++k, d *= 2) {
    if (v % (2 * d) == d) {
      comm.send(rank_of(v - d), held, bytes(v, std::min(v + d, P)),
                {k, rank_of(v), rank_of(std::min(v + d, P) - 1)});
      return;
    }
    if (v + d < P)
      comm.recv(rank_of(v + d), held + bytes(v, v + d), bytes(v + d, std::min(v + 2 * d, P)), {k});
  }
  if (job.root != 0)  // from relative order back to rank order
    rotate_copy(job.mem, job.out, held, job.count * es, (job.count - parts.offset(job.root)) * es);
}

Traffic model_gather_binomial(int P, size_t count, size_t esize, int root) {
  const RotatedParts rel{{count, P}, root};
  Tally t(P);
  for (int k = 0, d = 1; d < P; ++k, d *= 2)
    for (int v = d; v < P; v += 2 * d)
      t.message(k, (v + root) % P, (v - d + root) % P,
                (rel.offset(std::min(v + d, P)) - rel.offset(v)) * esize);
  return t.traffic();
}

// Its entry in the gather operation's list (collectives/gather.def).
CollectiveAlgorithm gather_binomial_algorithm() {
  return {"binomial", gather_binomial, sized<model_gather_binomial>};
}

}  // namespace commlab
