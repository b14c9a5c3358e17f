// One measured row, its schema (stable: documented in docs/usage.md), as CSV
// or JSON Lines, and the append-only writer. A row is formatted whole and
// written with one write(2), so an interrupted run never leaves half a row
// behind.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/comm/time_model.hpp"
#include "core/comm/traffic.hpp"
#include "core/vocabulary/columns.hpp"
#include "core/vocabulary/outcome.hpp"
#include "core/vocabulary/types.hpp"

namespace commlab {

// Where the ranks ran, from their host names: "4 nodes x 2 ranks: n[0-3]".
struct Placement {
  int nodes = 1, ranks_min = 1, ranks_max = 1;  // ranks on the emptiest and the fullest node
  std::string hosts;                            // compressed, as Slurm writes them: n[0-3]
  std::string line() const;
};
// Host names as one compressed list, sorted: {n2, n0, n1, login} -> "login,n[0-2]".
std::string compress_hosts(std::vector<std::string> names);
// The placement of ranks whose host names (in rank order) are these.
Placement placement_of(const std::vector<std::string>& host_of_rank);

struct RunInfo {  // the same for every row of one run
  std::string program, device, host, date, mpi_version, commlab_version;
  int P = 1, root = 0, iters = 0, warmup = 0;
  bool in_place = false;
  TransportKind transport = TransportKind::host;  // of the hand-written and MPI rows
  Placement placement;
  std::string network = "switch";  // the nodes' network (Nodes::network)
  int ranks_per_gpu = 0;           // GPU buffers: the most ranks on one GPU; 0 on the host
  // What else the machine was doing at start: the share of rank 0's node's
  // CPUs busy with other work over a short quiet window (0 to 1), and the
  // node's cores (ranks above it share cores).
  double busy_at_start = 0;
  int cores_per_node = 0;
  // --interleave, where it applies: the rows of a size timed a call each in
  // turn (not where the links' counters are read per row, nor over direct access).
  bool interleaved = false;
  // Open MPI's point-to-point layer as asked (OMPI_MCA_pml, what `mpirun --mca
  // pml ucx` sets); "" where it was not (the library's choice: ob1 on one node
  // without an InfiniBand device). The library rows' counts depend on it.
  std::string pml;
};

// --overlap: a non-blocking call beside compute, timed as OSU's osu_i* do
// (harness/overlap.hpp): each rank's means, then their average over the ranks.
struct OverlapFigures {
  int probes = 0;              // test calls spread over the compute
  double t_pure_us = 0;        // start and wait alone
  double t_cpu_us = 0;         // the compute, its test calls included (OSU's "tcomp")
  double t_test_us = 0;        // inside the test calls
  double t_overlap_us = 0;     // start, compute and tests, wait: OSU's "Overall"
  double overlap_pct = 0;      // OSU's figure
  double overlap_imb_pct = 0;  // IMB-NBC's, on the rank with the longest t_overlap
  // A hand-written schedule: its rounds that carry messages, and the
  // overlap the time model predicts from them (overlap.hpp).
  std::optional<int> rounds;
  std::optional<double> model_overlap_pct;
};

struct Row {
  const RunInfo* run = nullptr;
  std::string algorithm;
  Impl impl = Impl::hand;
  std::string dtype, op;  // their names, or "none" (a barrier has neither)
  uint64_t count = 0, bytes = 0;
  double t_avg_us = 0, t_min_us = 0, t_max_us = 0, t_median_us = 0;
  double algbw_GBps = 0, busbw_GBps = 0;
  std::optional<double> link_GBps;  // the busiest rank's bytes over the time (hand-written rows)
  std::optional<Traffic> counted, model;
  std::string taught_formula;
  double taught_T_B = 0;
  std::optional<uint64_t> wrong, diff_vs_lib;
  TrafficCheck traffic = TrafficCheck::none;  // none for library rows
  Check check = Check::off;
  std::string note;                  // first mismatch, or why something was skipped
  std::optional<double> t_model_us;  // the time model's prediction (time_model.hpp)
  std::string chose;                 // -a auto: the algorithm it ran
  // The direct transport's hand-written rows: what every rank's copies and
  // reductions read and wrote in one call, summed, and that over the time.
  std::optional<uint64_t> memory_moved_B;
  std::optional<double> memory_GBps;
  // Hand-written rows on host buffers: one node's memory loads from the
  // schedule (time_model.hpp, memory_load), and the probe's copy of this
  // row's bytes, one rank alone and every rank at once (probe_copies).
  std::optional<MemoryLoad> memory;
  std::optional<double> copy_alone_GBps, copy_together_GBps;
  // Where COMMLAB_LINK_DEVICES names the links: the bytes every link sent in
  // one call, by the kernel's counters, headers and control messages included.
  std::optional<uint64_t> links_sent_B;
  Buffers buffers =
      Buffers::user;  // the direct transport's hand-written rows: registered with --registered
  // GPU rows: what one call asked of the GPU on its busiest rank: copies and
  // kernels launched, and waits of the host for them.
  std::optional<uint64_t> gpu_launches, gpu_host_waits;
  // The timed iterations' distribution (distribution.hpp): p90, p99, the
  // median's 95% interval, the spread between ranks, the slowest rank.
  std::optional<double> t_p90_us, t_p99_us, t_median_ci_lo_us, t_median_ci_hi_us;
  std::optional<double> rank_spread, slowest_share;
  std::optional<int> slowest_rank;
  // When the ranks arrived at each timed call, on rank 0's clock (within
  // clock_error_us): the rank most often last, how often, and the median and
  // p99 over the iterations of the last arrival's lead over the first.
  std::optional<int> late_rank;
  std::optional<double> late_share, arrival_skew_us, arrival_skew_p99_us, clock_error_us;
  // Each rank's mean time over the iterations, then the least, the average
  // and the most over the ranks: the figures OSU (the average) and IMB
  // (t_min, t_avg, t_max) report, beside this row's slowest-rank times.
  std::optional<double> rank_mean_min_us, rank_mean_avg_us, rank_mean_max_us;
  // --overlap (harness/overlap.hpp): the call non-blocking beside compute.
  std::optional<OverlapFigures> overlap;
  int iters = 0;  // the timed iterations
  // On rank 0: every rank's time of every timed iteration, and how long after
  // the iteration's first rank it arrived, [rank][iteration] (--times).
  std::vector<std::vector<double>> iteration_times, iteration_late_us;
};

// A schema is one table: each column's name, how a record fills it, and the
// JSON type of its cell (columns.hpp's Kind).
template <class Record>
struct Column {
  const char* name;
  std::function<std::string(const Record&)> cell;
  Kind kind = Kind::text;
};
using CsvColumn = Column<Row>;
template <class Record>
std::string csv_header(const std::vector<Column<Record>>& schema) {
  std::string s;
  for (size_t i = 0; i < schema.size(); ++i) s += (i ? "," : "") + std::string(schema[i].name);
  return s;
}
// A text cell: quoted when it holds a comma, a quote or a newline.
std::string csv_text(const std::string& s);
template <class Record>
std::string csv_line(const std::vector<Column<Record>>& schema, const Record& r) {
  std::string s;
  for (size_t i = 0; i < schema.size(); ++i) {
    const std::string cell = schema[i].cell(r);
    s += (i ? "," : "") + (schema[i].kind == Kind::text ? csv_text(cell) : cell);
  }
  return s + "\n";
}

// The programs' rows: CSV, and JSON Lines (one object per row, the same
// fields, numbers as numbers), with the columns of columns.def.
const std::vector<std::string>& csv_columns();
std::string csv_header();
std::string csv_line(const Row& r);
std::string json_line(const Row& r);
// --times: a row per rank and timed iteration of each measured row.
std::string times_header();
std::string times_lines(const Row& r);

// Opens FILE for appending (creating it with `header`, if there is one: JSON
// Lines have none), or throws UsageError, naming `flag`, when it cannot be
// written, holds a different header, or ends mid-line. Every append is one
// write(2): whole lines or nothing.
class LinesFile {
 public:
  LinesFile() = default;
  LinesFile(const std::string& path, const std::string& header, const std::string& flag);
  ~LinesFile();
  LinesFile(const LinesFile&) = delete;
  LinesFile& operator=(LinesFile&& o) noexcept;
  bool is_open() const { return fd_ >= 0; }
  void append_lines(const std::string& lines);  // each ending in a newline

 private:
  std::string path_, header_, flag_;
  int fd_ = -1;
  bool need_header_ = false;
};

}  // namespace commlab
