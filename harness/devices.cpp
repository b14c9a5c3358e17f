#include "devices.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <map>

#include "core/comm/errors.hpp"
#include "core/comm/transport.hpp"
#include "core/device/device.hpp"
#include "core/device/reduce.hpp"
#include "core/transports/mpi_regions.hpp"
#include "core/transports/mpi_transport.hpp"
#include "core/vocabulary/usage_error.hpp"
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

// Over direct access: the device signals where every rank's kernels run at
// once (a GPU each, or MPS), the host elsewhere, unless the environment says.
Signals choose_signals(const Options& opts, bool concurrent) {
  if (auto forced = signals_from_env()) return *forced;
  return opts.device == Device::cuda && concurrent ? Signals::device : Signals::host;
}

std::string signals_text(Signals s, bool gpu) {
  if (!gpu)
    return s == Signals::device ? "signals: device (the signal pads, run by the host)"
                                : "signals: host";
  return s == Signals::device
             ? "signals: device (a call is one kernel, its device program, that waits and "
               "signals; one launch and one host wait a call)"
             : "signals: host (the host waits for the GPU and signals at each step)";
}

// The heading's words on how the ranks share GPUs, and a warning where they
// share one without MPS: every kernel then waits for a context switch.
std::string sharing_text(const GpuSharing& sharing, bool mps, std::string& warning) {
  if (sharing.most_on_one == 1) return "a GPU per rank";
  if (!mps)
    warning = fmt::format(
        "# warning: {} ranks share one GPU without MPS: their kernels take turns, a context "
        "switch each (0.3 to 1 ms measured on an H200); start the daemon first: "
        "nvidia-cuda-mps-control -d (docs/gpu.md)\n",
        sharing.most_on_one);
  return fmt::format("{} ranks share a GPU, MPS {}", sharing.most_on_one,
                     mps ? "running" : "not running");
}

}  // namespace

std::optional<Signals> signals_from_env() {
  const char* v = std::getenv("COMMLAB_DIRECT_SIGNAL");
  if (!v || !*v) return std::nullopt;
  const std::string s = v;
  if (s == "host") return Signals::host;
  if (s == "device") return Signals::device;
  throw UsageError("COMMLAB_DIRECT_SIGNAL '" + s + "': use host or device (or leave it unset)");
}

namespace {

std::string mps_pipe() {
  const char* dir = std::getenv("CUDA_MPS_PIPE_DIRECTORY");
  return std::string(dir && *dir ? dir : "/tmp/nvidia-mps") + "/control";
}

}  // namespace

bool mps_running() {
  struct stat st {};
  return stat(mps_pipe().c_str(), &st) == 0 && S_ISFIFO(st.st_mode);
}

namespace {

std::string signals_differ(MPI_Comm comm, Signals mine) {
  const int s = mine == Signals::device ? 1 : 0;
  int lo = 0, hi = 0;
  MPI_Allreduce(&s, &lo, 1, MPI_INT, MPI_MIN, comm);
  MPI_Allreduce(&s, &hi, 1, MPI_INT, MPI_MAX, comm);
  return lo == hi ? ""
                  : "the ranks chose different signalling (host on some, device on others): "
                    "COMMLAB_DIRECT_SIGNAL must be set alike on every rank, or on none";
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
  if (opts.device != Device::cuda) {
    d.signals = choose_signals(opts, false);
    agree_or_exit(comm, signals_differ(comm, d.signals));
    if (d.transport == TransportKind::direct)
      d.direct_line += "; " + signals_text(d.signals, false);
    return d;
  }
  agree_or_exit(comm, gpu::unavailable_reason());
  int me = 0;
  MPI_Comm_rank(comm, &me);
  const NodePlace place = place_on_node(nodes, me);
  gpu::select(place.rank);  // ranks on a node take its GPUs in turn
  const std::vector<std::string> gpus = gather_words(comm, gpu::bus_id());
  d.transport = choose_transport(comm, opts);
  if (d.transport == TransportKind::direct) agree_or_exit(comm, gpu_peers_unmappable(comm, gpus));
  const GpuSharing sharing = gpu_sharing(nodes, gpus);
  d.ranks_per_gpu = sharing.most_on_one;
  gpu::share_with(int(std::count(gpus.begin(), gpus.end(), gpus[me])));
  // MPS as the device says, on every rank: where one rank's context is not
  // shared (a daemon that died, an environment set on some ranks only), no
  // rank's kernels may wait for another's.
  const int mine = gpu::mps_enabled() ? 1 : 0;
  int every = 0;
  MPI_Allreduce(&mine, &every, 1, MPI_INT, MPI_MIN, comm);
  const bool mps = every == 1;
  std::string warning;
  const std::string shared = sharing_text(sharing, mps, warning);
  if (!mps && sharing.most_on_one > 1 && mps_running())
    warning += "# warning: an MPS pipe is there (" + mps_pipe() +
               ") but the GPU says this context is not shared through MPS: a daemon that died "
               "left it? restart it: nvidia-cuda-mps-control -d\n";
  d.signals = choose_signals(opts, sharing.most_on_one == 1 || mps);
  agree_or_exit(comm, signals_differ(comm, d.signals));
  if (d.transport == TransportKind::direct) d.direct_line += "; " + signals_text(d.signals, true);
  d.nccl_note = Nccl::unavailable_reason(sharing.ranks, sharing.gpus);
  if (d.nccl_note.empty()) {
    d.nccl = std::make_unique<Nccl>(comm);
    d.nccl_note = Nccl::version() + ", one GPU per rank";
  } else {
    d.nccl_note = "no NCCL rows: " + d.nccl_note;
  }
  d.gpu_line = fmt::format("# GPU: {}; {}; transport {}; {}\n{}", gpu::describe(), shared,
                           name(d.transport), d.nccl_note, warning);
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
