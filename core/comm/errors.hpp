// Bad input must end every rank with one line and exit status 2, never a hang.
#pragma once
#include <mpi.h>

#include <string>

#include "core/vocabulary/usage_error.hpp"

namespace commlab {

// MPI_Init, with an error handler that turns any MPI failure into one line
// ("error: rank R: MPI: ...") and an abort of the whole job, instead of
// Open MPI's default silent exit under mpirun -q.
void init_mpi(int* argc, char*** argv);

// Collective: the lowest rank's non-empty text, on every rank ("" when all
// are empty), prefixed with "rank R: " when it is not rank 0's.
std::string first_text(MPI_Comm comm, const std::string& mine);

// Collective: every rank says whether it is fine. If any is not, rank 0 prints
// the lowest failing rank's message and every rank finalizes and exits 2, so an
// error seen on one rank (a CSV path, a missing GPU) never strands the others.
void agree_or_exit(MPI_Comm comm, const std::string& error_or_empty);

}  // namespace commlab
