// Linear scatter, the naive one: the root sends part j of its buffer to rank j,
// one rank after another (root+1, root+2, ... mod P), and keeps its own part.
//
//   step k-1 (k = 1 .. P-1): the root sends part root+k to rank root+k
//
// P-1 steps, all on the root's link, which carries N minus its own part.
#include <cstring>

#include "algorithms.hpp"

namespace commlab {

void scatter_linear(const CollectiveJob& job) {
  Comm& comm = job.comm;
  const int P = comm.size(), me = comm.rank(), root = job.root;
  const Partition parts = job.parts();
  const size_t es = job.esize();
  if (me != root) {
    comm.recv(root, job.out, parts.size(me) * es, {(me - root + P) % P - 1, me});
    return;
  }
  auto* in = static_cast<const char*>(job.in);
  for (int k = 1; k < P; ++k) {
    int j = (root + k) % P;
    comm.send(j, in + parts.offset(j) * es, parts.size(j) * es, {k - 1, j});
  }
  if (!job.in_place() && parts.size(me))
    job.mem.copy(job.out, in + parts.offset(me) * es, parts.size(me) * es);
}

Traffic model_scatter_linear(int P, size_t count, size_t esize, int root) {
  const Partition parts{count, P};
  Tally t(P);
  for (int k = 1; k < P; ++k) {
    int j = (root + k) % P;
    t.message(k - 1, root, j, parts.size(j) * esize);
  }
  return t.traffic();
}

// Its entry in the scatter operation's list (collectives/scatter.def).
CollectiveAlgorithm scatter_linear_algorithm() {
  return {"linear", scatter_linear, sized<model_scatter_linear>};
}

}  // namespace commlab
