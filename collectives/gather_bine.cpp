// Bine-tree gather (De Sensi et al., SC 2025): scatter_bine run backwards,
// as reduce_bine runs bcast_bine backwards: the broadcast's step t is step
// L-1-t here. Ranks are counted from the root, v = (r - root) mod P.
//
//   step k = 0 .. L-1: a rank whose subtree is complete sends it, its parts
//   in the tree's preorder (bine.hpp), to its parent; the parent puts them
//   after its own and its earlier children's.
//
// P = 8 (preorder 0 3 4 5 2 7 6 1):
//
//   step 0   1 -> 0: 1   2 -> 3: 2   6 -> 7: 6   5 -> 4: 5
//   step 1   7 -> 0: parts 7 6          4 -> 3: parts 4 5
//   step 2   3 -> 0: parts 3 4 5 2
//
// and the root puts the parts from preorder into rank order. The binomial
// gather's steps and bytes, the root receiving half of everything last; on
// a ring of 8 nodes 2.5N of hop-bytes against the binomial's 3.5N. For P <
// 2^L and count < P, as scatter_bine.
#include "algorithms.hpp"
#include "bine.hpp"

namespace commlab {

void gather_bine(const CollectiveJob& job) {
  Comm& comm = job.comm;
  const int P = comm.size(), me = comm.rank(), v = (me - job.root + P) % P;
  auto rank_of = [&](int u) { return (u + job.root) % P; };
  const Partition parts = job.parts();
  const BinePacked packed(parts, job.root, job.esize());
  const BineTree& tree = packed.tree;

  // Where this rank collects its subtree's parts, its own first (the root's
  // goes straight to its place). A leaf sends its input as it is.
  const char* mine = static_cast<const char*>(job.in);
  if (v == 0 && job.in_place()) mine += parts.offset(me) * job.esize();
  const size_t own = parts.size(me) * job.esize();
  char* held = const_cast<char*>(mine);
  if (tree.span[v] > 1) {
    held = static_cast<char*>(job.mem.scratch(packed.subtree_B(v)));
    if (own && v != 0) job.mem.copy(held, mine, own);
  }
  const int L = tree.steps;
  for (int t = L - 1; t > tree.got[v]; --t)
    if (const int c = tree.child(v, t); c >= 0)
      comm.recv(rank_of(c), held + (packed.start_B(c) - packed.start_B(v)), packed.subtree_B(c),
                {L - 1 - t});
  if (v != 0) {
    comm.send(rank_of(tree.parent(v)), held, packed.subtree_B(v), {L - 1 - tree.got[v]});
    return;
  }
  // The root: from preorder into rank order; its own part from its input
  // (in place, it is there already).
  auto* out = static_cast<char*>(job.out);
  if (own && !job.in_place()) job.mem.copy(out + parts.offset(me) * job.esize(), mine, own);
  for (int i = 1; i < P; ++i)
    if (const size_t n = packed.entry_B(i))
      job.mem.copy(out + parts.offset(rank_of(tree.preorder[i])) * job.esize(),
                   held + packed.at_B[i], n);
}

Traffic model_gather_bine(int P, size_t count, size_t esize, int root) {
  const BinePacked packed({count, P}, root, esize);
  const BineTree& tree = packed.tree;
  Tally t(P);
  for (int v = 1; v < P; ++v)
    t.message(tree.steps - 1 - tree.got[v], (v + root) % P, (tree.parent(v) + root) % P,
              packed.subtree_B(v));
  return t.traffic();
}

// Its entry in the gather operation's list (collectives/gather.def).
CollectiveAlgorithm gather_bine_algorithm() {
  CollectiveAlgorithm a{"bine", gather_bine, sized<model_gather_bine>};
  // Bine moves the binomial tree's bytes over other links, and no MPI
  // library we build against runs it: a library row is not named for it.
  a.not_in_libraries = true;
  return a;
}

}  // namespace commlab
