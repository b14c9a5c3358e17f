// report --rules FOLDER: Open MPI's dynamic rules file (harness/tuned.hpp)
// from the rows of a sweep that forced each of its algorithms in turn
// (--mpi-algorithm) beside its default: for each MPI call, P and size, the
// default unless a forced algorithm is faster beyond the noise.
#pragma once
#include <string>
#include <vector>

#include "rows.hpp"

namespace commlab {

// The file's text; `source` is named in its opening comment. Throws
// ReportError where no row forced an Open MPI algorithm.
std::string open_mpi_rules(const std::vector<Measurement>& rows, const std::string& source);

}  // namespace commlab
