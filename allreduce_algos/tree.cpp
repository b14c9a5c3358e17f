// Tree all-reduce: ranks form a binary tree (the root, then its two children,
// then theirs: node v has children 2v+1 and 2v+2, counted from the root).
// Reduce up the tree level by level, then broadcast the result back down.
// About 2 log2(P) steps, fewer than the ring, but every message is the whole buffer.
//
//   reduce, steps 0 .. D-1 (D = depth of the tree, floor(log2 P)):
//     a node at depth d waits for its children, adds their buffers into its
//     own, and sends the sum to its parent at step D-d.
//   broadcast, steps D .. 2D-1:
//     a node at depth d receives the result from its parent, then sends it to
//     its children at step D+d.
#include "allreduce.hpp"

namespace commlab {

namespace {
int depth(int v) {  // of node v in the heap numbering: floor(log2(v+1))
  int d = 0;
  while (v + 1 >= (2 << d)) ++d;
  return d;
}
}  // namespace

void allreduce_tree(const AllreduceJob& job) {
  Comm& comm = job.comm;
  const int P = comm.size(), root = job.root;
  const int v = (comm.rank() - root + P) % P;  // my node, counted from the root
  auto rank_of = [&](int node) { return (node + root) % P; };
  const int D = depth(P - 1), d = depth(v);
  const size_t bytes = job.count * job.red.esize();
  const int children[2] = {2 * v + 1, 2 * v + 2};

  void* incoming = job.mem.scratch(bytes);
  for (int c : children) {
    if (c >= P) continue;
    comm.recv_reduce(rank_of(c), incoming, job.data, bytes, job.red, {D - d - 1});
  }
  if (v != 0) {
    comm.send(rank_of((v - 1) / 2), job.data, bytes, {D - d});
    comm.recv(rank_of((v - 1) / 2), job.data, bytes, {D + d - 1});
  }
  for (int c : children)
    if (c < P) comm.send(rank_of(c), job.data, bytes, {D + d});
}

Traffic model_tree(int P, size_t count, size_t esize) {
  const uint64_t N = count * esize;
  Traffic t;
  // Every node but the root sends the sum up once and gets the result once.
  for (int v = 0; v < P; ++v) {
    uint64_t kids = (2 * v + 1 < P) + (2 * v + 2 < P);
    uint64_t sent = (v != 0) + kids, recvd = kids + (v != 0);
    t.sent_max_rank_B = std::max(t.sent_max_rank_B, sent * N);
    t.recv_max_rank_B = std::max(t.recv_max_rank_B, recvd * N);
  }
  t.sent_total_B = 2 * uint64_t(P - 1) * N;
  t.msgs_total = 2 * uint64_t(P - 1);
  t.steps = 2 * uint64_t(depth(P - 1));
  t.critical_path_B = t.steps * N;
  return t;
}

}  // namespace commlab
