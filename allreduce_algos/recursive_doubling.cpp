// Recursive-doubling all-reduce: the latency-optimal one, for short buffers
// (Thakur, Rabenseifner and Gropp 2005, section 4.1; MPICH uses it below
// 2 KiB). In step k every rank swaps its whole buffer with the rank whose
// number differs in bit k and folds what it gets into its own, so after
// log2 P steps every rank holds the reduction of all. P = 4, ranks holding
// a, b, c, d:
//
//            rank 0      rank 1      rank 2      rank 3
//   k = 0    a+b  (1)    a+b  (0)    c+d  (3)    c+d  (2)     partner in ()
//   k = 1    a+b+c+d (2) a+b+c+d (3) a+b+c+d (0) a+b+c+d (1)
//
// log2 P steps, each moving the whole buffer: every rank sends log2(P) x N,
// against the ring's 2(P-1)/P x N in 2(P-1) steps, so it wins where the
// per-message latency outweighs the bytes. A P that is not a power of two
// is folded first (fold.cpp: 2 steps and 2 x extra x N bytes more). Counts
// below P change nothing: every message is the whole buffer.
#include <cmath>
#include <utility>

#include "collectives/algorithm.hpp"

namespace commlab {

namespace {

void allreduce_recursive_doubling(const CollectiveJob& job) {
  const PowerOfTwoFold fold(job.comm.size());
  char* data = allreduce_buffer(job);
  const size_t bytes = job.count * job.esize();
  fold.fold_in(job, data, bytes);
  const int v = fold.virtual_rank(job.comm.rank());
  int step = fold.first_step();
  // Each step sends this rank's buffer and reduces it with the partner's
  // into the other of two (data and scratch, in turn): no buffer is written
  // while the partner may still read it, so over direct access the partner's
  // bytes are reduced straight from its memory, one pass a step.
  char* mine = data;
  char* other = static_cast<char*>(job.mem.scratch(bytes));
  job.comm.begin_phase(Phase::exchange);
  for (int bit = 1; bit < fold.p2; bit *= 2, ++step) {
    if (v < 0) continue;  // folded away: waits for the result
    const int partner = fold.real_rank(v ^ bit);
    job.comm.watch(mine, bytes);  // --steps: the buffer that holds the last step's sum
    job.comm.sendrecv_reduce_to(partner, mine, bytes, partner, other, mine, bytes, job.red, {step});
    std::swap(mine, other);
  }
  if (mine != data) job.mem.copy(data, mine, bytes);
  job.comm.watch(data, bytes);
  fold.fold_out(job, data, bytes, step);
}

Traffic model_allreduce_recursive_doubling(int P, size_t count, size_t esize, int) {
  const PowerOfTwoFold fold(P);
  const uint64_t bytes = count * esize;
  Tally t(P);
  fold.tally_in(t, bytes);
  int step = fold.first_step();
  for (int bit = 1; bit < fold.p2; bit *= 2, ++step)
    for (int v = 0; v < fold.p2; ++v)
      t.message(step, fold.real_rank(v), fold.real_rank(v ^ bit), bytes, Arrival::reduced);
  fold.tally_out(t, bytes, step);
  return t.traffic();
}

// At any scale: the fold's step in and step out (ranks past the power of
// two hand N to a partner and take the result back), and log2 p2 steps in
// which every virtual rank swaps N with the one a bit away and reduces it.
ScaledTraffic scaled_allreduce_recursive_doubling(int P, double N, int ranks_per_node) {
  const PowerOfTwoFold fold(P);
  StepPorts ports(P, ranks_per_node);
  const double folds = fold.extra ? 2 : 0;  // the step in, and the same back out
  double crossing = folds * double(fold.fold_ports(ports)), exchanges = 0;
  for (int bit = 1; bit < fold.p2; bit *= 2, ++exchanges)
    crossing += double(fold.exchange_ports(ports, bit));
  return {folds + exchanges, crossing * N, (exchanges + (fold.extra ? 1 : 0)) * N};
}

}  // namespace

// The textbook's T: what the busiest rank sends, for a power of two.
CollectiveAlgorithm allreduce_recursive_doubling_algorithm() {
  CollectiveAlgorithm a{"recursive_doubling", allreduce_recursive_doubling,
                        sized<model_allreduce_recursive_doubling>};
  a.taught_formula = "log2(P)*N";
  a.taught_T = [](int P, double N) { return std::log2(P) * N; };
  a.at_scale = scaled_allreduce_recursive_doubling;
  return a;
}

}  // namespace commlab
