// Binomial-tree scatter. Ranks are counted from the root, v = (r - root) mod P,
// and the parts are kept in that order too (the root rotates its buffer once),
// so the parts for any subtree v .. v+d-1 sit side by side.
//
//   round k = 0 .. L-1 (L = ceil(log2 P), d = 2^(L-1-k), halving):
//     a rank with v mod 2d == 0 holds the parts of v .. v+2d-1; it sends those
//     of v+d .. v+2d-1 (cut at P) to rank v+d.
//
// L steps instead of P-1. The root still sends N minus its own part, but half
// of it in the first round and less each round after, while the ranks that
// already have their share pass on the rest in parallel.
#include <algorithm>
#include <cstring>

#include "algorithms.hpp"

namespace commlab {

void scatter_binomial(const CollectiveJob& job) {
  Comm& comm = job.comm;
  const int P = comm.size(), me = comm.rank(), L = binomial_rounds(P);
  const int v = (me - job.root + P) % P;
  auto rank_of = [&](int u) { return (u + job.root) % P; };
  const RotatedParts rel{job.parts(), job.root};
  const size_t es = job.esize();
  auto bytes = [&](int from, int to) { return (rel.offset(to) - rel.offset(from)) * es; };

  // What this rank holds: its subtree's parts, its own first.
  const char* held;
  int subtree;  // ranks v .. v+subtree-1 (cut at P)
  if (v == 0) {
    subtree = 1 << L;
    held = static_cast<const char*>(job.in);
    if (job.root != 0) {  // into relative order
      char* rotated = static_cast<char*>(job.mem.scratch(job.count * es));
      rotate_copy(job.mem, rotated, held, job.count * es, job.parts().offset(job.root) * es);
      held = rotated;
    }
  } else {
    subtree = lowbit(v);
    const int end = std::min(v + subtree, P);
    // A leaf receives straight into its result; an inner node keeps the rest to pass on.
    char* into = end - v == 1 ? static_cast<char*>(job.out)
                              : static_cast<char*>(job.mem.scratch(bytes(v, end)));
    comm.recv(rank_of(v - subtree), into, bytes(v, end), {L - 1 - log2_exact(subtree), me});
    held = into;
  }

  for (int d = subtree / 2; d >= 1; d /= 2) {
    if (v + d >= P) continue;
    const int end = std::min(v + 2 * d, P);
    comm.send(rank_of(v + d), held + bytes(v, v + d), bytes(v + d, end),
              {L - 1 - log2_exact(d), rank_of(v + d), rank_of(end - 1)});
  }
  const bool root_in_place = v == 0 && job.in_place();
  const size_t own = job.parts().size(me) * es;  // first in what it holds
  if (held != job.out && !root_in_place && own) job.mem.copy(job.out, held, own);
}

void tally_scatter_binomial(Tally& t, int P, size_t count, size_t esize, int root, int first_step) {
  const RotatedParts rel{{count, P}, root};
  const int L = binomial_rounds(P);
  for (int k = 0; k < L; ++k) {
    const int d = 1 << (L - 1 - k);
    for (int v = 0; v + d < P; v += 2 * d) {
      const int end = std::min(v + 2 * d, P);
      t.message(first_step + k, (v + root) % P, (v + d + root) % P,
                (rel.offset(end) - rel.offset(v + d)) * esize);
    }
  }
}

Traffic model_scatter_binomial(int P, size_t count, size_t esize, int root) {
  Tally t(P);
  tally_scatter_binomial(t, P, count, esize, root, 0);
  return t.traffic();
}

// Its entry in the scatter operation's list (collectives/scatter.def).
CollectiveAlgorithm scatter_binomial_algorithm() {
  return {"binomial", scatter_binomial, sized<model_scatter_binomial>};
}

}  // namespace commlab
