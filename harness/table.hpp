// Where a collective program's rows go: the table on rank 0's stdout (its
// header lines: what ran, where, on which MPI and GPU; the column heads; a
// line per row), and the --csv and --json files.
#pragma once
#include <mpi.h>

#include <string>
#include <vector>

#include "options.hpp"
#include "results.hpp"

namespace commlab {

class RowWriter {
 public:
  // Collective: opens the files on rank 0 before anything is measured; one
  // that cannot be written ends every rank with one line and exit 2.
  RowWriter(MPI_Comm comm, const Options& opts);
  // Rank 0 prints the header lines and the column heads. `device_lines`: the
  // "# GPU: ..." and "# transport direct: ..." lines, or empty on the host over MPI.
  void heading(const RunInfo& info, const std::string& device_lines) const;
  // Rank 0 prints each row's line (and its note under it) and appends the
  // rows to the files, each file in one write.
  void emit(const std::vector<Row>& rows);

 private:
  const Options& opts_;
  int rank_ = 0;
  LinesFile csv_, json_, times_;
};

}  // namespace commlab
