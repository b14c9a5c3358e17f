// Linear barrier, the naive one: everybody reports to the root, and the root,
// once it has heard from all, releases everybody. Messages carry no data.
//
//   steps 0 .. P-2:    rank root+k+1 sends an empty message to the root
//   steps P-1 .. 2P-3: the root sends an empty message to rank root+k+1
//
// 2(P-1) steps, all through the root.
#include "algorithms.hpp"

namespace commlab {

void barrier_linear(const CollectiveJob& job) {
  Comm& comm = job.comm;
  const int P = comm.size(), me = comm.rank(), root = job.root;
  if (me != root) {
    const int k = (me - root + P) % P - 1;
    comm.send(root, nullptr, 0, {k});
    comm.recv(root, nullptr, 0, {P - 1 + k});
    return;
  }
  for (int k = 0; k < P - 1; ++k) comm.recv((root + k + 1) % P, nullptr, 0, {k});
  for (int k = 0; k < P - 1; ++k) comm.send((root + k + 1) % P, nullptr, 0, {P - 1 + k});
}

Traffic model_barrier_linear(int P, size_t, size_t, int root) {
  Tally t(P);
  for (int k = 0; k < P - 1; ++k) t.message(k, (root + k + 1) % P, root, 0);
  for (int k = 0; k < P - 1; ++k) t.message(P - 1 + k, root, (root + k + 1) % P, 0);
  return t.traffic();
}

// Its entry in the barrier operation's list (collectives/barrier.def).
CollectiveAlgorithm barrier_linear_algorithm() {
  return {"linear", barrier_linear, sized<model_barrier_linear>};
}

}  // namespace commlab
