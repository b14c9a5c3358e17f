// Linear gather, the naive one: every other rank sends its part to the root,
// which takes them one after another (root+1, root+2, ... mod P).
//
//   step k-1 (k = 1 .. P-1): rank root+k sends its part to the root
//
// P-1 steps, all on the root's link, which carries N minus its own part.
#include <cstring>

#include "algorithms.hpp"

namespace commlab {

void gather_linear(const CollectiveJob& job) {
  Comm& comm = job.comm;
  const int P = comm.size(), me = comm.rank(), root = job.root;
  const Partition parts = job.parts();
  const size_t es = job.esize();
  if (me != root) {
    comm.send(root, job.in, parts.size(me) * es, {(me - root + P) % P - 1, me});
    return;
  }
  auto* out = static_cast<char*>(job.out);
  if (!job.in_place() && parts.size(me))
    job.mem.copy(out + parts.offset(me) * es, job.in, parts.size(me) * es);
  for (int k = 1; k < P; ++k) {
    int j = (root + k) % P;
    comm.recv(j, out + parts.offset(j) * es, parts.size(j) * es, {k - 1, j});
  }
}

Traffic model_gather_linear(int P, size_t count, size_t esize, int root) {
  const Partition parts{count, P};
  Tally t(P);
  for (int k = 1; k < P; ++k) {
    int j = (root + k) % P;
    t.message(k - 1, j, root, parts.size(j) * esize);
  }
  return t.traffic();
}

// Its entry in the gather operation's list (collectives/gather.def).
CollectiveAlgorithm gather_linear_algorithm() {
  return {"linear", gather_linear, sized<model_gather_linear>};
}

}  // namespace commlab
