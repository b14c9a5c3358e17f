// report --rules FOLDER: Open MPI's dynamic rules file or MPICH's JSON (harness/tuned.hpp)
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

// MPICH's JSON tuning file (MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE): MPICH
// 4.0.2's own selection with the measured calls' branches replaced, by the
// same rule; JSON takes no comments, so the evidence comes apart (and in
// each forced algorithm's value, which MPICH does not read).
struct RulesText {
  std::string file, evidence;
};
RulesText mpich_rules(const std::vector<Measurement>& rows, const std::string& source);
// One line for stderr where the rows come from a single launch, else "".
std::string one_launch_warning(const std::vector<Measurement>& rows);
// The rules of the library the rows ran on (their mpi_version): Open MPI's
// (evidence in the file) or MPICH's. Throws where the rows mix the two.
RulesText library_rules(const std::vector<Measurement>& rows, const std::string& source);

}  // namespace commlab
