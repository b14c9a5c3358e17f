#include "devices.hpp"

#include <fmt/format.h>

#include <map>

#include "core/device.hpp"
#include "core/direct_transport.hpp"
#include "core/errors.hpp"
#include "core/reduce.hpp"
#include "core/transport.hpp"
#include "host.hpp"

namespace commlab {

namespace {

// --transport as asked, or the one this MPI can do; one line where it cannot.
TransportKind choose_transport(MPI_Comm comm, const Options& opts) {
  const bool aware = mpi_is_cuda_aware();
  const TransportKind t =
      opts.transport.value_or(aware ? TransportKind::cuda_aware : TransportKind::staged);
  std::string error;
  if (t == TransportKind::cuda_aware && !aware)
    error = fmt::format(
        "--transport cuda-aware: {} is not CUDA-aware (MPIX_Query_cuda_support() is 0); use "
        "--transport staged",
        mpi_version());
  agree_or_exit(comm, error);
  return t;
}

}  // namespace

GpuSharing gpu_sharing(const Nodes& nodes, const std::vector<std::string>& gpus) {
  GpuSharing fullest;
  for (int n = 0; n < nodes.count(); ++n) {
    std::map<std::string, int> on;  // GPU -> its ranks
    for (int r : nodes.ranks_on(n)) ++on[gpus.at(r)];
    for (const auto& [gpu, ranks] : on)
      if (ranks > fullest.most_on_one)
        fullest = {ranks, int(nodes.ranks_on(n).size()), int(on.size())};
  }
  return fullest;
}

DeviceSetup set_up_device(MPI_Comm comm, const Options& opts, const Nodes& nodes) {
  DeviceSetup d;
  if (opts.transport == TransportKind::direct) {
    agree_or_exit(comm, direct_unavailable(comm));
    d.transport = TransportKind::direct;
    d.direct_line =
        fmt::format("# transport direct: ranks read each other's registered memory ({})",
                    opts.device == Device::cuda ? "CUDA IPC" : "MPI shared memory");
    d.buffers = opts.registered ? "buffers registered (--registered)"
                                : "private buffers: what peers read is copied to registered memory "
                                  "inside the timed call";
  }
  if (opts.device != Device::cuda) return d;
  agree_or_exit(comm, gpu::unavailable_reason());
  int me = 0;
  MPI_Comm_rank(comm, &me);
  const NodePlace place = place_on_node(nodes, me);
  gpu::select(place.rank);  // ranks on a node take its GPUs in turn
  const std::vector<std::string> gpus = gather_words(comm, gpu::bus_id());
  d.transport = choose_transport(comm, opts);
  if (d.transport == TransportKind::direct) agree_or_exit(comm, gpu_peers_unmappable(comm, gpus));
  const GpuSharing sharing = gpu_sharing(nodes, gpus);
  d.nccl_note = Nccl::unavailable_reason(sharing.ranks, sharing.gpus);
  if (d.nccl_note.empty()) {
    d.nccl = std::make_unique<Nccl>(comm);
    d.nccl_note = Nccl::version() + ", one GPU per rank";
  } else {
    d.nccl_note = "no NCCL rows: " + d.nccl_note;
  }
  d.gpu_line =
      fmt::format("# GPU: {}; transport {}; {}\n", gpu::describe(), name(d.transport), d.nccl_note);
  return d;
}

LibraryStaging::LibraryStaging(TransportKind transport, const Buffer& in, Buffer& out)
    : in_(in), out_(out) {
  if (in.where() == Device::host ||
      (transport == TransportKind::cuda_aware && !mpi_reduces_on_host(in.dtype())))
    return;
  host_in_.emplace(Buffer::page_locked(in.dtype(), in.count()));
  host_out_.emplace(Buffer::page_locked(out.dtype(), out.count()));
}

void LibraryStaging::run(bool in_place,
                         const std::function<void(const void* in, void* out)>& call) {
  if (!host_out_) return call(in_place ? out_.data() : in_.data(), out_.data());
  if (in_place)
    host_out_->copy_from(out_);
  else
    host_in_->copy_from(in_);
  call(in_place ? host_out_->data() : host_in_->data(), host_out_->data());
  out_.copy_from(*host_out_);
}

}  // namespace commlab
