// The lifecycle every program shares (the collectives, ps_sim): MPI_Init
// with errors as one line; the launch checked (srun's plugin); the flags
// parsed and validated against P on every rank alike; --help; memory
// admission; then the measurement. Bad input ends every rank with exit 2 and
// one line; an exception on one rank aborts them all with one line.
#pragma once
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>

#include "admission.hpp"
#include "core/comm/comm.hpp"
#include "core/comm/errors.hpp"
#include "core/comm/nodes.hpp"
#include "core/transports/make_transport.hpp"
#include "core/vocabulary/failures.hpp"

namespace commlab {

// What a program's flags came to on this rank: `help` to print and stop,
// or settings to run with, and what this rank will hold at most.
template <class Settings>
struct Parse {
  std::optional<Settings> settings;  // none: print `help` and stop
  std::string help;
  Footprint footprint;
};

// Runs one program: `parse` (throwing UsageError on bad input) gets argv and
// P and this rank; `run` the validated settings, the Comm and the ranks'
// nodes, and returns the exit status (the same on every rank).
template <class Settings>
int run_program(int argc, char** argv,
                const std::function<Parse<Settings>(int argc, char** argv, int P, int rank)>& parse,
                const std::function<int(const Settings&, Comm&, const Nodes&)>& run);

// The parts of it that are not templates (program.cpp).
void start_mpi(int* argc, char*** argv);
void print_help(Comm& comm, const std::string& help);
// An exception on one rank: one line, and the whole job aborted.
[[noreturn]] void abort_all(Comm& comm, const std::exception& e);
int finish(int rc);

template <class Settings>
int run_program(int argc, char** argv,
                const std::function<Parse<Settings>(int argc, char** argv, int P, int rank)>& parse,
                const std::function<int(const Settings&, Comm&, const Nodes&)>& run) {
  start_mpi(&argc, &argv);
  Comm comm(MPI_COMM_WORLD, make_transport);
  Parse<Settings> parsed;
  std::string error;
  try {
    parsed = parse(argc, argv, comm.size(), comm.rank());
  } catch (const UsageError& e) {
    error = e.what();
  }
  agree_or_exit(comm.mpi(), error);
  if (!parsed.settings) {
    print_help(comm, parsed.help);
    return finish(0);
  }
  Nodes nodes = nodes_of(comm.mpi());
  agree_or_exit(comm.mpi(), place_on_network(comm.mpi(), nodes));
  agree_or_exit(comm.mpi(), memory_problem(comm.mpi(), nodes, parsed.footprint));
  int rc = 0;
  try {
    rc = run(*parsed.settings, comm, nodes);
  } catch (const std::exception& e) {  // e.g. out of memory on one rank: stop them all
    abort_all(comm, e);
  } catch (const OtherRankFailed&) {  // a wait that saw another rank's failure: its line says why
    abort_all(comm, std::runtime_error("stopped: another rank failed first (its error says why)"));
  }
  comm.reset();  // what a transport holds (the direct transport's shared windows) goes before MPI
                 // does
  return finish(rc);
}

}  // namespace commlab
