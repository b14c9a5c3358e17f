// The time model: a run's time from its schedule, step by step. It is the
// alpha-beta(-gamma) model of Hockney and of Thakur, Rabenseifner and Gropp
// 2005, with its figures measured per message size as in Kielmann et al.'s
// parameterised LogP (2000): a message's cost is read off a curve measured
// on this machine, not a line through two points, so that a protocol switch
// (an eager limit) or a buffer falling out of cache shows where it happens.
//
// For each step, with the busiest rank's figures (Traffic::path):
//
//   msgs x exchange(port bytes / msgs)          sending and receiving
//   + reduces x reduce(reduced bytes / reduces)   reductions before the step ends
//   + (1 - overlap) x in_flight x reduce(...)     those done while the next
//                                                 message is on the wire
//   + exchange(0), where it reads peers' memory   one fence
//     + reads x (exchange(m) - exchange(0))       copies without handshakes
//     + read_reduces x reduce(m)                  reduced straight from there
//
// summed over the steps. exchange(m): the time for every rank to swap m
// bytes with its neighbours at once (alpha = exchange(0); beta its slope);
// reduce(m): to reduce m bytes (gamma, its slope); overlap: the share of a
// pipelined reduction that this machine really hides behind a transfer.
// -a auto runs the algorithm this predicts fastest; the segmented ring cuts
// its chunks where it predicts the least time.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "comm.hpp"
#include "reduce.hpp"
#include "traffic.hpp"

namespace commlab {

// Microseconds against bytes, measured at a few sizes; linear between them
// and beyond the last along the last piece's slope.
struct Curve {
  std::vector<double> bytes, us;
  double at(double b) const;
};

struct CostModel {
  Curve exchange, reduce;
  double overlap = 0;  // 0: a pipelined reduction hides nothing; 1: all but the last
  std::string source;  // where the figures come from, for the table's header

  double step_us(const StepLoad& s) const;
  double predict_us(const Traffic& t) const;
};

// Measures the model on this machine, the same on every rank (collective,
// tens of milliseconds): every rank sends m bytes to its right and receives
// as many from its left at once (a ring's step, with every rank busy, as in
// the algorithms) for m = 0 and 8 B .. 8 MiB; every rank reduces m bytes of
// `red`; the ring shifts and reduces 1 MiB in 16 pieces, pipelined and one
// after the other: the time saved over the reductions that could hide is
// the overlap (red null: neither, for operations that do not reduce).
// Rank 0's median times, shared by all. Counts on `comm` are reset.
// The scratch probe_cost() takes from the comm's memory: three buffers of its largest message.
constexpr size_t kProbeScratch_B = size_t{24} << 20;
CostModel probe_cost(Comm& comm, const Reduction* red);

// For tests only: COMMLAB_PROBE_SCALE="A,B,G[,O]" changes what the probe
// measured: the fixed cost of an exchange (alpha) times A, its cost per byte
// (beta) times B, the reduction's curve (gamma) times G, and the overlap set
// to O (0 to 1); one number scales the three curves. A test whose outcome
// moves under it depends on how fast the machine is (make check runs the
// suite at 0.5,2,0.5,0 and 2,0.5,2,1). Unset: the probe's figures.
struct ProbeScale {
  double alpha = 1, beta = 1, gamma = 1;
  std::optional<double> overlap;
};
// The variable's value, or UsageError in one line where it is malformed.
ProbeScale probe_scale_from_env();
void scale(CostModel& m, const ProbeScale& s);

// The textbook's model with its two figures given: alpha per message,
// bandwidth 1/beta, reductions free (the lab asks students to work it by hand).
CostModel alpha_beta(double alpha_us, double GBps);

// "alpha 0.31 us, beta 1/7.9 GB/s (1 MiB), gamma 1/21 GB/s (1 MiB), overlap 0.00 (probe)"
std::string describe(const CostModel& m);

}  // namespace commlab
