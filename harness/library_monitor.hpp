// What the MPI library itself sends inside one of its collectives, message by
// message. Open MPI's monitoring component (the pml "monitoring", enabled
// with pml_monitoring_enable) sees every message the library hands to its
// point-to-point layer, its collectives' internal ones included, and reports
// each to one function of its common library. Its own counters can only be
// read from files written at MPI_Finalize (the MPI_T variables meant for
// them are not registered in 4.1: open-mpi/ompi#9260), so this program
// defines that function itself, keeps what it is told while a window is
// open, and passes every call on to Open MPI's, whose files stay right.
//
// Only Open MPI's monitoring calls that function: on another MPI, or with the
// monitoring off, the window stays empty and library_counting() says so.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <vector>

namespace commlab {

// One message the library sent: to which rank of MPI_COMM_WORLD, how many bytes.
struct LibrarySend {
  int to;
  uint64_t bytes;
};

// Opens the window (forgetting what came before).
void library_window_open();
// Closes it and returns what this rank sent while it was open, in order.
std::vector<LibrarySend> library_window_close();

// Whether the monitoring reports messages on every rank of `comm`: one
// barrier watched (collective; at P = 1, where nothing is sent, true).
bool library_counting(MPI_Comm comm);

}  // namespace commlab
