// The rows of a results folder, read back from the programs' CSV (the schema
// in harness/results.cpp) with the fccp parser, or from their JSON Lines with
// nlohmann's.
#pragma once
#include <algorithm>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/vocabulary/outcome.hpp"
#include "core/vocabulary/types.hpp"

namespace commlab {

// A file that cannot be read as rows; the message names the file and line.
struct ReportError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Measurement {
  std::string program, algorithm;
  Impl impl = Impl::hand;
  std::string device, dtype, op;
  // Its run's transport where that is not the device's usual MPI path
  // ("direct", "cuda-aware"), else empty: the library's rows of a run too, so
  // that they stay beside the rows they were measured against.
  std::string run_transport;
  bool registered = false;  // its run's hand-written rows ran on registered buffers
  int P = 0;
  uint64_t count = 0, bytes = 0;
  double t_avg_us = 0, t_median_us = 0, busbw_GBps = 0;
  std::optional<double> t_model_us;  // the time model's (absent from older files)
  std::string chose;                 // -a auto's algorithm
  std::optional<int> nodes;          // the hosts its ranks ran on (absent from older files)
  std::optional<double> link_GBps;   // the busiest rank's bytes over the time
  // Counted traffic: a hand-written row's, or a library row's where Open MPI's
  // monitoring reported its messages.
  std::optional<uint64_t> sent_max_B, recv_max_B, sent_total_B, msgs, steps;
  std::optional<uint64_t> model_steps, model_critical_path_B;
  // Through the busiest node's link, counted and modelled; what the busiest
  // reducer reduces (absent from older files).
  std::optional<uint64_t> port_critical_B, model_port_critical_B, model_reduced_max_B;
  // Over the nodes' network, where it was not the switch (COMMLAB_TOPOLOGY):
  // its name, and the busiest link's bytes step by step and the hop-bytes,
  // counted and modelled. The time model charges the busiest link there.
  std::string network;
  std::optional<uint64_t> link_critical_B, model_link_critical_B, hop_B, model_hop_B;
  std::optional<uint64_t> links_sent_B;  // the links' own counters, a call
  bool on_network() const {
    return !network.empty() && network != "switch" && model_link_critical_B;
  }
  // What every rank's copies and reductions read and wrote in one call,
  // summed (the direct transport's hand-written rows; absent elsewhere).
  std::optional<uint64_t> memory_moved_B;
  // One node's memory over MPI, step by step, as the model has it: each
  // step's busiest rank's bytes read and written, and every rank's
  // (time_model.hpp, memory_load). The time model charges these on one node.
  std::optional<uint64_t> model_memory_rank_B, model_memory_node_B;
  bool on_one_node_memory() const {
    return hand() && device == "host" && nodes.value_or(1) <= 1 && model_memory_rank_B &&
           model_memory_node_B && model_steps && !on_network();
  }
  std::optional<int> ranks_per_gpu;  // GPU rows: the most ranks on one GPU
  // The iterations' distribution (absent from older files): p90, p99, the
  // median's 95% interval, the spread between ranks, the slowest rank and
  // how often; and the machine at start: the share of its CPUs busy with
  // other work, its cores.
  std::optional<double> p90_us, p99_us, ci_lo_us, ci_hi_us, rank_spread, slowest_share;
  std::optional<int> slowest_rank;
  // The rank most often last to arrive at a timed call, how often, and the
  // median and p99 of the last arrival's lead over the first (newer files).
  std::optional<int> late_rank;
  std::optional<double> late_share, arrival_skew_us, arrival_skew_p99_us;
  std::optional<double> busy_at_start;
  std::optional<int> cores_per_node;
  std::string taught_formula;
  std::optional<double> taught_T_B;
  Check check = Check::off;
  TrafficCheck traffic = TrafficCheck::none;  // counted against the model: none where not compared
  std::string note, host, date;               // date: when its program started, one per run
  std::string mpi_version;                    // the library's line: "Open MPI v4.1.4", "MPICH ..."
  int line = 0;                               // in its file, for messages

  bool hand() const { return impl == Impl::hand; }
  // Too noisy to judge a model by: its median's 95% interval spans more than
  // kNoisyWidth of it, so a 15% miss cannot be told from noise (docs/sweeps.md).
  static constexpr double kNoisyWidth = 0.3;
  bool noisy() const {
    return ci_lo_us && ci_hi_us && t_median_us > 0 &&
           (*ci_hi_us - *ci_lo_us) / t_median_us > kNoisyWidth;
  }
  // Whether its median has an interval at all: not with fewer than 6
  // iterations (core/vocabulary/distribution.hpp), nor in rows written before
  // the interval was; a row without one cannot be called steady either.
  bool has_interval() const { return ci_lo_us && ci_hi_us; }
  // More ranks on its nodes than they have cores (where the row says its cores).
  bool oversubscribed() const {
    const int n = std::max(1, nodes.value_or(1));
    return cores_per_node && (P + n - 1) / n > *cores_per_node;
  }
  // A hand-written row over direct access whose ranks shared one GPU (or
  // that an older file counted on a GPU without saying how it was shared).
  bool shares_gpu_memory() const {
    return hand() && device == "cuda" && run_transport == "direct" && memory_moved_B &&
           ranks_per_gpu.value_or(2) > 1;
  }
  // Where its bytes moved: "host", "cuda", "host, direct", "host, direct,
  // registered". Fits and tables keep fabrics apart: a copy between mapped
  // buffers and an MPI message are different machines, and a run that copies
  // the user's buffers in and out is another measurement than one that does not.
  std::string fabric() const {
    return device + (run_transport.empty() ? "" : ", " + run_transport) +
           (registered ? ", registered" : "");
  }
};

// " over direct", " over direct, registered": what a fabric adds to an
// algorithm's name in a table; "" for the device's usual MPI path.
inline std::string over_fabric(const std::string& fabric) {
  const auto comma = fabric.find(", ");
  return comma == std::string::npos ? "" : " over " + fabric.substr(comma + 2);
}

// a's median time over b's, as every table that sets two rows side by side
// gives it: "0.93", then the range the two medians' 95% intervals allow
// where both have one ("0.93 [0.88, 0.99]"), and " **noisy**" where either
// row is (Measurement::noisy); "-" where b's median is 0.
std::string median_ratio(const Measurement& a, const Measurement& b);

// Every row of one file: CSV, or JSON Lines (--json; a file whose first
// character is '{'). Throws ReportError naming the file and line of
// the first row that is cut short, has too many columns or a bad number, or
// a header without the columns this version writes.
// Times and rates must be finite and 0 or more; counts whole numbers.
std::vector<Measurement> read_rows(const std::string& path);
// The same from a file's text, named `name` in messages (the fuzz target's way in).
std::vector<Measurement> read_rows(const std::string& name, const std::string& text);

// The named columns of every row of any CSV file with a header line (rows.csv,
// links.csv, bandwidth.csv, ps_sim's): one vector of cells per row, in the
// order of `names`. The same parser as read_rows, so a quoted cell holding a
// comma stays one cell, where a script's `awk -F,` would shift every column
// after it. Throws ReportError naming the file, and the line where a row has
// too few or too many cells; a missing column is named too.
std::vector<std::vector<std::string>> read_columns(const std::string& path,
                                                   const std::vector<std::string>& names);

}  // namespace commlab
