// The direct transport's regions between processes on one node
// (mpi_regions.cpp): MPI-3 shared memory for host buffers, CUDA IPC for GPU
// buffers, and the checks that say why they cannot be had.
#pragma once
#include <mpi.h>

#include <memory>
#include <string>
#include <vector>

#include "direct_transport.hpp"

namespace commlab {

// Collective: why the ranks of `comm` cannot map each other's memory (not
// all on one node), or "" (mpi_regions.cpp).
std::string direct_unavailable(MPI_Comm comm);
// Collective, GPU buffers: why this rank cannot read its peers' GPU memory,
// or "": a probe region opened by CUDA IPC, then read for real from every
// peer, by a copy and by the reduction kernel, each within a deadline.
// `gpus`: every rank's GPU by its PCI address, for the message.
std::string gpu_peers_unmappable(MPI_Comm comm, const std::vector<std::string>& gpus);

// Collective: the regions of `comm`'s ranks, on the GPU or on the host.
std::unique_ptr<Regions> make_mpi_regions(MPI_Comm comm, bool on_gpu);

}  // namespace commlab
