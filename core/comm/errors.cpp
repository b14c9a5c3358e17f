#include "errors.hpp"

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace commlab {

namespace {
void on_mpi_error(MPI_Comm* comm, int* code, ...) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0, rank = 0;
  MPI_Error_string(*code, text, &len);
  MPI_Comm_rank(*comm, &rank);
  std::fprintf(stderr, "error: rank %d: MPI: %s\n", rank, text);
  std::fflush(stderr);
  MPI_Abort(*comm, kExitWrong);
}
}  // namespace

void init_mpi(int* argc, char*** argv) {
  MPI_Init(argc, argv);
  MPI_Errhandler handler;
  MPI_Comm_create_errhandler(on_mpi_error, &handler);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, handler);
}

std::string first_text(MPI_Comm comm, const std::string& mine) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int me = mine.empty() ? size : rank, first = size;
  MPI_Allreduce(&me, &first, 1, MPI_INT, MPI_MIN, comm);
  if (first == size) return "";
  std::vector<char> text(400, '\0');
  if (rank == first) mine.copy(text.data(), text.size() - 1);
  MPI_Bcast(text.data(), static_cast<int>(text.size()), MPI_CHAR, first, comm);
  return (first == 0 ? "" : "rank " + std::to_string(first) + ": ") + text.data();
}

void agree_or_exit(MPI_Comm comm, const std::string& error) {
  std::string message = first_text(comm, error);
  if (message.empty()) return;
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  if (rank == 0) std::fprintf(stderr, "error: %s\n", message.c_str());
  MPI_Finalize();
  std::exit(kExitUsage);
}

}  // namespace commlab
