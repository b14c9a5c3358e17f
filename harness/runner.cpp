#include "runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <numeric>
#include <random>
#include <stdexcept>
#include <thread>

#include "core/comm/executor.hpp"
#include "core/comm/recorder.hpp"
#include "core/vocabulary/distribution.hpp"
#include "core/vocabulary/stats.hpp"
#include "core/vocabulary/usage_error.hpp"
#include "show.hpp"

namespace commlab {

Runner::Runner(Comm& comm, const Options& opts, const Nodes& nodes)
    : comm_(comm), opts_(opts), setup_(comm, opts, nodes) {}

int Runner::exit_code() const {
  if (!kept_.empty())  // a caller of measure() under --interleave that never timed its rows
    throw std::logic_error("rows kept for --interleave were never timed (Runner::time_kept)");
  return failed_ ? kExitWrong : 0;
}

Row Runner::blank_row(const Shape& shape, const Case& c) const {
  Row row;
  row.run = &info_;
  row.algorithm = c.algorithm;
  row.impl = c.impl;
  row.dtype = shape.has_data ? name(shape.dtype) : "none";
  row.op = shape.reduces ? name(shape.op) : "none";
  row.count = shape.count;
  row.bytes = shape.count * element_size(shape.dtype);
  row.model = c.model;
  if (c.t_model_us) row.t_model_us = *c.t_model_us * c.time_scale;  // as the row's time
  row.chose = c.chose;
  row.taught_formula = c.taught_formula;
  row.taught_T_B = c.taught_T_B;
  return row;
}

// One run with a Recorder attached: its traffic counted (every message kept,
// for --show and for the bytes through each node's port), and with --show
// the buffers and the schedule printed.
void Runner::check_once(const Shape& shape, const Case& c, Row& row) {
  const bool show = opts_.show && c.output;
  if (show && comm_.rank() == 0)
    fmt::print("\n{} ({}), {} {} x {}, P = {}:\n", c.algorithm, name(row.impl), row.dtype, row.op,
               shape.count, comm_.size());
  c.prepare();
  if (show && c.input) show_buffers(comm_.mpi(), "before", *c.input);
  // Every message kept, for the bytes through each node's port; the buffer's
  // state after each step only for --steps, which prints them.
  const bool states = show && opts_.show_steps;
  Recorder recorder(states ? Keep::states : Keep::messages);
  const bool library = c.impl == Impl::mpi && setup_.library_counted();
  std::vector<LibrarySend> library_sent;
  {
    Attached attached(comm_, recorder);
    if (states) comm_.watch(c.watched ? c.watched : c.output->data(), c.output->bytes());
    MPI_Barrier(comm_.mpi());
    if (library) library_window_open();
    const gpu::Activity before = mem_.on_gpu() ? gpu::activity() : gpu::Activity{};
    c.run();
    if (library) library_sent = library_window_close();
    mem_.sync();
    if (mem_.on_gpu()) count_gpu(before, row);
  }
  if (c.impl != Impl::hand) {  // a library call: nothing of it went through Comm
    if (library) count_library(c, library_sent, row);
    if (show) show_buffers(comm_.mpi(), "after", *c.output);
    return;
  }
  const auto trace = recorder.gather_trace(comm_.transport());
  if (show) {
    std::vector<std::vector<Snapshot>> after_each_step;
    if (states) {
      recorder.snapshot(mem_);  // the end of the run
      after_each_step = recorder.gather_snapshots(comm_.transport());
    }
    if (comm_.rank() == 0)
      show_schedule(trace, after_each_step, shape.dtype, shape.count, comm_.size());
    show_buffers(comm_.mpi(), "after", *c.output);
  }
  row.counted = recorder.gather_counts(comm_.transport(), nodes_, trace);
  row.traffic = row.counted->same_counts(*c.model) ? TrafficCheck::exact : TrafficCheck::differs;
}

// A library call's messages as the MPI reported them: a rank's k-th message
// is taken as its step k (the library's own steps are not visible). Which
// hand-written algorithm moves the same bytes in as many messages names what
// the library ran; a forced algorithm that moved what another does fell back
// (Open MPI's ring with count < P runs recursive doubling).
void Runner::count_library(const Case& c, const std::vector<LibrarySend>& sent, Row& row) {
  Recorder recorder(Keep::messages);
  int step = 0;
  for (const LibrarySend& s : sent)
    recorder.sent(
        {step++, comm_.rank(), setup_.rank_of_world().at(s.to), -1, s.bytes, Phase::none});
  row.counted = Recorder::counts_of(recorder.gather_trace(comm_.transport()), comm_.size(), nodes_);
  if (c.model)
    row.traffic = row.counted->same_bytes(*c.model) ? TrafficCheck::exact : TrafficCheck::differs;
  if (row.traffic ==
      TrafficCheck::differs)  // what ran was not the forced algorithm: not its formula
    row.taught_formula.clear(), row.taught_T_B = 0;
  if (comm_.size() == 1) return;  // nothing sent, which every algorithm matches
  // Where several move the same (P = 3: recursive doubling's fold and
  // master-worker), the forced one if it is among them, else all of them.
  for (const auto& [name, model] : c.known)
    if (row.counted->same_bytes(model)) row.chose += (row.chose.empty() ? "" : "/") + name;
  if (row.traffic == TrafficCheck::exact) row.chose = c.forced;
  if (c.model && row.chose != c.forced)
    row.note = row.chose.empty() ? "moved what no hand-written algorithm does"
                                 : "fell back: moved what " + row.chose + " does";
}

// Every rank's verdict, summed: ok only when no element and no count is wrong.
void Runner::judge(const Case& c, Row& row) {
  row.check = Check::off;
  if (opts_.check) {
    Verdict v = c.check(c.run);
    uint64_t local[2] = {v.wrong, v.diff_vs_lib.value_or(0)}, sum[2];
    MPI_Allreduce(local, sum, 2, MPI_UINT64_T, MPI_SUM, comm_.mpi());
    row.wrong = sum[0];
    if (v.diff_vs_lib) row.diff_vs_lib = sum[1];
    const std::string first_wrong = first_text(comm_.mpi(), v.note);
    if (!first_wrong.empty()) row.note = first_wrong;
    row.check = sum[0] == 0 && sum[1] == 0 ? Check::ok : Check::fail;
  }
  // A library's traffic that differs from the textbook's is a finding, not a failure.
  if (row.traffic == TrafficCheck::differs && row.impl == Impl::hand) row.check = Check::fail;
  failed_ |= row.check == Check::fail;
}

// Every rank's time of every iteration, and when it arrived, on rank 0: the
// distribution's figures for the row (distribution.hpp), agreed on every
// rank, and each time and arrival for --times.
void Runner::describe_iterations(const std::vector<double>& mine,
                                 const std::vector<double>& arrived_s, Row& row) {
  const int P = comm_.size(), n = int(mine.size());
  std::vector<double> all(comm_.rank() == 0 ? size_t(P) * n : 0), at(all.size());
  MPI_Gather(mine.data(), n, MPI_DOUBLE, all.data(), n, MPI_DOUBLE, 0, comm_.mpi());
  MPI_Gather(arrived_s.data(), n, MPI_DOUBLE, at.data(), n, MPI_DOUBLE, 0, comm_.mpi());
  double clock_error_s = 0;
  MPI_Reduce(&setup_.clock().error_s, &clock_error_s, 1, MPI_DOUBLE, MPI_MAX, 0, comm_.mpi());
  double figures[15] = {};
  if (comm_.rank() == 0) {
    row.iteration_times.assign(size_t(P), {});
    std::vector<std::vector<double>> arrived_us(static_cast<size_t>(P));
    const double origin_s = at.empty() ? 0 : *std::min_element(at.begin(), at.end());
    for (int r = 0; r < P; ++r) {
      row.iteration_times[r].assign(all.begin() + r * n, all.begin() + (r + 1) * n);
      for (int i = 0; i < n; ++i) arrived_us[r].push_back((at[r * n + i] - origin_s) * 1e6);
    }
    row.iteration_late_us = lateness(arrived_us);
    const Distribution d = distribution(row.iteration_times);
    const Arrivals a = arrivals(arrived_us);
    const double none = -1;
    figures[0] = d.p90_us.value_or(none), figures[1] = d.p99_us.value_or(none);
    figures[2] = d.ci_lo_us.value_or(none), figures[3] = d.ci_hi_us.value_or(none);
    figures[4] = d.rank_spread, figures[5] = d.slowest_rank, figures[6] = d.slowest_share;
    figures[7] = a.late_rank, figures[8] = a.late_share, figures[9] = a.skew_median_us;
    figures[10] = a.skew_p99_us.value_or(none), figures[11] = clock_error_s * 1e6;
    // Each rank's mean over the iterations, then over the ranks: OSU's
    // figure is their average; IMB's t_min, t_avg, t_max are all three.
    std::vector<double> means;
    for (const auto& t : row.iteration_times)
      means.push_back(std::accumulate(t.begin(), t.end(), 0.0) / double(t.size()));
    figures[12] = *std::min_element(means.begin(), means.end());
    figures[13] = std::accumulate(means.begin(), means.end(), 0.0) / double(P);
    figures[14] = *std::max_element(means.begin(), means.end());
  }
  MPI_Bcast(figures, 15, MPI_DOUBLE, 0, comm_.mpi());
  auto given = [](double v) { return v < 0 ? std::nullopt : std::optional<double>(v); };
  row.t_p90_us = given(figures[0]), row.t_p99_us = given(figures[1]);
  row.t_median_ci_lo_us = given(figures[2]), row.t_median_ci_hi_us = given(figures[3]);
  row.rank_spread = figures[4];
  row.slowest_rank = int(figures[5]);
  row.slowest_share = figures[6];
  row.late_rank = int(figures[7]), row.late_share = figures[8];
  row.arrival_skew_us = figures[9], row.arrival_skew_p99_us = given(figures[10]);
  row.clock_error_us = figures[11];
  row.rank_mean_min_us = figures[12], row.rank_mean_avg_us = figures[13];
  row.rank_mean_max_us = figures[14];
}

// What one call asked of the GPU, on the rank that asked the most.
void Runner::count_gpu(const gpu::Activity& before, Row& row) {
  const gpu::Activity after = gpu::activity();
  uint64_t mine[2] = {after.launches - before.launches, after.host_waits - before.host_waits};
  uint64_t most[2];
  MPI_Allreduce(mine, most, 2, MPI_UINT64_T, MPI_MAX, comm_.mpi());
  row.gpu_launches = most[0], row.gpu_host_waits = most[1];
}

void Runner::warm_up(const Case& c) {
  for (int i = 0; i < opts_.warmup; ++i) {
    c.prepare();
    MPI_Barrier(comm_.mpi());
    c.run();
    mem_.sync();
  }
}

double Runner::time_call(const Case& c, double& arrived_s) {
  c.prepare();
  if (comm_.rank() == setup_.late().rank)
    std::this_thread::sleep_for(std::chrono::duration<double>(setup_.late().by_s));
  arrived_s = MPI_Wtime() + setup_.clock().to_rank0_s;
  MPI_Barrier(comm_.mpi());
  const double t0 = MPI_Wtime();
  c.run();
  mem_.sync();  // on the GPU a run ends when its last kernel or copy has
  return (MPI_Wtime() - t0) * 1e6 * c.time_scale;
}

// Warm-up, then timed runs; an iteration lasts as long as its slowest rank.
double Runner::time_runs(const Shape& shape, const Case& c, Row& row) {
  warm_up(c);
  const int iters = opts_.iters_for(row.bytes);
  std::vector<double> mine(iters);
  std::optional<uint64_t> links_before_B;
  if (setup_.links().active()) {
    // Every rank's warm-up over, so that no node reads its links while
    // another's last call is still crossing them.
    MPI_Barrier(comm_.mpi());
    links_before_B = setup_.links().sent_B(comm_.mpi());
  }
  std::vector<double> arrived_s(iters);  // on rank 0's clock
  for (int i = 0; i < iters; ++i) mine[i] = time_call(c, arrived_s[i]);
  const double mean_us = std::accumulate(mine.begin(), mine.end(), 0.0) / iters / c.time_scale;
  if (links_before_B) {
    // Every rank's last call over, so that no node reads its links early.
    MPI_Barrier(comm_.mpi());
    const auto links_after_B = setup_.links().sent_B(comm_.mpi());
    if (links_after_B && *links_after_B >= *links_before_B)  // a counter reset: no figure
      row.links_sent_B = (*links_after_B - *links_before_B) / iters;
  }
  summarize_times(shape, mine, arrived_s, row);
  return mean_us;
}

void Runner::time_kept(std::vector<Row>& rows) {
  if (kept_.empty()) return;
  const size_t n = kept_.size();
  bool same = rows.size() == n;
  for (size_t k = 0; same && k < n; ++k) same = rows[k].algorithm == kept_[k].c.algorithm;
  if (!same)
    throw std::logic_error("time_kept: the rows are not those measure() kept, in its order");
  for (const Kept& k : kept_) warm_up(k.c);
  const int iters = opts_.iters_for(rows.front().bytes);
  std::vector<std::vector<double>> mine(n, std::vector<double>(iters)), arrived_s = mine;
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  // A fixed seed: every rank draws the same orders (one binary, one library).
  std::mt19937 draw(20261128);
  for (int i = 0; i < iters; ++i) {
    std::shuffle(order.begin(), order.end(), draw);
    for (size_t k : order) mine[k][i] = time_call(kept_[k].c, arrived_s[k][i]);
  }
  for (size_t k = 0; k < n; ++k) summarize_times(kept_[k].shape, mine[k], arrived_s[k], rows[k]);
  kept_.clear();
}

// The row's times from every rank's: each call's slowest rank.
void Runner::summarize_times(const Shape& shape, const std::vector<double>& mine,
                             const std::vector<double>& arrived_s, Row& row) {
  const int iters = int(mine.size());
  std::vector<double> slowest(iters);
  MPI_Allreduce(mine.data(), slowest.data(), iters, MPI_DOUBLE, MPI_MAX, comm_.mpi());
  row.iters = iters;
  describe_iterations(mine, arrived_s, row);
  std::sort(slowest.begin(), slowest.end());
  const size_t n = slowest.size();
  row.t_avg_us = std::accumulate(slowest.begin(), slowest.end(), 0.0) / n;
  row.t_min_us = slowest.front();
  row.t_max_us = slowest.back();
  row.t_median_us = median(slowest);
  row.algbw_GBps = row.t_avg_us > 0 ? row.bytes / row.t_avg_us / 1e3 : 0;
  row.busbw_GBps = row.algbw_GBps * shape.busbw_factor;
  // What the busiest rank's link carried, each way: the counted bytes, for
  // every algorithm, where busbw assumes the ring's.
  if (row.counted && row.t_avg_us > 0)
    row.link_GBps =
        std::max(row.counted->sent_max_rank_B, row.counted->recv_max_rank_B) / row.t_avg_us / 1e3;
  // Over direct access every byte is moved by the ranks' own copies and
  // reductions: their sum over the time is the memory's (the GPU's) throughput.
  if (direct() && row.impl == Impl::hand && row.counted) {
    row.memory_moved_B = row.counted->memory_moved_total_B;
    if (row.t_avg_us > 0) row.memory_GBps = double(*row.memory_moved_B) / row.t_avg_us / 1e3;
  }
}

// One run of a hand-written algorithm with its schedule kept (schedule.hpp).
Schedule Runner::record_schedule(const Case& c) {
  c.prepare();
  return commlab::record_schedule(comm_, c.run, c.algorithm);
}

// --overlap: the call started and waited for, checked and counted, then
// timed alone (the row's times) and beside compute (its overlap figures).
Row Runner::measure_overlapped(const Shape& shape, const Case& c) {
  Case nb = c;
  std::optional<Schedule> schedule;
  std::optional<Executor> replayed;
  if (c.replay) {
    schedule = record_schedule(c);
    replayed.emplace(comm_, *schedule);
    Executor& ex = *replayed;
    nb.nb = NonBlocking{[&ex] { ex.start(); }, [&ex] { return ex.test(); }, [&ex] { ex.wait(); }};
  }
  const NonBlocking& call = *nb.nb;
  nb.run = [&call] {
    call.start();
    call.wait();
  };
  Row row = blank_row(shape, nb);
  check_once(shape, nb, row);
  judge(nb, row);
  const double pure_us = time_runs(shape, nb, row);
  const OverlapPass pass{call,         nb.prepare, opts_.warmup, opts_.iters_for(row.bytes),
                         opts_.probes, pure_us};
  row.overlap = time_overlap(comm_.mpi(), pass);
  if (schedule) {
    int rounds = 0;
    for (const Round& r : schedule->rounds) rounds += r.posts > 0;
    row.overlap->rounds = rounds;
    row.overlap->model_overlap_pct = model_overlap_pct(rounds, opts_.probes);
  }
  return row;
}

Row Runner::measure(const Shape& shape, const Case& c) {
  if (c.nb || c.replay) return measure_overlapped(shape, c);
  Row row = blank_row(shape, c);
  check_once(shape, c, row);
  judge(c, row);
  if (info_.interleaved)
    kept_.push_back({shape, c});
  else
    time_runs(shape, c, row);
  return row;
}

}  // namespace commlab
