// Every rank's clock put on rank 0's, so that times read on different ranks
// (when each arrived at a barrier, when each left it) can be compared: where
// the MPI library says MPI_Wtime is global (MPI_WTIME_IS_GLOBAL), as it is;
// otherwise by Cristian's method (Cristian 1989, "Probabilistic clock
// synchronization"): rank 0 reads its clock between a rank's send and that
// rank's receive, so the best of a few ping-pongs gives the offset to within
// half its round trip.
#pragma once
#include <mpi.h>

namespace commlab {

struct ClockOffset {
  double to_rank0_s = 0;  // rank 0's clock = mine + to_rank0_s ...
  double error_s = 0;     // ... within this (0 on rank 0, and where the clock is global)
  bool global = false;    // the library's MPI_WTIME_IS_GLOBAL
};

// Collective: this rank's offset, from the best of `pings` round trips.
ClockOffset offset_to_rank0(MPI_Comm comm, int pings = 5);

}  // namespace commlab
