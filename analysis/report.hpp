// The report of a results folder: checks, traffic against the taught
// formulas, the alpha-beta fit of every algorithm, and each hand-written
// algorithm against the library, as Markdown.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "distributions.hpp"
#include "fit.hpp"
#include "rows.hpp"
#include "table.hpp"  // human_bytes, for the report's users

namespace commlab {

// What a sweep's folder says of the machine the rows ran on, where it says it.
struct Machine {
  std::optional<double> link_GBps;  // the links' ping-pong at its largest message (links.csv)
  int cores = 0;                    // a node's cores (machine.md's cpu line); 0: not known
  // The GPU's copy bandwidth at its largest size (machine.md, gpu_sweep.sh's
  // bandwidth line), beside the fitted memory bandwidth of ranks sharing it.
  std::optional<double> gpu_copy_GBps;
};
Machine read_machine(const std::string& folder);

// `failed_cells`: sweep cells that did not finish (cells.tsv), listed under
// the checks; `machine`: the links' bandwidth, beside the fitted 1/beta, and
// the cores, which bound the fit's domain on one node.
// `iterations`: every row's timed iterations, where the folder has them
// (iterations.csv: --times), for the distributions' outliers.
std::string make_report(const std::vector<Measurement>& rows, const std::string& title,
                        const std::vector<std::string>& failed_cells = {},
                        const Machine& machine = {}, const Iterations& iterations = {});

// The regressors of the time model for a row (fit.hpp). Hand-written: steps,
// bytes and reduced bytes, where the bytes are those through the busiest
// node's port when the ranks ran on several nodes, else those along the
// critical path (files older than the memory columns); ranks of one node on
// host buffers: steps, and each step's busiest rank's and every rank's bytes
// moved in memory; ranks sharing one GPU over direct access: steps and the
// bytes moved in its memory. Library: 1, N.
std::vector<double> regressors(const Measurement& m);
// The time model fitted to rows (of one width): gamma where it holds
// (fit.hpp) for the rows whose last regressor is the bytes reduced; one
// node's memory counts its reductions in the bytes moved already.
Fit fit_time_model(const std::vector<const Measurement*>& ms);

// The first screen's rows: from this size the network decides the time, and
// the time model is fitted and judged there (summary.cpp; predict --fit).
constexpr uint64_t kLargeMessage_B = uint64_t{1} << 20;

// summary.cpp: the report's first screen. Per hand-written algorithm, does
// the fitted model predict every row of kLargeMessage_B or more within 15%
// (kWithin), its 1/beta beside the link's; then how time grows with P, measured, modelled and as
// the taught formulas say, and where the taught formula misleads.
std::string formulas_summary(const std::vector<Measurement>& rows, const Machine& machine);
// That fitted model itself, per fabric (Measurement::fabric) and dtype: coefficients alpha (us per
// step), beta (us per port byte) and gamma (us per reduced byte), for
// bin/predict --fit.
std::map<std::pair<std::string, std::string>, Fit> formulas_fits(
    const std::vector<Measurement>& rows, const Machine& machine);
// The same fitted model's time for each hand-written all-reduce row it
// covers (P > 1, checked ok), for the plot beside the measured times.
std::vector<std::pair<const Measurement*, double>> fitted_times(
    const std::vector<Measurement>& rows, const Machine& machine);

// choice.cpp: per P and size, the fastest all-reduce algorithm measured
// beside the time model's pick and the crossovers; -a auto over
// MPI_Allreduce in each run (rows of one run share their date) and the median.
std::string fastest_allreduce(const std::vector<Measurement>& rows);
std::string auto_against_library(const std::vector<Measurement>& rows);
// library.cpp: Open MPI's forced algorithms and its rules file, where the
// rows hold any (bench/mpi_tuning.sh); "" otherwise.
std::string open_mpi_sections(const std::vector<Measurement>& rows);

// A share as the prose writes it: 0.2 is "20%", 0.125 "12.5%".
std::string percent(double share);

}  // namespace commlab
