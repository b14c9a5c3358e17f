// Rabenseifner's all-reduce: a reduce-scatter by recursive halving, then an
// all-gather by recursive doubling (Thakur, Rabenseifner and Gropp 2005,
// section 4.4; MPICH's choice for long buffers). The buffer is cut into P
// chunks. Halving: in each step a rank swaps half of the chunks it still
// works on with the rank whose number differs in one bit, from the highest
// bit down, keeps the half its bit says and folds the partner's copy of it
// into its own. Doubling: the same partners in reverse order swap the
// finished blocks, which double each step. P = 4 (chunks 0..3; * = reduced
// over every rank):
//
//   step  rank 0          rank 1          rank 2          rank 3
//   0     keeps 0,1 (2)   keeps 0,1 (3)   keeps 2,3 (0)   keeps 2,3 (1)   partner in ()
//   1     keeps 0 (1)     keeps 1 (0)     keeps 2 (3)     keeps 3 (2)
//         0*              1*              2*              3*
//   2     0*,1* (1)       0*,1* (0)       2*,3* (3)       2*,3* (2)
//   3     all (2)         all (3)         all (0)         all (1)
//
// 2 log2 P steps, and every rank sends 2(P-1)/P x N, as the ring does, in
// far fewer steps. A P that is not a power of two is folded first
// (fold.cpp: 2 steps and 2 x extra x N bytes more); chunks are cut among the
// p2 ranks left. With count < P some chunks are empty: the blocks holding
// only them travel as zero-byte messages.
#include "collectives/algorithm.hpp"

namespace commlab {

namespace {

struct Block {  // chunks [lo, hi)
  int lo, hi;
};
// Halving step with bit d (d = p2/2, ..., 1): virtual rank v keeps one half of
// `held` and sends the other.
Block kept(Block held, int v, int d) {
  const int mid = held.lo + (held.hi - held.lo) / 2;
  return v & d ? Block{mid, held.hi} : Block{held.lo, mid};
}
Block given(Block held, int v, int d) {
  const int mid = held.lo + (held.hi - held.lo) / 2;
  return v & d ? Block{held.lo, mid} : Block{mid, held.hi};
}
// Doubling step with bit d (d = 1, ..., p2/2): v's block and its partner's.
Block partners(Block mine, int v, int d) {
  const int n = mine.hi - mine.lo;
  return v & d ? Block{mine.lo - n, mine.lo} : Block{mine.hi, mine.hi + n};
}
Block joined(Block a, Block b) { return {std::min(a.lo, b.lo), std::max(a.hi, b.hi)}; }

void allreduce_rabenseifner(const CollectiveJob& job) {
  const PowerOfTwoFold fold(job.comm.size());
  char* data = allreduce_buffer(job);
  const size_t es = job.esize();
  fold.fold_in(job, data, job.count * es);
  const int v = fold.virtual_rank(job.comm.rank());
  const Chunks chunks{data, {job.count, fold.p2}, es};
  auto at = [&](Block b) { return chunks.at(b.lo); };
  auto bytes = [&](Block b) {
    return (chunks.parts.offset(b.hi) - chunks.parts.offset(b.lo)) * es;
  };
  int step = fold.first_step();
  Block held{0, fold.p2};
  void* incoming = job.mem.scratch(job.count * es);
  job.comm.begin_phase(Phase::reduce_scatter);
  for (int d = fold.p2 / 2; d >= 1; d /= 2, ++step) {
    if (v < 0) continue;
    const int partner = fold.real_rank(v ^ d);
    const Block keep = kept(held, v, d), give = given(held, v, d);
    job.comm.sendrecv_reduce(partner, at(give), bytes(give), partner, incoming, at(keep),
                             bytes(keep), job.red, {step, give.lo, give.hi - 1});
    held = keep;
  }
  job.comm.begin_phase(Phase::all_gather);
  for (int d = 1; d < fold.p2; d *= 2, ++step) {
    if (v < 0) continue;
    const int partner = fold.real_rank(v ^ d);
    const Block theirs = partners(held, v, d);
    job.comm.sendrecv(partner, at(held), bytes(held), partner, at(theirs), bytes(theirs),
                      {step, held.lo, held.hi - 1});
    held = joined(held, theirs);
  }
  fold.fold_out(job, data, job.count * es, step);
}

Traffic model_allreduce_rabenseifner(int P, size_t count, size_t esize, int) {
  const PowerOfTwoFold fold(P);
  const Partition parts{count, fold.p2};
  auto bytes = [&](Block b) { return (parts.offset(b.hi) - parts.offset(b.lo)) * esize; };
  Tally t(P);
  fold.tally_in(t, count * esize);
  std::vector<Block> held(fold.p2, Block{0, fold.p2});
  int step = fold.first_step();
  for (int d = fold.p2 / 2; d >= 1; d /= 2, ++step)
    for (int v = 0; v < fold.p2; ++v) {
      t.message(step, fold.real_rank(v), fold.real_rank(v ^ d), bytes(given(held[v], v, d)),
                Arrival::reduced);
      held[v] = kept(held[v], v, d);
    }
  for (int d = 1; d < fold.p2; d *= 2, ++step) {
    for (int v = 0; v < fold.p2; ++v)
      t.message(step, fold.real_rank(v), fold.real_rank(v ^ d), bytes(held[v]));
    for (int v = 0; v < fold.p2; ++v) held[v] = joined(held[v], partners(held[v], v, d));
  }
  fold.tally_out(t, count * esize, step);
  return t.traffic();
}

// At any scale, chunks of N/p2: the fold's step in and out (as recursive
// doubling's), then for each bit d one halving step and one doubling step
// between the same partners, each message d chunks; the halving reduces
// (p2-1)/p2 x N on every rank, plus N on the ranks that took a fold.
ScaledTraffic scaled_allreduce_rabenseifner(int P, double N, int ranks_per_node) {
  const PowerOfTwoFold fold(P);
  StepPorts ports(P, ranks_per_node);
  double steps = fold.extra ? 2 : 0;  // the fold's step in, and the same back out
  double crossing_B = steps * double(fold.fold_ports(ports)) * N;
  for (int d = 1; d < fold.p2; d *= 2, steps += 2)
    crossing_B += 2 * double(fold.exchange_ports(ports, d)) * d * N / fold.p2;
  return {steps, crossing_B, (fold.extra ? N : 0) + (fold.p2 - 1) * N / fold.p2};
}

}  // namespace

// The textbook's T: what every rank sends, for a power of two (the ring's).
CollectiveAlgorithm allreduce_rabenseifner_algorithm() {
  CollectiveAlgorithm a{"rabenseifner", allreduce_rabenseifner,
                        sized<model_allreduce_rabenseifner>};
  a.taught_formula = "2*(N/P)*(P-1)";
  a.taught_T = [](int P, double N) { return 2 * (N / P) * (P - 1); };
  a.at_scale = scaled_allreduce_rabenseifner;
  return a;
}

}  // namespace commlab
