// The MPI transports (mpi_transport.cpp): host buffers, GPU buffers read by a
// CUDA-aware MPI, and GPU buffers staged through pinned host memory.
#pragma once
#include <mpi.h>

#include <memory>

#include "core/comm/transport.hpp"

namespace commlab {

// MPIX_Query_cuda_support(): whether this MPI reads device memory itself.
bool mpi_is_cuda_aware();

// The MPI transport of this kind over `comm`, its buffers in `mem`.
std::unique_ptr<Transport> make_mpi_transport(MPI_Comm comm, TransportKind kind, Memory& mem);

}  // namespace commlab
