// The measurement loop every collective program shares, on a run set up
// once (run_setup.hpp): one run checked (its traffic counted by a Recorder,
// its result compared), warm-up, timed runs, each implementation on each
// shape made a row (which a RowWriter, table.hpp, prints and writes).
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "buffer.hpp"
#include "core/comm/clock.hpp"
#include "core/comm/comm.hpp"
#include "core/comm/nodes.hpp"
#include "core/comm/schedule.hpp"
#include "core/device/device.hpp"
#include "core/device/memory.hpp"
#include "core/transports/direct_transport.hpp"
#include "core/vocabulary/outcome.hpp"
#include "library_monitor.hpp"
#include "link_counters.hpp"
#include "options.hpp"
#include "overlap.hpp"
#include "results.hpp"
#include "run_setup.hpp"

namespace commlab {

// --overlap: what a hand-written row's name ends with (ring_nb), beside the
// library's non-blocking call (MPI_Iallreduce).
inline constexpr const char* kNonBlocking = "_nb";

// One implementation measured on one shape: a hand-written algorithm or a library call.
struct Case {
  std::string algorithm;  // e.g. ring, or the library function
  Impl impl = Impl::hand;
  std::function<void()> prepare;  // restore inputs before each run (untimed)
  std::function<void()> run;      // the timed operation
  // After one run. A check that makes calls of its own (the barrier's) is
  // handed the run to call: under --overlap, the non-blocking one.
  std::function<Verdict(const std::function<void()>& run)> check;
  // Hand-written: the traffic counted is compared to it. A library call:
  // the model of the hand-written algorithm of the name forced on it (its
  // bytes and messages compared), if any.
  std::optional<Traffic> model;
  // A library call: each hand-written algorithm's model on this shape, to
  // tell by its counted traffic which algorithm the library ran.
  std::vector<std::pair<std::string, Traffic>> known;
  std::string forced;  // a library call: the algorithm forced on it; "" for the library's choice
  std::optional<double> t_model_us;  // the time model's prediction
  std::string chose;                 // -a auto: the algorithm it ran
  std::string taught_formula;
  double taught_T_B = 0;
  const Buffer* input = nullptr;  // what --show prints before and after
  const Buffer* output = nullptr;
  const void* watched = nullptr;  // what --steps prints after each step; null: output's data
  double time_scale = 1;  // reported time = measured x this (CollectiveAlgorithm::time_scale)
  // --overlap: the call non-blocking. A library's own (MPI_Iallreduce, ...);
  // or, with `replay`, a hand-written algorithm's schedule, which the Runner
  // records from one run of `run` and replays (core/comm/executor.hpp).
  std::optional<NonBlocking> nb;
  bool replay = false;
};

struct Shape {
  DType dtype;
  Op op;
  size_t count;
  double busbw_factor;   // nccl-tests: busbw = algbw x this
  bool reduces = true;   // false: the op column says none
  bool has_data = true;  // false (barrier): the dtype column says none
};

class Runner {
 public:
  // The run set up (run_setup.hpp): every refusal on every rank, exiting 2
  // everywhere on bad input; the device, the transport. `nodes`: where the
  // ranks really run.
  Runner(Comm& comm, const Options& opts, const Nodes& nodes);

  Memory& memory() { return setup_.memory(); }
  int ranks() const { return comm_.size(); }
  const Nodes& nodes() const { return setup_.nodes(); }
  Nccl* nccl() { return setup_.nccl(); }
  TransportKind transport() const { return setup_.transport(); }
  bool library_counted() const { return setup_.library_counted(); }
  const RunInfo& info() const { return setup_.info(); }
  std::string heading_lines(bool has_data) const { return setup_.heading_lines(has_data); }
  bool direct() const { return setup_.direct(); }
  bool shares_gpu() const { return setup_.shares_gpu(); }
  using Registered = RunSetup::Registered;
  Registered register_buffers(const RegionLayout& layout) {
    return setup_.register_buffers(layout);
  }

  // One row: checked, counted and timed. Under --interleave (where
  // info().interleaved) it is checked and counted now and its Case kept,
  // every reference in it still valid, until time_kept times the shape's rows.
  Row measure(const Shape& shape, const Case& c);
  // --interleave: the rows measure() kept, in the order it was called, which
  // must be `rows`'s, timed together: warm-up, then each iteration a call of
  // each row, in an order drawn anew each iteration, the same on every rank.
  void time_kept(std::vector<Row>& rows);

  // 0 when every check passed, kExitWrong otherwise (same on every rank).
  int exit_code() const;

 private:
  Row blank_row(const Shape& shape, const Case& c) const;
  void check_once(const Shape& shape, const Case& c, Row& row);
  void judge(const Case& c, Row& row);
  // This rank's mean time of a call, in us (as measured, before time_scale).
  double time_runs(const Shape& shape, const Case& c, Row& row);
  void warm_up(const Case& c);
  // One timed call, in us (times time_scale); `arrived_s`: when this rank
  // reached it, on rank 0's clock.
  double time_call(const Case& c, double& arrived_s);
  Row measure_overlapped(const Shape& shape, const Case& c);
  Schedule record_schedule(const Case& c);
  void summarize_times(const Shape& shape, const std::vector<double>& mine,
                       const std::vector<double>& arrived_s, Row& row);
  void count_library(const Case& c, const std::vector<LibrarySend>& sent, Row& row);
  void count_gpu(const gpu::Activity& before, Row& row);
  void describe_iterations(const std::vector<double>& mine, const std::vector<double>& arrived_s,
                           Row& row);

  Comm& comm_;
  const Options& opts_;
  RunSetup setup_;
  Memory& mem_ = setup_.memory();
  const Nodes& nodes_ = setup_.nodes();
  const RunInfo& info_ = setup_.info();
  bool failed_ = false;
  struct Kept {  // --interleave: a row checked, its timing left to time_kept
    Shape shape;
    Case c;
  };
  std::vector<Kept> kept_;
};

}  // namespace commlab
