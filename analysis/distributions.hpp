// The report's distributions: for each all-reduce row, where its timed
// iterations lie (the median with its 95% interval, p90, p99), how many are
// outliers by Tukey's rule (beyond 1.5 interquartile ranges from the
// quartiles), and which rank was slowest how often: from the rows' own
// summary columns, and from the iterations themselves where the folder has
// them (--times; the sweep's iterations.csv).
#pragma once
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "rows.hpp"

namespace commlab {

// Each row's iterations, as the time of the slowest rank in each (the call's
// time), keyed as a row is: program, algorithm, impl, dtype, op, count, P,
// host, date.
using IterationKey = std::tuple<std::string, std::string, std::string, std::string, std::string,
                                uint64_t, int, std::string, std::string>;
using Iterations = std::map<IterationKey, std::vector<double>>;
IterationKey iteration_key(const Measurement& m);

// A --times file (ReportError naming the file where it cannot be read).
Iterations read_iterations(const std::string& path);

// Tukey's outliers: how many of `t` lie beyond 1.5 IQR of the quartiles.
size_t outliers(std::vector<double> t);

// The section, "" where no row has a distribution to show.
std::string distributions(const std::vector<Measurement>& rows, const Iterations& iterations);

}  // namespace commlab
