// Memory admission: before anything is allocated, whether the ranks' buffers
// fit the node's memory and its GPUs, so that a size too large is refused
// with one line instead of an out-of-memory kill half way through a sweep.
#pragma once
#include <mpi.h>

#include <string>

#include "core/comm/nodes.hpp"

namespace commlab {

// What one rank will hold at most, in bytes: in host memory, and on its GPU.
// Doubles, so a sum of absurd sizes is a huge number, never a wrapped small one.
struct Footprint {
  double host_B = 0, gpu_B = 0;
};

// Collective: empty, or why the ranks would not fit: the host bytes of the
// ranks on each node against its memory; the GPU bytes of the ranks that
// share a GPU (they take the node's GPUs in turn) against the smallest GPU's.
std::string memory_problem(MPI_Comm comm, const Nodes& nodes, const Footprint& mine);

}  // namespace commlab
