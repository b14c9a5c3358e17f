// Tree all-reduce: ranks form a binary tree (the root, then its two children,
// then theirs: node v has children 2v+1 and 2v+2, counted from the root).
// Reduce up the tree level by level, then broadcast the result back down.
// About 2 log2(P) steps, fewer than the ring, but every message is the whole
// buffer, and an inner node receives two children's N through one link.
//
//   reduce, steps 0 .. D-1 (D = depth of the tree, floor(log2 P)):
//     a node at depth d waits for its children, adds their buffers into its
//     own, and sends the sum to its parent at step D-d.
//   broadcast, steps D .. 2D-1:
//     a node at depth d receives the result from its parent, then sends it to
//     its children at step D+d.
//
//   P = 6, root 0:        0            depth 0
//                       /   \          (node 0 gets the sums of 1 and 2)
//                      1     2         depth 1
//                     / \   /          (node 1 gets the sums of 3 and 4)
//                    3   4 5           depth 2 (D = 2)
#include <algorithm>
#include <cmath>

#include "collectives/collective.hpp"

namespace commlab {

namespace {
int depth(int v) {  // of node v in the heap numbering: floor(log2(v+1))
  int d = 0;
  while (v + 1 >= (2 << d)) ++d;
  return d;
}

void allreduce_tree(const CollectiveJob& job) {
  Comm& comm = job.comm;
  const int P = comm.size(), root = job.root;
  const int v = (comm.rank() - root + P) % P;  // my node, counted from the root
  auto rank_of = [&](int node) { return (node + root) % P; };
  const int D = depth(P - 1), d = depth(v);
  char* data = allreduce_buffer(job);
  const size_t bytes = job.count * job.esize();
  const int children[2] = {2 * v + 1, 2 * v + 2};

  void* incoming = job.mem.scratch(bytes);
  comm.begin_phase(Phase::reduce);
  for (int c : children)
    if (c < P) comm.recv_reduce(rank_of(c), incoming, data, bytes, job.red, {D - d - 1});
  if (v != 0) comm.send(rank_of((v - 1) / 2), data, bytes, {D - d});
  comm.begin_phase(Phase::broadcast);
  if (v != 0) comm.recv(rank_of((v - 1) / 2), data, bytes, {D + d - 1});
  for (int c : children)
    if (c < P) comm.send(rank_of(c), data, bytes, {D + d});
}

Traffic model_allreduce_tree(int P, size_t count, size_t esize, int root) {
  const int D = depth(P - 1);
  auto rank_of = [&](int node) { return (node + root) % P; };
  Tally t(P);
  for (int v = 1; v < P; ++v) {  // every node but the root: the sum up, the result down
    t.message(D - depth(v), rank_of(v), rank_of((v - 1) / 2), count * esize, Arrival::reduced);
    t.message(D + depth(v) - 1, rank_of((v - 1) / 2), rank_of(v), count * esize);
  }
  return t.traffic();
}

// At any scale, root 0: a level's messages run up once and down once, and
// the node whose link sends or receives the most of them sets the level's
// time (two children's N into one parent, or k leaves out of one node).
// One pass over the ranks, level by level.
ScaledTraffic scaled_allreduce_tree(int P, double N, int ranks_per_node) {
  const int D = depth(P - 1);
  StepPorts ports(P, ranks_per_node);
  double crossing = 0;  // the busiest port's messages, summed over the levels
  for (int64_t d = 1; d <= D; ++d) {
    const int64_t first = (int64_t{1} << d) - 1, last = std::min((int64_t{2} << d) - 2, int64_t(P) - 1);
    for (int64_t v = first; v <= last; ++v) ports.message(v, (v - 1) / 2);
    crossing += double(ports.end_step());
  }
  return {2.0 * D, 2 * crossing * N, std::min(P - 1, 2) * N};
}

}  // namespace

// The textbook's T: what the busiest rank sends.
CollectiveAlgorithm allreduce_tree_algorithm() {
  CollectiveAlgorithm a{"tree", allreduce_tree, sized<model_allreduce_tree>};
  a.taught_formula = "log2(P)*N";
  a.taught_T = [](int P, double N) { return std::log2(P) * N; };
  a.at_scale = scaled_allreduce_tree;
  return a;
}

}  // namespace commlab
