// The report of a results folder: checks, traffic against the taught
// formulas, the alpha-beta fit of every algorithm, and each hand-written
// algorithm against the library, as Markdown.
#pragma once
#include <string>
#include <vector>

#include "rows.hpp"

namespace commlab {

// `failed_cells`: sweep cells that did not finish (cells.tsv), listed under the checks.
std::string make_report(const std::vector<Measurement>& rows, const std::string& title,
                        const std::vector<std::string>& failed_cells = {});

// choice.cpp: per P and size, the fastest all-reduce algorithm measured
// beside the time model's pick and the crossovers; -a auto over
// MPI_Allreduce in each run (rows of one run share their date) and the median.
std::string fastest_allreduce(const std::vector<Measurement>& rows);
std::string auto_against_library(const std::vector<Measurement>& rows);

// "4 B", "16 KiB", "64 MiB".
std::string human_bytes(uint64_t bytes);

}  // namespace commlab
