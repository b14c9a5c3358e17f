// Bine all-gather (De Sensi et al., SC 2025): the all-gather half of Swing's
// bandwidth-optimal all-reduce (allreduce_algos/swing_bandwidth.cpp), alone.
// In step s rank r swaps all it holds with r + rho(s) (r even) or r - rho(s)
// (r odd), mod P, rho(s) = 1, -1, 3, -5, 11, ..., the steps from the last to
// the first: what a rank holds doubles each step, and the largest messages
// go to the nearest partners, where recursive doubling sends them to the
// farthest (P/2). On a ring or torus of nodes that is the saving; on one
// switch the bytes and steps are recursive doubling's.
//
// What a rank holds after a step is a run of the butterfly's positions
// (butterfly.hpp), not of rank numbers: the parts are laid out in position
// order in scratch, swapped there, and copied to rank order at the end
// (a local copy of N). P = 8 (positions: ranks 0 3 7 4 1 6 2 5), what rank
// 0 swaps:
//
//   step  s  rho(s)  partner  sends parts  gets parts  hops on a ring of 8
//   0     2   3      3        0            3           3
//   1     1  -1      7        0 3          7 4         1
//   2     0   1      1        0 3 7 4      1 6 2 5     1
//
// Every rank sends N/8, N/4, N/2 (7/8 N, as in every all-gather): 9/8 N of
// hop-bytes a rank on the ring of 8, where recursive doubling's partners at
// 1, 2 and 4 hops make 21/8 N (tests/models_test.cpp works the links).
//
// P not a power of two: the fold of the all-reduce (fold.cpp), for parts:
// rank 2i sends its part to rank 2i+1, which stands for both (its block is
// the two parts); the p2 virtual ranks run the butterfly; rank 2i+1 sends
// the whole result back to rank 2i. Two steps, and the folded parts and N
// for each pair, more than a power of two. With count < P some parts are
// empty and travel as zero-byte messages.
#include "algorithms.hpp"
#include "butterfly.hpp"

namespace commlab {

void allgather_bine(const CollectiveJob& job) {
  Comm& comm = job.comm;
  const int me = comm.rank();
  const Butterfly& b = Butterfly::of(comm.size(), swing_partner);
  const Partition parts = job.parts();
  const size_t es = job.esize(), all_B = job.count * es, mine_B = parts.size(me) * es;
  const PositionedParts laid(b, parts, es);
  auto* out = static_cast<char*>(job.out);
  char* work = static_cast<char*>(job.mem.scratch(all_B));
  const char* mine =
      job.in_place() ? out + parts.offset(me) * es : static_cast<const char*>(job.in);
  if (mine_B) job.mem.copy(work + laid.part_B[size_t(me)], mine, mine_B);
  const PowerOfTwoFold& fold = b.fold;
  if (me < 2 * fold.extra) {
    comm.begin_phase(Phase::fold);
    if (me % 2 == 0)
      comm.send(me + 1, mine, mine_B, {0, me});
    else
      comm.recv(me - 1, work + laid.part_B[size_t(me - 1)], parts.size(me - 1) * es, {0, me - 1});
  }
  const int v = fold.virtual_rank(me), p = v < 0 ? 0 : b.position[v];
  int step = fold.first_step();
  Block held{p, p + 1};
  comm.watch(work, all_B);  // --show --steps: the parts in position order
  comm.begin_phase(Phase::all_gather);
  for (int s = b.steps - 1; s >= 0; --s, ++step) {
    if (v < 0) continue;  // folded away: waits for the result
    const int partner = fold.real_rank(b.partner(v, s)), d = b.fold.p2 >> (s + 1);
    const Block theirs = partners(held, p, d);
    comm.sendrecv(partner, work + laid.at_B[size_t(held.lo)], laid.bytes(held), partner,
                  work + laid.at_B[size_t(theirs.lo)], laid.bytes(theirs),
                  {step, held.lo, held.hi - 1});
    held = joined(held, theirs);
  }
  if (v >= 0)
    for (int r = 0; r < comm.size(); ++r)
      if (parts.size(r) && !(r == me && job.in_place()))
        job.mem.copy(out + parts.offset(r) * es, work + laid.part_B[size_t(r)], parts.size(r) * es);
  if (me < 2 * fold.extra) {
    comm.begin_phase(Phase::fold);
    if (me % 2)
      comm.send(me - 1, out, all_B, {step});
    else
      comm.recv(me + 1, out, all_B, {step});
  }
  comm.watch(out, all_B);
}

Traffic model_allgather_bine(int P, size_t count, size_t esize, int) {
  const Butterfly b(P, swing_partner);
  const Partition parts{count, P};
  const PositionedParts laid(b, parts, esize);
  const PowerOfTwoFold& fold = b.fold;
  Tally t(P);
  for (int i = 0; i < fold.extra; ++i) t.message(0, 2 * i, 2 * i + 1, parts.size(2 * i) * esize);
  std::vector<Block> held;
  for (int v = 0; v < fold.p2; ++v) held.push_back({b.position[v], b.position[v] + 1});
  int step = fold.first_step();
  for (int s = b.steps - 1; s >= 0; --s, ++step) {
    const int d = fold.p2 >> (s + 1);
    for (int v = 0; v < fold.p2; ++v)
      t.message(step, fold.real_rank(v), fold.real_rank(b.partner(v, s)), laid.bytes(held[v]));
    for (int v = 0; v < fold.p2; ++v)
      held[v] = joined(held[v], partners(held[v], b.position[v], d));
  }
  fold.tally_out(t, count * esize, step);
  return t.traffic();
}

// Its entry in the allgather operation's list (collectives/allgather.def).
CollectiveAlgorithm allgather_bine_algorithm() {
  CollectiveAlgorithm a{"bine", allgather_bine, sized<model_allgather_bine>};
  // Open MPI 4.1 and MPICH 4.0 have no Bine: a library row is not named for it.
  a.not_in_libraries = true;
  return a;
}

}  // namespace commlab
