#include "program.hpp"

#include <fmt/format.h>

#include "core/errors.hpp"
#include "host.hpp"

namespace commlab {

void start_mpi(int* argc, char*** argv) {
  init_mpi(argc, argv);
  agree_or_exit(MPI_COMM_WORLD, misread_launch());
}

void print_help(Comm& comm, const std::string& help) {
  if (comm.rank() == 0) fmt::print("{}", help);
}

void abort_all(Comm& comm, const std::exception& e) {
  fmt::print(stderr, "error: rank {}: {}\n", comm.rank(), e.what());
  std::fflush(stderr);
  MPI_Abort(comm.mpi(), kExitWrong);
  std::abort();  // MPI_Abort does not return
}

int finish(int rc) {
  MPI_Finalize();
  return rc;
}

}  // namespace commlab
