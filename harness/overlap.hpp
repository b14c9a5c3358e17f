// --overlap: a collective run non-blocking beside compute, measured as the
// OSU micro-benchmarks' osu_i* programs measure it, with IMB-NBC's figure
// beside OSU's (docs/overlap.md says where each comes from).
//
// Each row first times the call alone, start then wait (the "pure" time: the
// row's t_avg_us and the rest come from it). Then each rank computes for as
// long as its own pure mean took, between the start and the wait, in
// `probes` equal slices each followed by one test call (none at 0, OSU's
// default). A library call is tested with MPI_Testall; a hand-written
// algorithm runs its recorded schedule (core/comm/executor.hpp), which moves
// to its next round only at a test call, as libNBC's schedules do inside
// MPI_Test. Whatever a call does inside its test calls is OSU's "test"
// time, not compute: a replayed schedule's reductions are done there.
#pragma once
#include <mpi.h>

#include <functional>

#include "operations/operation.hpp"
#include "results.hpp"

namespace commlab {

// A call started, tested and waited for.
struct NonBlocking {
  std::function<void()> start;
  std::function<bool()> test;  // true once it has completed
  std::function<void()> wait;
};

// A library call's non-blocking form: `start` posts its requests (each
// start anew), tested with MPI_Testall and waited for with MPI_Waitall.
NonBlocking library_nonblocking(std::function<void(Requests&)> start);

// OSU (osu_util_mpi.c, print_stats_nbc): the share of the pure time hidden,
// the test calls counted as overhead: max(0, 100 - 100 (overall - (cpu -
// test)) / pure). Not clamped above: a call that ends before the compute
// does shows over 100, as OSU's does.
double osu_overlap_pct(double pure_us, double cpu_us, double test_us, double overall_us);
// IMB-NBC (IMB_output.c): 100 max(0, min(1, (pure + cpu - overall) /
// max(pure, cpu))), cpu the compute alone. IMB's user guide prints min where
// its code has had max since 2018; we follow the code.
double imb_overlap_pct(double pure_us, double cpu_us, double overall_us);

// Computes for `seconds` (a 25 x 25 float kernel, as OSU's, until the clock
// says so): with probes > 0 in that many equal slices, each followed by one
// call of test. Returns the seconds spent inside test.
double compute_with_probes(double seconds, int probes, const std::function<bool()>& test);

// The time model's overlap for a schedule of `rounds` rounds with messages,
// each taking an equal share of the pure time, that moves only at a test
// (or the wait): round 0 is posted at the start; a test after a slice
// completes the round in flight if it has had its share since it was
// posted, and posts the next. The compute lasts the pure time, as above. What
// is left after the compute is paid after it. rounds = 0 hides everything.
double model_overlap_pct(int rounds, int probes);

struct OverlapPass {
  const NonBlocking& nb;
  std::function<void()> prepare;  // untimed, before each call
  int warmup = 0, iters = 1, probes = 0;
  double pure_us = 0;  // this rank's mean of the pure pass
};
// The overlap pass, collective: every rank's means, then OSU's average over
// the ranks and IMB's figure on the rank with the longest overall time;
// the same figures on every rank.
OverlapFigures time_overlap(MPI_Comm comm, const OverlapPass& pass);

}  // namespace commlab
