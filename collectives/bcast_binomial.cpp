// Binomial-tree broadcast. Ranks are counted from the root: v = (r - root) mod P.
//
//   round k = 0, 1, ... (d = 2^k): every rank that has the data (v < d)
//   sends it to v + d, if there is such a rank.
//
// The ranks holding the data double every round: ceil(log2 P) rounds instead
// of P-1. The root sends in every round; every other rank receives once.
#include "algorithms.hpp"

namespace commlab {

void bcast_binomial(const CollectiveJob& job) {
  Comm& comm = job.comm;
  const int P = comm.size(), v = (comm.rank() - job.root + P) % P;
  auto rank_of = [&](int u) { return (u + job.root) % P; };
  const size_t bytes = job.count * job.esize();
  for (int k = 0, d = 1; d < P; ++k, d *= 2) {
    if (v < d && v + d < P) comm.send(rank_of(v + d), job.out, bytes, {k});
    if (v >= d && v < 2 * d) comm.recv(rank_of(v - d), job.out, bytes, {k});
  }
}

void tally_bcast_binomial(Tally& t, int P, size_t count, size_t esize, int root, int first_step) {
  for (int k = 0, d = 1; d < P; ++k, d *= 2)
    for (int v = 0; v < d && v + d < P; ++v)
      t.message(first_step + k, (v + root) % P, (v + d + root) % P, count * esize);
}

Traffic model_bcast_binomial(int P, size_t count, size_t esize, int root) {
  Tally t(P);
  tally_bcast_binomial(t, P, count, esize, root, 0);
  return t.traffic();
}

// Its entry in the bcast operation's list (collectives/bcast.def).
CollectiveAlgorithm bcast_binomial_algorithm() {
  return {"binomial", bcast_binomial, sized<model_bcast_binomial>};
}

}  // namespace commlab
