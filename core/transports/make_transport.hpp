// Which transport a run gets, built in one place: Comm is handed
// make_transport (core/comm/transport.hpp: MakeTransport), the in-process
// harness make_signalled over its threads.
#pragma once
#include <mpi.h>

#include <chrono>
#include <memory>

#include "direct_transport.hpp"

namespace commlab {

// The direct transport over `control` (MPI, or the threads'), its messages
// through `regions`, copies by `mem`, signalled by the host or the device. A
// wait longer than `timeout` fails naming the rank and what it waited for.
std::unique_ptr<DirectTransport> make_signalled(
    Signals signals, Transport& control, Regions& regions, Memory& mem,
    std::chrono::milliseconds timeout = std::chrono::seconds(60));

// The direct transport among `comm`'s ranks, which direct_unavailable()
// said can: MPI-3 shared memory for host buffers, CUDA IPC for `mem` on the GPU.
std::unique_ptr<Transport> make_direct_transport(MPI_Comm comm, Memory& mem, Signals signals);

// A Comm's transport of `kind` over `comm` (MakeTransport): direct access, or MPI.
std::unique_ptr<Transport> make_transport(MPI_Comm comm, Memory& mem, TransportKind kind,
                                          Signals signals);

}  // namespace commlab
