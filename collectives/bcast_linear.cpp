// Linear broadcast, the naive one: the root sends its whole buffer to every
// other rank in turn, root+1, root+2, ... (mod P).
//
//   step k-1 (k = 1 .. P-1): the root sends the buffer to rank root+k
//
// P-1 steps, and the root's link carries (P-1)N while every other link idles.
#include "algorithms.hpp"

namespace commlab {

void bcast_linear(const CollectiveJob& job) {
  Comm& comm = job.comm;
  const int P = comm.size(), me = comm.rank(), root = job.root;
  const size_t bytes = job.count * job.esize();
  if (me == root) {
    for (int k = 1; k < P; ++k) comm.send((root + k) % P, job.out, bytes, {k - 1});
  } else {
    comm.recv(root, job.out, bytes, {(me - root + P) % P - 1});
  }
}

Traffic model_bcast_linear(int P, size_t count, size_t esize, int root) {
  Tally t(P);
  for (int k = 1; k < P; ++k) t.message(k - 1, root, (root + k) % P, count * esize);
  return t.traffic();
}

// Its entry in the bcast operation's list (collectives/bcast.def).
CollectiveAlgorithm bcast_linear_algorithm() {
  return {"linear", bcast_linear, sized<model_bcast_linear>};
}

}  // namespace commlab
