// Bine-tree broadcast (De Sensi et al., SC 2025): bcast_binomial's steps with
// Swing's partners (bine.hpp, the halving order: the far partner first).
// Ranks are counted from the root: v = (r - root) mod P, at positions of a
// ring of p2 = 2^ceil(log2 P), L = log2 p2 steps.
//
//   step t = 0, 1, ...: every position q holding the data sends it to
//   q + rho(L-1-t) if q is even, q - rho(L-1-t) if odd (mod p2),
//   rho(s) = 1, -1, 3, -5, 11, ..., so the last step goes |rho(0)| = 1.
//
// P = 8 (positions are ranks; rho(2), rho(1), rho(0) = 3, -1, 1):
//
//   step 0   0 -> 3
//   step 1   0 -> 7   3 -> 4
//   step 2   0 -> 1   3 -> 2   7 -> 6   4 -> 5
//
// Every rank receives once; the root sends in every step. It is
// reduce_bine's tree, whose step k is this one's step L-1-k run backwards.
// The binomial tree's last step sends 0 -> 4, 1 -> 5, 2 -> 6, 3 -> 7, 4
// positions each; this one's last step sends its P/2 messages 1 position
// each (even positions one way round, odd the other), and the far messages
// are its first steps' few: step t sends 2^t, |rho(L-1-t)| positions each.
// Near first (the doubling order: 0 -> 1; 0 -> 7, 1 -> 2; 0 -> 3, 7 -> 4,
// 1 -> 6, 2 -> 5) would send the P/2 messages of the last step |rho(L-1)|
// positions each: on a ring of 64 nodes at P = 64, 24N on the busiest link
// against 6N.
//
// P = 6: positions 5 and 6, leaves of the last step, are dropped, and rank
// 5 sits at position 7:
//
//   step 0   0 -> 3
//   step 1   0 -> 5   3 -> 4
//   step 2   0 -> 1   3 -> 2
//
// The binomial tree's bytes, messages and ceil(log2 P) steps, along shorter
// paths round a ring or torus of nodes.
#include "algorithms.hpp"
#include "bine.hpp"

namespace commlab {

void bcast_bine(const CollectiveJob& job) {
  Comm& comm = job.comm;
  const int P = comm.size(), v = (comm.rank() - job.root + P) % P;
  auto rank_of = [&](int u) { return (u + job.root) % P; };
  const size_t bytes = job.count * job.esize();
  const BineTree& tree = BineTree::of(P, BineOrder::halving);
  if (v != 0) comm.recv(rank_of(tree.parent(v)), job.out, bytes, {tree.got[v]});
  for (int s = tree.got[v] + 1; s < tree.steps; ++s)
    if (const int child = tree.child(v, s); child >= 0)
      comm.send(rank_of(child), job.out, bytes, {s});
}

void tally_bcast_bine(Tally& t, int P, size_t count, size_t esize, int root, int first_step) {
  const BineTree& tree = BineTree::of(P, BineOrder::halving);
  for (int v = 1; v < P; ++v)
    t.message(first_step + tree.got[v], (tree.parent(v) + root) % P, (v + root) % P, count * esize);
}

Traffic model_bcast_bine(int P, size_t count, size_t esize, int root) {
  Tally t(P);
  tally_bcast_bine(t, P, count, esize, root, 0);
  return t.traffic();
}

// Its entry in the bcast operation's list (collectives/bcast.def).
CollectiveAlgorithm bcast_bine_algorithm() {
  CollectiveAlgorithm a{"bine", bcast_bine, sized<model_bcast_bine>};
  // Bine moves the binomial tree's bytes over other links, and no MPI
  // library we build against runs it: a library row is not named for it.
  a.not_in_libraries = true;
  return a;
}

}  // namespace commlab
