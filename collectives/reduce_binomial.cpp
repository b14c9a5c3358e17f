// Binomial-tree reduce, the broadcast tree run backwards. Ranks are counted
// from the root: v = (r - root) mod P.
//
//   round k = 0, 1, ... (d = 2^k):
//     a rank with v mod 2d == d sends its partial result to v - d, and is done;
//     a rank with v mod 2d == 0 receives v + d's (if it exists) and adds it in.
//
// ceil(log2 P) rounds; the root receives once per round, and the adding is
// spread over the tree instead of all landing on the root.
#include <cstring>

#include "algorithms.hpp"

namespace commlab {

void reduce_binomial(const CollectiveJob& job) {
  Comm& comm = job.comm;
  const int P = comm.size(), me = comm.rank(), v = (me - job.root + P) % P;
  auto rank_of = [&](int u) { return (u + job.root) % P; };
  const size_t bytes = job.count * job.esize();
  // The root adds into its result; the others into scratch: MPI leaves their input untouched.
  char* room = static_cast<char*>(job.mem.scratch(2 * bytes));
  char* acc = me == job.root ? static_cast<char*>(job.out) : room + bytes;
  if (acc != job.in && bytes) job.mem.copy(acc, job.in, bytes);
  comm.watch(acc, bytes);  // --show --steps: each rank's partial sum

  for (int k = 0, d = 1; d < P; ++k, d *= 2) {
    if (v % (2 * d) == d) {
      comm.send(rank_of(v - d), acc, bytes, {k});
      return;
    }
    if (v + d < P) {
      comm.recv_reduce(rank_of(v + d), room, acc, bytes, job.red, {k});
    }
  }
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

}  // namespace commlab
