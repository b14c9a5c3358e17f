// Where a program's buffers live and how they travel, chosen once: with -d
// cuda, this rank's GPU (ranks on a node take its GPUs in turn; several may
// share one), the transport (CUDA-aware where the MPI is, staged otherwise,
// or as --transport says), and NCCL where every rank has a GPU of its own.
// And how a library call reaches GPU buffers through an MPI that cannot.
#pragma once
#include <mpi.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "buffer.hpp"
#include "core/comm/nodes.hpp"
#include "core/comm/transport.hpp"
#include "core/device/nccl.hpp"
#include "core/vocabulary/types.hpp"
#include "options.hpp"

namespace commlab {

struct DeviceSetup {
  TransportKind transport = TransportKind::host;
  Signals signals = Signals::host;  // over direct access: who writes and polls the flags
  int ranks_per_gpu = 0;            // the most ranks on one GPU; 0 on the host
  std::unique_ptr<Nccl> nccl;       // null: no NCCL rows (nccl_note says why)
  std::string nccl_note;
  std::string gpu_line;     // "# GPU: ...\n"; empty on the host
  std::string direct_line;  // "# transport direct: ..." without its buffers, or empty
  std::string buffers;      // on the direct transport: private or registered, and what that costs
  // The header's lines: a barrier has no buffers to speak of.
  std::string heading(bool has_data) const {
    if (direct_line.empty()) return gpu_line;
    return gpu_line + direct_line + (has_data ? "; " + buffers : "") + "\n";
  }
};

// Collective. A GPU that is missing or a transport the MPI cannot do ends
// every rank with one line and exit 2. `nodes`: the ranks' real nodes.
DeviceSetup set_up_device(MPI_Comm comm, const Options& opts, const Nodes& nodes);

// COMMLAB_DIRECT_SIGNAL: host or device forces who signals over direct
// access (docs/direct.md), so that a GPU measurement can fall back without a
// rebuild; unset or empty, the programs choose. UsageError on anything else.
std::optional<Signals> signals_from_env();

// Whether the MPS control daemon is running: its `control` pipe in
// CUDA_MPS_PIPE_DIRECTORY (default /tmp/nvidia-mps), where CUDA processes
// look for it (docs/gpu.md). Under MPS the kernels of ranks sharing a GPU
// run at the same time; without it they take turns.
bool mps_running();

// How ranks share GPUs, from every rank's GPU by PCI address: what tells
// ranks that each see "device 0" (CUDA_VISIBLE_DEVICES per rank) on one GPU
// from ranks on GPUs of their own. The memory check takes the most ranks on
// one GPU; NCCL, which needs a GPU per rank, that GPU's node.
struct GpuSharing {
  int most_on_one = 1;      // ranks on the fullest GPU
  int ranks = 1, gpus = 1;  // on its node: ranks, and distinct GPUs
};
GpuSharing gpu_sharing(const Nodes& nodes, const std::vector<std::string>& gpus);

// A library call on GPU buffers through an MPI that cannot read them (the
// staged transport, or 16-bit floats, which MPI reduces on the host): it runs
// on page-locked host copies, and the copies are timed with it, as a user
// without a CUDA-aware MPI would pay them. Otherwise it calls straight through.
class LibraryStaging {
 public:
  LibraryStaging(TransportKind transport, const Buffer& in, Buffer& out);
  // call(in, out); in place, `out` is both and `in` is not read.
  void run(bool in_place, const std::function<void(const void* in, void* out)>& call);

 private:
  const Buffer& in_;
  Buffer& out_;
  std::optional<Buffer> host_in_, host_out_;
};

}  // namespace commlab
