// Bine-tree reduce (De Sensi et al., SC 2025): reduce_binomial's steps with
// Swing's partners. Ranks are counted from the root: v = (r - root) mod P, at
// positions of a ring of p2 = 2^ceil(log2 P). It is bcast_bine's tree
// (bine.hpp's halving order) run backwards, the one mirrored in the other:
//
//   step k = 0, 1, ...: every position t that the broadcast reached in its
//   step L-1-k (L = log2 p2) sends its partial result back where it came
//   from, t + rho(k) if t is even, t - rho(k) if odd (mod p2), and is done;
//   that position adds it into its own.
//
// The binomial reduce's step k goes 2^k ranks (v -> v - 2^k); this one's
// |rho(k)| = 1, 1, 3, 5, 11, ... P = 8 (positions are ranks):
//
//   step 0   1 -> 0   2 -> 3   6 -> 7   5 -> 4
//   step 1   7 -> 0   4 -> 3
//   step 2   3 -> 0
//
// P = 6: positions 5 and 6, which send in step 0, are dropped, and rank 5
// sits at position 7:
//
//   step 0   1 -> 0   2 -> 3
//   step 1   5 -> 0   4 -> 3
//   step 2   3 -> 0
//
// ceil(log2 P) steps; the root receives once per step. (The doubling
// order's tree run backwards would send P/2 messages |rho(L-1)| ranks in
// its first step, more far traffic than the binomial reduce.) Partial sums
// are added in another order than the binomial tree's: every op here is
// commutative, and the fill patterns are exact in any order
// (operations/pattern.hpp).
#include "algorithms.hpp"
#include "bine.hpp"

namespace commlab {

void reduce_bine(const CollectiveJob& job) {
  Comm& comm = job.comm;
  const int P = comm.size(), me = comm.rank(), v = (me - job.root + P) % P;
  auto rank_of = [&](int u) { return (u + job.root) % P; };
  const size_t bytes = job.count * job.esize();
  const BineTree& tree = BineTree::of(P, BineOrder::halving);
  // The root adds into its result; the others into scratch: MPI leaves their input untouched.
  char* room = static_cast<char*>(job.mem.scratch(2 * bytes));
  char* acc = me == job.root ? static_cast<char*>(job.out) : room + bytes;
  if (acc != job.in && bytes) job.mem.copy(acc, job.in, bytes);
  comm.watch(acc, bytes);  // --show --steps: each rank's partial sum

  // The broadcast's steps backwards: its step t is step L-1-t here. First
  // the children, the last broadcast step's first; then up to the parent.
  const int L = tree.steps;
  for (int t = L - 1; t > tree.got[v]; --t)
    if (const int child = tree.child(v, t); child >= 0)
      comm.recv_reduce(rank_of(child), room, acc, bytes, job.red, {L - 1 - t});
  if (v != 0) comm.send(rank_of(tree.parent(v)), acc, bytes, {L - 1 - tree.got[v]});
}

void tally_reduce_bine(Tally& t, int P, size_t count, size_t esize, int root, int first_step) {
  const BineTree& tree = BineTree::of(P, BineOrder::halving);
  for (int v = 1; v < P; ++v)
    t.message(first_step + tree.steps - 1 - tree.got[v], (v + root) % P,
              (tree.parent(v) + root) % P, count * esize, Arrival::reduced);
}

Traffic model_reduce_bine(int P, size_t count, size_t esize, int root) {
  Tally t(P);
  tally_reduce_bine(t, P, count, esize, root, 0);
  return t.traffic();
}

// Its entry in the reduce operation's list (collectives/reduce.def).
CollectiveAlgorithm reduce_bine_algorithm() {
  CollectiveAlgorithm a{"bine", reduce_bine, sized<model_reduce_bine>};
  // Bine moves the binomial reduce's bytes over other links, and no MPI
  // library we build against runs it: a library row is not named for it.
  a.not_in_libraries = true;
  return a;
}

}  // namespace commlab
