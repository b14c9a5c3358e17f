// Bine-tree scatter (De Sensi et al., SC 2025): bcast_bine's tree and steps,
// each message carrying only the parts of the subtree it reaches. Ranks are
// counted from the root, v = (r - root) mod P.
//
//   step t = 0 .. L-1 (L = ceil(log2 P)): every rank holding parts sends its
//   child of step t (bine.hpp: Swing's partners, the far one first) the
//   parts of that child's subtree.
//
// A Bine subtree is not a run of consecutive ranks, as a binomial one is, so
// the root first packs the parts in the tree's preorder (bine.hpp), where
// every subtree's parts sit side by side, its own first. P = 8:
//
//   preorder      0  3  4  5  2  7  6  1
//   step 0   0 -> 3: parts 3 4 5 2
//   step 1   0 -> 7: parts 7 6          3 -> 4: parts 4 5
//   step 2   0 -> 1: 1   3 -> 2: 2   7 -> 6: 6   4 -> 5: 5
//
// The binomial scatter's steps and bytes: the root sends (P-1)/P N, half
// of it in the first step. On a ring of 8 nodes its messages cross fewer
// links: 2.5N of hop-bytes against the binomial's 3.5N (0 -> 4 carries N/2
// over 4 links), the busiest link 7N/8 in both. For P < 2^L the tree drops
// leaves (bine.hpp); a rank whose part is empty (count < P) still gets its
// message, of no bytes, as in the binomial scatter.
#include "algorithms.hpp"
#include "bine.hpp"

namespace commlab {

void scatter_bine(const CollectiveJob& job) {
  Comm& comm = job.comm;
  const int P = comm.size(), me = comm.rank(), v = (me - job.root + P) % P;
  auto rank_of = [&](int u) { return (u + job.root) % P; };
  const Partition parts = job.parts();
  const BinePacked packed(parts, job.root, job.esize());
  const BineTree& tree = packed.tree;

  // What this rank holds: its subtree's parts in preorder, its own first.
  const char* held;
  if (v == 0) {
    char* into = static_cast<char*>(job.mem.scratch(packed.subtree_B(0)));
    const auto* in = static_cast<const char*>(job.in);
    for (int i = 0; i < P; ++i)
      if (const size_t n = packed.entry_B(i))
        job.mem.copy(into + packed.at_B[i],
                     in + parts.offset(rank_of(tree.preorder[i])) * job.esize(), n);
    held = into;
  } else {
    // A leaf receives straight into its result; an inner rank keeps the rest to pass on.
    const size_t n = packed.subtree_B(v);
    char* into =
        tree.span[v] == 1 ? static_cast<char*>(job.out) : static_cast<char*>(job.mem.scratch(n));
    comm.recv(rank_of(tree.parent(v)), into, n, {tree.got[v]});
    held = into;
  }
  for (int s = tree.got[v] + 1; s < tree.steps; ++s)
    if (const int c = tree.child(v, s); c >= 0)
      comm.send(rank_of(c), held + (packed.start_B(c) - packed.start_B(v)), packed.subtree_B(c),
                {s});

  const bool root_in_place = v == 0 && job.in_place();
  const size_t own = parts.size(me) * job.esize();
  if (held != job.out && !root_in_place && own) job.mem.copy(job.out, held, own);
}

Traffic model_scatter_bine(int P, size_t count, size_t esize, int root) {
  const BinePacked packed({count, P}, root, esize);
  const BineTree& tree = packed.tree;
  Tally t(P);
  for (int v = 1; v < P; ++v)
    t.message(tree.got[v], (tree.parent(v) + root) % P, (v + root) % P, packed.subtree_B(v));
  return t.traffic();
}

// Its entry in the scatter operation's list (collectives/scatter.def).
CollectiveAlgorithm scatter_bine_algorithm() {
  CollectiveAlgorithm a{"bine", scatter_bine, sized<model_scatter_bine>};
  // Bine moves the binomial tree's bytes over other links, and no MPI
  // library we build against runs it: a library row is not named for it.
  a.not_in_libraries = true;
  return a;
}

}  // namespace commlab
