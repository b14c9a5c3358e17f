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
#include "core/device/reduce.hpp"
#include "traffic.hpp"

namespace commlab {

// Microseconds against bytes, measured at a few sizes; linear between them
// and beyond the last along the last piece's slope.
struct Curve {
  std::vector<double> bytes, us;
  double at(double b) const;
};

// Ranks sharing one GPU (over direct access): their copies and reductions
// share its memory, so what a call costs is every rank's bytes moved over the
// memory's bandwidth, plus a fixed cost per step (its signals and waits) and
// one per call (with the device's signals a call is one launch and one host
// wait: its device program), whichever rank is busiest: the GPU's model
// (docs/time-model.md).
struct SharedMemory {
  double step_us = 0;  // one step: signals, waits
  double GBps = 0;     // the memory's, bytes read + written (a copy's figure)
  double call_us = 0;  // one call apart from its steps: a launch and a host wait
};

// One node's memory load of a schedule (memory_load, below).
struct MemoryLoad {
  uint64_t rank_B = 0;  // each step's busiest rank's bytes, summed
  uint64_t node_B = 0;  // each step's bytes over every rank, summed
};

struct CostModel {
  Curve exchange, reduce;
  double overlap = 0;  // 0: a pipelined reduction hides nothing; 1: all but the last
  std::string source;  // where the figures come from, for the table's header
  // Set for ranks sharing one GPU: predictions are call_us + steps x step_us
  // + the model's memory bytes (memory_B) over GBps, not the port's curves.
  std::optional<SharedMemory> shared;
  // One node's memory, for ranks on host buffers (probe_copies): the us to
  // copy b bytes for one rank alone while the others wait, and for each rank
  // while every rank copies at once. Empty where not measured.
  Curve copy_alone, copy_together;

  double step_us(const StepLoad& s) const;
  double predict_us(const Traffic& t) const;
  // Every rank copying `bytes` of its own at once (a private buffer into
  // registered memory): on a shared GPU P such copies share its memory.
  double copy_us(double bytes, int P) const;
  // One node's memory as the resource (memory_load), for -a auto on host
  // buffers: each message's handshake (the exchange curve at its size, at
  // most the eager limit), then the busiest rank's bytes at the rate one
  // copy of `N_B` runs at while every rank copies at once (copy_together).
  // Where copy_together was not measured, predict_us(t).
  double node_memory_us(const Traffic& t, const MemoryLoad& load, double N_B) const;
};

// The bytes every rank's copies and reductions read and write in memory to
// carry out a schedule over direct access, summed, from its messages: a
// message stored or read is copied (2 x its bytes); one reduced on arrival
// is reduced straight from the sender's memory (3 x: the two terms and the
// result); one reduced in flight (the segmented ring) is copied, then
// reduced (5 x); k messages a rank reduces from peers in one step are one
// pass over k + 1 terms and the result ((k + 2) x). The copies a schedule
// makes of its own buffers are not messages and are left out.
uint64_t memory_B(const Traffic& t);

// One node's memory as the resource, for ranks on host buffers
// (docs/time-model.md, "Memory as the resource"): what each step of the
// schedule reads and writes in memory, on its busiest rank and on every
// rank together, summed over the steps. Over Open MPI's shared memory (vader,
// without XPMEM) a message above the eager limit is copied once, by its
// receiver through CMA (2 x its bytes); below it, through a shared
// segment (2 x at the sender and 2 x at the receiver). One reduced on
// arrival is received, then reduced into the rank's own buffer (2 x, then
// 3 x: two terms read, the result written). Read from a peer's memory:
// memory_B's figures. own_copied_B, one entry per rank: the bytes it copies
// between buffers of its own (an all-reduce's input into its result), all at
// once, a step of their own (MemoryLoad, above CostModel).
constexpr uint64_t kEagerLimit_B =
    4096;  // Open MPI 4.1's btl_vader_eager_limit without XPMEM: below it, eager
MemoryLoad memory_load(const Traffic& t, const std::vector<uint64_t>& own_copied_B);
// Measures copy_alone and copy_together at each of `sizes_B` (host buffers,
// a few ms at 16 MiB), rank 0's medians shared by all.
void probe_copies(Comm& comm, const std::vector<size_t>& sizes_B, CostModel& m);
// What a copy of b bytes moves per us, read plus written, as GB/s; 0 where
// the curve is empty.
double copy_GBps(const Curve& copy, double b);

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
// shared_gpu: the ranks share one GPU (over direct access): the model is the
// GPU's, its step the exchange of nothing, its bandwidth the GPU's copy
// bandwidth as rank 0 measures it alone.
CostModel probe_cost(Comm& comm, const Reduction* red, bool shared_gpu = false);

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
