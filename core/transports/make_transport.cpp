#include "make_transport.hpp"

#include <stdexcept>
#include <utility>

#include "direct_device_signals.hpp"
#include "direct_host_signals.hpp"
#include "mpi_regions.hpp"
#include "mpi_transport.hpp"

namespace commlab {

std::unique_ptr<DirectTransport> make_signalled(Signals signals, Transport& control,
                                                Regions& regions, Memory& mem,
                                                std::chrono::milliseconds timeout) {
  if (signals == Signals::device) {
    if (!regions.pad(0))
      throw std::logic_error("device-side signalling over regions without signal pads");
    return std::make_unique<DeviceSignalled>(control, regions, mem, timeout);
  }
  return std::make_unique<HostSignalled>(control, regions, mem, timeout);
}

std::unique_ptr<Transport> make_direct_transport(MPI_Comm comm, Memory& mem, Signals signals) {
  std::unique_ptr<Regions> regions = make_mpi_regions(comm, mem.on_gpu());
  std::unique_ptr<Transport> over_mpi = make_mpi_transport(comm, TransportKind::host, mem);
  std::unique_ptr<DirectTransport> direct = make_signalled(signals, *over_mpi, *regions, mem);
  direct->own(std::move(over_mpi), std::move(regions));
  return direct;
}

std::unique_ptr<Transport> make_transport(MPI_Comm comm, Memory& mem, TransportKind kind,
                                          Signals signals) {
  if (kind == TransportKind::direct) return make_direct_transport(comm, mem, signals);
  return make_mpi_transport(comm, kind, mem);
}

}  // namespace commlab
