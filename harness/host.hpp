// Where and when a program runs, as every row and header says it: the MPI
// library, the date, the host, this build, where the ranks were placed; and
// the launch that is not one MPI job.
#pragma once
#include <mpi.h>

#include <string>
#include <vector>

#include "results.hpp"

namespace commlab {

std::string mpi_version();  // the library's own line, e.g. "Open MPI v4.1.4"
std::string utc_now();
std::string hostname();
constexpr int kHostnameMax = 256;  // bytes of a host name, gathered
// Every rank's `mine` (a host name, a GPU's address; cut to kHostnameMax - 1
// bytes), in rank order (collective).
std::vector<std::string> gather_words(MPI_Comm comm, const std::string& mine);
// Every rank's host, as nodes and ranks per node (collective).
Placement gather_placement(MPI_Comm comm);
// Empty, or why this launch is not one MPI job: srun started several tasks
// and MPI sees one rank in each (the plugin does not match this MPI).
std::string misread_launch();

// What else rank 0's node is doing (collective): every rank sleeps for a
// moment while rank 0 reads /proc/stat before and after; the share of the
// node's CPU time spent busy then, 0 to 1, is other work's (ours slept).
// Also the node's cores. 0 and the cores where /proc/stat cannot be read.
struct Load {
  double busy = 0;
  int cores = 1;
};
Load load_at_start(MPI_Comm comm);

// Each rank's line, printed by rank 0 in rank order (collective).
void print_in_rank_order(MPI_Comm comm, const std::string& line);

}  // namespace commlab
