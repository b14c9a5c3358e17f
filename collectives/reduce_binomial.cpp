// Binomial-tree reduce, the broadcast tree run backwards. Ranks are counted
// from the root: v = (r - root) mod P.
//
//   round k = 0, 1, ... (d = 2^k):
//     a rank with v mod 2d == d sends its partial result to v - d, and is done;
//     a rank with v mod 2d == 0 receives v + d's (if it exists) and adds it in.
//
// ceil(log2 P) rounds; the root receives once per round, and the adding is
// spread over the tree instead of all landing on the root. A leaf (odd v, or
// the last even one) receives nothing and sends its input as it is.
#include <cstring>

#include "algorithms.hpp"

namespace commlab {

namespace {
// Whether v receives at all: its first round's partner, v + 1, is its child.
bool has_child(int P, int v) { return v % 2 == 0 && v + 1 < P; }
}  // namespace

void reduce_binomial(const CollectiveJob& job) {
  Comm& comm = job.comm;
  const int P = comm.size(), me = comm.rank(), v = (me - job.root + P) % P;
  auto rank_of = [&](int u) { return (u + job.root) % P; };
  const size_t bytes = job.count * job.esize();
  // The root adds into its result; a rank with a child into scratch, as MPI
  // leaves its input untouched. A leaf adds nothing, so copies nothing.
  char* room = has_child(P, v) ? static_cast<char*>(job.mem.scratch(2 * bytes)) : nullptr;
  char* acc = me == job.root ? static_cast<char*>(job.out) : room ? room + bytes : nullptr;
  if (acc && acc != job.in) job.mem.copy(acc, job.in, bytes);
  const void* partial = acc ? acc : job.in;
  comm.watch(partial, bytes);  // --show --steps: each rank's partial sum

  for (int k = 0, d = 1; d < P; ++k, d *= 2) {
    if (v % (2 * d) == d) {
      comm.send(rank_of(v - d), partial, bytes, {k});
      return;
    }
    if (v + d < P) {
      comm.recv_reduce(rank_of(v + d), room, acc, bytes, job.red, {k});
    }
  }
}

int reduce_binomial_own_copies(int P, int root, int rank, bool in_place) {
  const int v = (rank - root + P) % P;
  if (v == 0) return in_place ? 0 : 1;  // the input into the result
  return has_child(P, v) ? 1 : 0;       // the input into scratch, to add into
}

void tally_reduce_binomial(Tally& t, int P, size_t count, size_t esize, int root, int first_step) {
  for (int k = 0, d = 1; d < P; ++k, d *= 2)
    for (int v = d; v < P; v += 2 * d)
      t.message(first_step + k, (v + root) % P, (v - d + root) % P, count * esize,
                Arrival::reduced);
}

Traffic model_reduce_binomial(int P, size_t count, size_t esize, int root) {
  Tally t(P);
  tally_reduce_binomial(t, P, count, esize, root, 0);
  return t.traffic();
}

// Its entry in the reduce operation's list (collectives/reduce.def).
CollectiveAlgorithm reduce_binomial_algorithm() {
  return {"binomial", reduce_binomial, sized<model_reduce_binomial>};
}

}  // namespace commlab
