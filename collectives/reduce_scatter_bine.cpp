// Bine reduce-scatter (De Sensi et al., SC 2025): the reduce-scatter half of
// Swing's bandwidth-optimal all-reduce (allreduce_algos/swing_bandwidth.cpp),
// alone. In step s rank r sends half of what it still reduces to r + rho(s)
// (r even) or r - rho(s) (r odd), mod P, rho(s) = 1, -1, 3, -5, 11, ..., and
// adds that partner's copy of the other half into its own: the largest
// messages (N/2, then N/4) go to the nearest partners, where the halving
// reduce-scatter sends them to the farthest (P/2). On a ring or torus of
// nodes that is the saving; on one switch the bytes and steps are the
// halving's.
//
// The half a rank keeps is a run of the butterfly's positions (butterfly.hpp),
// not of rank numbers: the input is laid out in position order in scratch (a
// local copy of N) and each rank ends with its own part there. The worked
// table is allgather_bine.cpp's, read from the last row up.
//
// P not a power of two: the fold of the all-reduce (fold.cpp): rank 2i sends
// its whole input to rank 2i+1, which adds it in and stands for both (its
// block is the two parts); the p2 virtual ranks run the butterfly; rank 2i+1
// sends rank 2i its part. Two steps, and N and a part for each pair, more
// than a power of two. With count < P some parts are empty and travel as
// zero-byte messages.
#include "algorithms.hpp"
#include "butterfly.hpp"

namespace commlab {

void reduce_scatter_bine(const CollectiveJob& job) {
  Comm& comm = job.comm;
  const int me = comm.rank();
  const Butterfly& b = Butterfly::of(comm.size(), swing_partner);
  const PowerOfTwoFold& fold = b.fold;
  const Partition parts = job.parts();
  const size_t es = job.esize(), all_B = job.count * es, mine_B = parts.size(me) * es;
  const PositionedParts laid(b, parts, es);
  char* work = static_cast<char*>(job.mem.scratch(2 * all_B));
  char* incoming = work + all_B;
  const char* in = static_cast<const char*>(job.in_place() ? job.out : job.in);
  for (int r = 0; r < comm.size(); ++r)
    if (parts.size(r))
      job.mem.copy(work + laid.part_B[size_t(r)], in + parts.offset(r) * es, parts.size(r) * es);
  comm.watch(work, all_B);  // --show --steps: the sums in position order
  if (me < 2 * fold.extra) {
    comm.begin_phase(Phase::fold);
    if (me % 2 == 0)
      comm.send(me + 1, work, all_B, {0});
    else
      comm.recv_reduce(me - 1, incoming, work, all_B, job.red, {0});
  }
  const int v = fold.virtual_rank(me), p = v < 0 ? 0 : b.position[v];
  int step = fold.first_step();
  Block held{0, fold.p2};
  comm.begin_phase(Phase::reduce_scatter);
  for (int s = 0; s < b.steps; ++s, ++step) {
    if (v < 0) continue;  // folded away: waits for its part
    const int partner = fold.real_rank(b.partner(v, s)), d = fold.p2 >> (s + 1);
    const Block keep = kept(held, p, d), give = given(held, p, d);
    comm.sendrecv_reduce(partner, work + laid.at_B[size_t(give.lo)], laid.bytes(give), partner,
                         incoming, work + laid.at_B[size_t(keep.lo)], laid.bytes(keep), job.red,
                         {step, give.lo, give.hi - 1});
    held = keep;
  }
  if (me < 2 * fold.extra) {
    comm.begin_phase(Phase::fold);
    if (me % 2)
      comm.send(me - 1, work + laid.part_B[size_t(me - 1)], parts.size(me - 1) * es,
                {step, me - 1});
    else
      comm.recv(me + 1, job.out, mine_B, {step, me});
  }
  if (v >= 0 && mine_B) job.mem.copy(job.out, work + laid.part_B[size_t(me)], mine_B);
}

Traffic model_reduce_scatter_bine(int P, size_t count, size_t esize, int) {
  const Butterfly b(P, swing_partner);
  const Partition parts{count, P};
  const PositionedParts laid(b, parts, esize);
  const PowerOfTwoFold& fold = b.fold;
  Tally t(P);
  fold.tally_in(t, count * esize);
  std::vector<Block> held(size_t(fold.p2), Block{0, fold.p2});
  int step = fold.first_step();
  for (int s = 0; s < b.steps; ++s, ++step)
    for (int v = 0, d = fold.p2 >> (s + 1); v < fold.p2; ++v) {
      t.message(step, fold.real_rank(v), fold.real_rank(b.partner(v, s)),
                laid.bytes(given(held[v], b.position[v], d)), Arrival::reduced);
      held[v] = kept(held[v], b.position[v], d);
    }
  for (int i = 0; i < fold.extra; ++i) t.message(step, 2 * i + 1, 2 * i, parts.size(2 * i) * esize);
  return t.traffic();
}

// Its entry in the reduce_scatter operation's list (collectives/reduce_scatter.def).
CollectiveAlgorithm reduce_scatter_bine_algorithm() {
  CollectiveAlgorithm a{"bine", reduce_scatter_bine, sized<model_reduce_scatter_bine>};
  // Open MPI 4.1 and MPICH 4.0 have no Bine: a library row is not named for it.
  a.not_in_libraries = true;
  return a;
}

}  // namespace commlab
