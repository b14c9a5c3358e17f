// ps_sim: trains a small real model with synchronous SGD through a parameter
// server, colocated servers or an all-reduce, and measures every byte and
// every phase of an iteration. One run, one row (table and --csv).
#include <mpi.h>

#include "cli.hpp"
#include "core/comm/errors.hpp"
#include "harness/program.hpp"
#include "measure.hpp"
#include "report.hpp"

using namespace commlab;
using namespace commlab::ps;

namespace {

struct Outputs {
  LinesFile csv, loss_csv;
};

// On rank 0, before any training, so that a file that cannot be written
// costs nothing; agreed on, like a bad flag.
void open_outputs(Comm& comm, const Settings& s, Outputs& out) {
  std::string error;
  if (comm.rank() == 0) try {
      if (!s.csv.empty()) out.csv = LinesFile(s.csv, csv_header(report_schema()), "--csv");
      if (!s.loss_csv.empty())
        out.loss_csv = LinesFile(s.loss_csv, csv_header(loss_schema()), "--loss-csv");
    } catch (const UsageError& e) {
      error = e.what();
    }
  agree_or_exit(comm.mpi(), error);
}

int train_and_report(const Settings& s, Comm& comm, const Nodes&) {
  Outputs out;
  open_outputs(comm, s, out);
  Report r = start_report(s.cfg);
  if (comm.rank() == 0) print_heading(r);
  const Measurement m = measure(comm, s.cfg, s.shards);
  int exit_code = 0;
  if (comm.rank() == 0) {
    finish_report(r, s, m, comm.size());
    print_row(r);
    out.csv.append_lines(csv_line(report_schema(), r));
    out.loss_csv.append_lines(loss_lines(r));
    exit_code = r.check == Check::fail ? kExitWrong : 0;
  }
  MPI_Bcast(&exit_code, 1, MPI_INT, 0, comm.mpi());
  return exit_code;
}

}  // namespace

int main(int argc, char** argv) {
  return run_program<Settings>(argc, argv, parse_settings, train_and_report);
}
