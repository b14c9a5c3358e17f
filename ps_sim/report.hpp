// What rank 0 makes of a measured run: phases per iteration, the busiest
// rank's bytes against the taught and the exact formulas, the checks; as the
// printed table and through the CSV schemas (--csv, --loss-csv).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli.hpp"
#include "core/vocabulary/outcome.hpp"
#include "harness/results.hpp"
#include "measure.hpp"

namespace commlab::ps {

// The most one rank moved in one iteration, role by role; none where no rank
// has the role (servers) or the bytes are not counted (mpi).
struct BusiestBytes {
  std::optional<double> server_in_B, server_out_B, worker_in_B, worker_out_B;
  std::optional<double> rank_out_B;  // as a worker and a server together
};

// One run: the table's row and the CSV's.
struct Report {
  const Config* c = nullptr;
  std::string mpi, host, date;
  double t_iter_us = 0, compute_us = 0, push_us = 0, aggregate_us = 0, pull_us = 0, idle_us = 0;
  BusiestBytes max_per_iter;
  std::string formula;  // the taught formula, and which quantity it is
  double taught_B = 0, exact_B = 0, measured_B = 0;
  TrafficCheck traffic = TrafficCheck::none;  // none: not counted (mpi)
  std::vector<double> loss;                   // per iteration, per example
  std::vector<uint64_t> staleness;            // gradients applied that many iterations stale
  int staleness_max = 0;
  std::optional<double> weights_rel_diff;  // against serial SGD, where compared
  Check check = Check::off;
  std::string note;  // why the check failed, or what it left out
};

// One iteration's loss: a row of --loss-csv.
struct LossRow {
  const Config* c = nullptr;
  int iteration = 0;
  double loss = 0;
};

const std::vector<Column<Report>>& report_schema();
const std::vector<Column<LossRow>>& loss_schema();

// Where and when the run is, before it starts (every rank).
Report start_report(const Config& c);
// The figures of a measured run, and its checks (rank 0).
void finish_report(Report& r, const Settings& s, const Measurement& m, int ranks);

void print_heading(const Report& r);
void print_row(const Report& r);
std::string loss_lines(const Report& r);  // every iteration's LossRow, as CSV

}  // namespace commlab::ps
