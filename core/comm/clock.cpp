#include "clock.hpp"

#include <cmath>

namespace commlab {

namespace {

bool wtime_is_global(MPI_Comm comm) {
  int* value = nullptr;
  int found = 0;
  MPI_Comm_get_attr(comm, MPI_WTIME_IS_GLOBAL, &value, &found);
  int mine = found && value && *value ? 1 : 0, all = 0;
  // The attribute may differ between ranks' views; global only if every rank says so.
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm);
  return all == 1;
}

}  // namespace

ClockOffset offset_to_rank0(MPI_Comm comm, int pings) {
  if (wtime_is_global(comm)) return {0, 0, true};
  int me = 0, P = 1;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &P);
  ClockOffset best;
  best.error_s = me == 0 ? 0 : INFINITY;
  for (int r = 1; r < P; ++r)
    for (int k = 0; k < pings; ++k) {
      if (me == 0) {
        MPI_Recv(nullptr, 0, MPI_BYTE, r, 1, comm, MPI_STATUS_IGNORE);
        double now = MPI_Wtime();
        MPI_Send(&now, 1, MPI_DOUBLE, r, 1, comm);
      } else if (me == r) {
        double t0 = MPI_Wtime(), theirs = 0;
        MPI_Send(nullptr, 0, MPI_BYTE, 0, 1, comm);
        MPI_Recv(&theirs, 1, MPI_DOUBLE, 0, 1, comm, MPI_STATUS_IGNORE);
        double t1 = MPI_Wtime();
        if ((t1 - t0) / 2 < best.error_s) best = {theirs - (t0 + t1) / 2, (t1 - t0) / 2, false};
      }
    }
  return best;
}

}  // namespace commlab
