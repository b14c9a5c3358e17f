// The table every collective program prints: its header lines (what ran,
// where, on which MPI and GPU), the column heads, and a line per row.
#pragma once
#include <string>
#include <vector>

#include "core/options.hpp"
#include "core/results.hpp"

namespace commlab {

// `gpu_line`: the "# GPU: ..." line, or empty on the host.
void print_heading(const RunInfo& info, const Options& opts, const std::string& gpu_line);
// Each row's line, and its note under it when it has one.
void print_rows(const std::vector<Row>& rows);

}  // namespace commlab
