// Tree all-reduce: ranks form a binary tree (the root, then its two children,
// then theirs: node v has children 2v+1 and 2v+2, counted from the root).
// Reduce up the tree level by level, then broadcast the result back down.
// 2 to 3 log2(P) steps, fewer than the ring, but every message is the whole
// buffer, and an inner node receives two children's N through one link.
//
//   reduce, steps 0 .. D-1 (D = depth of the tree, floor(log2 P)):
//     a node at depth d waits for its children, adds their buffers into its
//     own, and sends the sum to its parent at step D-d.
//   broadcast, from step D:
//     a node receives the result from its parent, then sends it to its first
//     child and, one step later, to its second: while the second copy
//     leaves, the first child already forwards its own. Node v gets the
//     result at step D + depth(v) - 1 + (right turns on its path), where the
//     right turns are the ones in v+1's binary digits after the first.
//
//   P = 6, root 0:        0            depth 0
//                       /   \          (node 0 gets the sums of 1 and 2)
//                      1     2         depth 1
//                     / \   /          (node 1 gets the sums of 3 and 4)
//                    3   4 5           depth 2 (D = 2)
//
//   broadcast steps:  2: 0->1   3: 0->2 1->3   4: 1->4 2->5
//   (at P = 4 the root's two sends and 1->3 take 2 steps, not 3: the root's
//   link carries one N per step, and 1->3 travels beside 0->2.)
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "collectives/algorithm.hpp"

namespace commlab {

namespace {
int depth(int v) {  // of node v in the heap numbering: floor(log2(v+1))
  int d = 0;
  while (v + 1 >= (2 << d)) ++d;
  return d;
}

// The step at which node v > 0 receives the result from its parent.
int64_t bcast_step(int64_t v, int D) {
  return D + depth(int(v)) - 2 + __builtin_popcountll(uint64_t(v) + 1);
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
  if (v != 0) comm.recv(rank_of((v - 1) / 2), data, bytes, {int(bcast_step(v, D))});
  for (int c : children)
    if (c < P) comm.send(rank_of(c), data, bytes, {int(bcast_step(c, D))});
}

Traffic model_allreduce_tree(int P, size_t count, size_t esize, int root) {
  const int D = depth(P - 1);
  auto rank_of = [&](int node) { return (node + root) % P; };
  Tally t(P);
  for (int v = 1; v < P; ++v) {  // every node but the root: the sum up, the result down
    t.message(D - depth(v), rank_of(v), rank_of((v - 1) / 2), count * esize, Arrival::reduced);
    t.message(int(bcast_step(v, D)), rank_of((v - 1) / 2), rank_of(v), count * esize);
  }
  return t.traffic();
}

// At any scale, root 0: going up, a level's messages make one step, and the
// node whose link sends or receives the most of them sets its time (two
// children's N into one parent, or k leaves out of one node); coming down,
// the nodes are sorted into their broadcast steps first (a counting sort).
ScaledTraffic scaled_allreduce_tree(int P, double N, int ranks_per_node) {
  const int D = depth(P - 1);
  StepPorts ports(P, ranks_per_node);
  double crossing = 0;  // the busiest port's messages, summed over the steps
  for (int64_t d = D; d >= 1; --d) {
    const int64_t first = (int64_t{1} << d) - 1,
                  last = std::min((int64_t{2} << d) - 2, int64_t(P) - 1);
    for (int64_t v = first; v <= last; ++v) ports.message(v, (v - 1) / 2);
    crossing += double(ports.end_step());
  }
  std::vector<int64_t> first_of_step(3 * D + 2, 0), by_step(P > 1 ? P - 1 : 0);
  for (int64_t v = 1; v < P; ++v) ++first_of_step[bcast_step(v, D) - D + 1];
  for (size_t s = 1; s < first_of_step.size(); ++s) first_of_step[s] += first_of_step[s - 1];
  std::vector<int64_t> next = first_of_step;
  for (int64_t v = 1; v < P; ++v) by_step[next[bcast_step(v, D) - D]++] = v;
  int64_t bcast_steps = 0;
  for (size_t s = 0; s + 1 < first_of_step.size(); ++s) {
    if (first_of_step[s] == first_of_step[s + 1]) continue;
    for (int64_t i = first_of_step[s]; i < first_of_step[s + 1]; ++i)
      ports.message((by_step[i] - 1) / 2, by_step[i]);
    crossing += double(ports.end_step());
    bcast_steps = int64_t(s) + 1;
  }
  return {double(D + bcast_steps), crossing * N, std::min(P - 1, 2) * N};
}

}  // namespace

// The textbook's T: what the busiest rank sends.
CollectiveAlgorithm allreduce_tree_algorithm() {
  CollectiveAlgorithm a{"tree", allreduce_tree, sized<model_allreduce_tree>};
  a.teach(taught::tree);
  a.at_scale = scaled_allreduce_tree;
  return a;
}

}  // namespace commlab
