// --show: a lecture's picture of one run. Each rank's buffer before and
// after, and the schedule step by step under its phases' names; with
// --steps, every rank's buffer after every step.
#pragma once
#include <mpi.h>

#include <vector>

#include "buffer.hpp"
#include "core/comm/recorder.hpp"

namespace commlab {

// "  before:" then each rank's buffer, in rank order (collective).
void show_buffers(MPI_Comm comm, const char* when, const Buffer& b);

// Rank 0 prints the gathered trace step by step under its phases' names,
// and, when `states` is not empty, each rank's buffer (of dtype) after every step.
void show_schedule(const std::vector<TraceEntry>& trace,
                   const std::vector<std::vector<Snapshot>>& states, DType dtype, size_t count,
                   int P);

}  // namespace commlab
