// Linear reduce, the naive one: every other rank sends its whole buffer to the
// root, which adds them in one after another (root+1, root+2, ... mod P).
//
//   step k-1 (k = 1 .. P-1): rank root+k sends its buffer to the root
//
// P-1 steps; the root's link carries (P-1)N and the root does all the adding.
#include <cstring>

#include "algorithms.hpp"

namespace commlab {

void reduce_linear(const CollectiveJob& job) {
  Comm& comm = job.comm;
  const int P = comm.size(), me = comm.rank(), root = job.root;
  const size_t bytes = job.count * job.esize();
  if (me != root) {
    comm.send(root, job.in, bytes, {(me - root + P) % P - 1});
    return;
  }
  if (!job.in_place() && bytes) job.mem.copy(job.out, job.in, bytes);
  void* incoming = job.mem.scratch(bytes);
  for (int k = 1; k < P; ++k) {
    comm.recv_reduce((root + k) % P, incoming, job.out, bytes, job.red, {k - 1});
  }
}

Traffic model_reduce_linear(int P, size_t count, size_t esize, int root) {
  Tally t(P);
  for (int k = 1; k < P; ++k)
    t.message(k - 1, (root + k) % P, root, count * esize, Arrival::reduced);
  return t.traffic();
}

// Its entry in the reduce operation's list (collectives/reduce.def).
CollectiveAlgorithm reduce_linear_algorithm() {
  return {"linear", reduce_linear, sized<model_reduce_linear>};
}

}  // namespace commlab
