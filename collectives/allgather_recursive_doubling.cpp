// Recursive-doubling all-gather, for P a power of two: in round k each rank
// swaps everything it has with the rank whose number differs in bit k, so what
// every rank holds doubles each round.
//
//   round k = 0 .. log2(P)-1 (d = 2^k):
//     rank r holds the parts of its group of d ranks (r with the low k bits
//     cleared, and the d-1 after it); it sends them to r XOR d and receives
//     that rank's group.
//
// log2 P steps instead of the ring's P-1, the same bytes per rank. For any
// other P the exchange has no partner, so it falls back to Bruck's algorithm
// (allgather_bruck.cpp), which needs no power of two.
#include <cstring>
#include <string>

#include "algorithms.hpp"

namespace commlab {

namespace {}  // namespace

void allgather_recursive_doubling(const CollectiveJob& job) {
  Comm& comm = job.comm;
  const int P = comm.size(), me = comm.rank();
  if (!power_of_two(P)) return allgather_bruck(job);
  const Partition parts = job.parts();
  const size_t es = job.esize();
  auto* out = static_cast<char*>(job.out);
  auto at = [&](int rank) { return out + parts.offset(rank) * es; };
  auto group_bytes = [&](int first, int d) {
    return (parts.offset(first + d) - parts.offset(first)) * es;
  };
  if (!job.in_place() && parts.size(me)) job.mem.copy(at(me), job.in, parts.size(me) * es);

  for (int k = 0, d = 1; d < P; ++k, d *= 2) {
    const int peer = me ^ d, mine = me & ~(d - 1), theirs = peer & ~(d - 1);
    comm.sendrecv(peer, at(mine), group_bytes(mine, d), peer, at(theirs), group_bytes(theirs, d),
                  {k, mine, std::min(mine + d, P) - 1});
  }
}

std::string remark_allgather_recursive_doubling(int P) {
  return power_of_two(P) ? "" : "P is not a power of two: ran Bruck's algorithm";
}

Traffic model_allgather_recursive_doubling(int P, size_t count, size_t esize, int root) {
  if (!power_of_two(P)) return model_allgather_bruck(P, count, esize, root);
  const Partition parts{count, P};
  Tally t(P);
  for (int k = 0, d = 1; d < P; ++k, d *= 2)
    for (int r = 0; r < P; ++r) {
      int mine = r & ~(d - 1);
      t.message(k, r, r ^ d, (parts.offset(mine + d) - parts.offset(mine)) * esize);
    }
  return t.traffic();
}

// Its entry in the allgather operation's list (collectives/allgather.def).
CollectiveAlgorithm allgather_recursive_doubling_algorithm() {
  return {"recursive_doubling", allgather_recursive_doubling,
          sized<model_allgather_recursive_doubling>, remark_allgather_recursive_doubling};
}

}  // namespace commlab
