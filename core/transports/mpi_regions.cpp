// The direct transport's regions between processes on one node. Host
// buffers: MPI-3 shared memory. MPI_Win_allocate_shared gives every rank a
// segment the others map (MPI_Win_shared_query says where); the ranks then
// load and store there without calling MPI. Two windows: the control block
// (rank 0's, fixed) and the regions (each rank's, grown as the shapes need).
// GPU buffers: CUDA IPC for the regions, the same control block.
#include "mpi_regions.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <cstring>
#include <stdexcept>

#include "core/device/device.hpp"
#include "direct_transport.hpp"

namespace commlab {

namespace {

// MPI aligns a shared segment only to 8 bytes; the control block's counters
// want their cache lines, and buffers any element type's vector loads.
constexpr size_t kAlign = 256;

// One shared window: `bytes` of this rank's, every rank's base as mapped
// here (aligned to kAlign; null where a rank has none).
struct SharedWindow {
  MPI_Win win = MPI_WIN_NULL;
  std::vector<char*> bases;

  SharedWindow(MPI_Comm comm, size_t bytes) {
    if (bytes) bytes += kAlign;
    int P = 0;
    MPI_Comm_size(comm, &P);
    MPI_Info info;
    MPI_Info_create(&info);
    // Each rank's segment on its own pages (near its own core), not one block.
    MPI_Info_set(info, "alloc_shared_noncontig", "true");
    char* mine = nullptr;
    const int rc = MPI_Win_allocate_shared(MPI_Aint(bytes), 1, info, comm, &mine, &win);
    MPI_Info_free(&info);
    if (rc != MPI_SUCCESS) throw std::runtime_error("MPI_Win_allocate_shared failed");
    bases.resize(P);
    for (int r = 0; r < P; ++r) {
      MPI_Aint size = 0;
      int unit = 0;
      char* at = nullptr;
      MPI_Win_shared_query(win, r, &size, &unit, &at);
      const uintptr_t p = reinterpret_cast<uintptr_t>(at);
      bases[r] = size ? reinterpret_cast<char*>((p + kAlign - 1) / kAlign * kAlign) : nullptr;
    }
  }
  ~SharedWindow() {
    if (win != MPI_WIN_NULL) MPI_Win_free(&win);
  }
  SharedWindow(const SharedWindow&) = delete;
  SharedWindow& operator=(const SharedWindow&) = delete;
};

// What host and GPU regions share: the ranks of `comm`, and the control
// block in host shared memory (rank 0's, written before anyone reads it).
class SharedControl : public Regions {
 public:
  explicit SharedControl(MPI_Comm comm) : comm_(comm) {
    MPI_Comm_rank(comm, &me_);
    MPI_Comm_size(comm, &P_);
    control_ = std::make_unique<SharedWindow>(comm, me_ == 0 ? control_bytes(P_) : 0);
    if (me_ == 0) init_control(control_->bases[0], P_);
    MPI_Barrier(comm);
  }
  int size() const override { return P_; }
  void* control() const override { return control_->bases[0]; }

 protected:
  MPI_Comm comm_;
  int me_ = 0, P_ = 0;

 private:
  std::unique_ptr<SharedWindow> control_;
};

class MpiRegions : public SharedControl {
 public:
  explicit MpiRegions(MPI_Comm comm)
      : SharedControl(comm),
        regions_(std::make_unique<SharedWindow>(comm, 0)),
        pads_(std::make_unique<SharedWindow>(comm, SignalPad::bytes(P_))) {
    std::memset(pads_->bases[me_], 0, SignalPad::bytes(P_));
    MPI_Barrier(comm);
  }
  char* base(int rank) const override { return regions_->bases.at(rank); }
  char* pad(int rank) const override { return pads_->bases.at(rank); }
  size_t bytes() const override { return bytes_; }
  void reserve(size_t bytes) override {
    if (bytes <= bytes_) return;
    MPI_Barrier(comm_);  // nobody still reads the old regions
    regions_.reset();
    regions_ = std::make_unique<SharedWindow>(comm_, bytes);
    bytes_ = bytes;
  }

 private:
  size_t bytes_ = 0;
  std::unique_ptr<SharedWindow> regions_, pads_;
};

// Thrown on a rank whose own part went well when another's did not (that
// rank says why).
struct AnotherRankFailed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// GPU buffers: each rank's region cudaMalloc'd, its IPC handle given to
// the others (MPI_Allgather), and opened by each (cudaIpcOpenMemHandle); the
// control block in host shared memory, as for host buffers.
class GpuRegions : public SharedControl {
 public:
  explicit GpuRegions(MPI_Comm comm) : SharedControl(comm), bases_(P_, nullptr), pads_(P_) {
    // Every rank's signal pad, zeroed before anyone signals through it.
    std::string error = map_every(SignalPad::bytes(P_), pads_);
    if (error.empty()) try {
        const std::vector<char> zeros(SignalPad::bytes(P_));
        gpu::copy(pads_[me_], zeros.data(), zeros.size());
        gpu::sync();
      } catch (const std::exception& e) {
        error = e.what();
      }
    if (!everyone(error.empty())) {
      if (error.empty()) throw AnotherRankFailed("another rank could not map its signal pad");
      throw std::runtime_error(error);
    }
  }
  ~GpuRegions() override {
    // This rank's reads done before it says so; another process's kernels
    // are waited for by no CUDA call, only by this barrier.
    if (!stalled_) try {
        gpu::sync();
      } catch (const std::exception&) {
      }
    MPI_Barrier(comm_);  // nobody still reads a region
    drop();
    unmap(pads_);
  }
  char* base(int rank) const override { return bases_.at(rank); }
  char* pad(int rank) const override { return pads_.at(rank); }
  size_t bytes() const override { return bytes_; }
  void reserve(size_t bytes) override {
    if (bytes <= bytes_) return;
    // Each step agreed by every rank before the next, so that a rank that
    // fails leaves none waiting in a collective it skipped.
    std::string error;
    try {
      gpu::sync();
    } catch (const std::exception& e) {
      error = e.what();
    }
    MPI_Barrier(comm_);  // nobody still reads the old regions
    drop();
    if (error.empty()) error = map_every(bytes, bases_);
    bytes_ = bytes;
    if (!everyone(error.empty())) {  // every rank has opened every region before any is freed
      if (error.empty()) throw AnotherRankFailed("another rank could not map its region");
      throw std::runtime_error(error);
    }
  }
  // A copy that never finished may still be reading the regions: every
  // rank leaves them to the process's end rather than free them under it
  // (the collectives still run).
  void stalled() { stalled_ = true; }

 private:
  bool everyone(bool mine) {  // collective
    int ok = mine, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm_);
    return all;
  }
  // Collective: `bytes` of this rank's allocated and every peer's opened
  // into `bases`; "" or what failed here (every rank reaches every collective).
  std::string map_every(size_t bytes, std::vector<char*>& bases) {
    std::string error;
    gpu::IpcHandle mine{};
    try {
      bases[me_] = static_cast<char*>(gpu::alloc_shared(bytes, mine));
    } catch (const std::exception& e) {
      error = e.what();
    }
    if (!everyone(error.empty())) return error;
    std::vector<gpu::IpcHandle> all(P_);
    MPI_Allgather(&mine, sizeof mine, MPI_BYTE, all.data(), sizeof mine, MPI_BYTE, comm_);
    for (int r = 0; r < P_ && error.empty(); ++r) try {
        if (r != me_) bases[r] = static_cast<char*>(gpu::open_shared(all[r]));
      } catch (const std::exception& e) {
        error = e.what();
      }
    return error;
  }
  // Collective: the peers' mappings in `bases` closed everywhere before any
  // is freed; none where any rank's copy stalled.
  void unmap(std::vector<char*>& bases) {
    for (int r = 0; r < P_; ++r)
      if (r != me_ && bases[r] && !stalled_) gpu::close_shared(bases[r]), bases[r] = nullptr;
    MPI_Barrier(comm_);
    if (bases[me_] && !stalled_) gpu::release_shared(bases[me_]), bases[me_] = nullptr;
  }
  void drop() {
    stalled_ = !everyone(!stalled_);
    unmap(bases_);
    bytes_ = 0;
  }
  size_t bytes_ = 0;
  std::vector<char*> bases_, pads_;
  bool stalled_ = false;
};

// Opening a peer's handle does not prove its bytes can be read: across
// PCIe, ACS or an IOMMU between two GPUs can make peer reads return wrong
// bytes or never finish (NCCL's troubleshooting guide; vLLM copies for real
// before it enables its custom all-reduce). So every rank writes a pattern
// into its region and reads every peer's, by a copy and by the reduction
// kernel one_shot and two_shot read with, each within a deadline.
constexpr size_t kCheck_B = 4096;
constexpr double kCheckDeadline_s = 10;

unsigned char pattern_byte(int rank, size_t i) {
  return static_cast<unsigned char>(1 + (rank * 31 + i * 7) % 251);
}

// What the read queued into `got` found: "" when it brought the pattern
// `owner` wrote, waited for within the deadline.
std::string read_back(GpuRegions& regions, int owner, const unsigned char* got) {
  if (!gpu::sync_within(kCheckDeadline_s)) return regions.stalled(), "did not finish in 10 s";
  for (size_t i = 0; i < kCheck_B; ++i)
    if (got[i] != pattern_byte(owner, i)) return "gave wrong bytes";
  return "";
}

// Collective (one barrier, reached by every rank whatever fails): "" or what went wrong here.
std::string read_every_peer(MPI_Comm comm, GpuRegions& regions,
                            const std::vector<std::string>& gpus) {
  int me = 0, P = 1;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &P);
  std::vector<unsigned char> mine(kCheck_B);
  for (size_t i = 0; i < kCheck_B; ++i) mine[i] = pattern_byte(me, i);
  std::string error;
  try {
    gpu::copy(regions.base(me), mine.data(), kCheck_B);
    if (!gpu::sync_within(kCheckDeadline_s))
      regions.stalled(), error = "writing its own GPU's memory did not finish in 10 s";
  } catch (const std::exception& e) {
    error = std::string("writing its own GPU's memory: ") + e.what();
  }
  MPI_Barrier(comm);  // every pattern in place before any is read
  if (!error.empty()) return error;
  auto* got = static_cast<unsigned char*>(gpu::alloc_pinned(kCheck_B));
  char* scratch = regions.base(me) + kCheck_B;
  for (int r = 0; r < P && error.empty(); ++r)
    for (const bool by_kernel : {false, true}) {
      if (r == me || !error.empty()) break;
      std::string found;
      try {
        if (by_kernel)  // max(x, x) = x: the kernel's loads from the peer, bit for bit
          gpu::reduce_to(DType::int32, Op::max, scratch, regions.base(r), regions.base(r),
                         kCheck_B / 4);
        gpu::copy(got, by_kernel ? scratch : regions.base(r), kCheck_B);
        found = read_back(regions, r, got);
      } catch (const std::exception& e) {
        found = std::string("failed (") + e.what() + ")";
      }
      if (!found.empty())
        error = fmt::format(
            "reading rank {}'s memory (GPU {}) from GPU {} by {} {}: peer access between "
            "these GPUs does not work{}",
            r, gpus[r], gpus[me], by_kernel ? "the reduction kernel" : "a copy", found,
            found == "gave wrong bytes" ? " (on PCIe, ACS or an IOMMU between them can cause this)"
                                        : "");
    }
  if (error.empty()) gpu::release_pinned(got);  // else a copy may still be writing it
  return error;
}

}  // namespace

std::string gpu_peers_unmappable(MPI_Comm comm, const std::vector<std::string>& gpus) {
  int me = 0;
  MPI_Comm_rank(comm, &me);
  std::string error;
  try {
    GpuRegions regions(comm);
    regions.reserve(2 * kCheck_B);
    error = read_every_peer(comm, regions, gpus);
  } catch (const AnotherRankFailed&) {  // that rank says why
  } catch (const std::exception& e) {
    error = fmt::format("GPU {}: {}", gpus[me], e.what());
  }
  // agree_or_exit puts the rank before it (rank 0's goes without).
  return error.empty() ? "" : "--transport direct: " + error;
}

std::string direct_unavailable(MPI_Comm comm) {
  MPI_Comm node;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int P = 0, on_node = 0, all_here = 0;
  MPI_Comm_size(comm, &P);
  MPI_Comm_size(node, &on_node);
  MPI_Comm_free(&node);
  const int here = on_node == P;
  MPI_Allreduce(&here, &all_here, 1, MPI_INT, MPI_MIN, comm);
  if (all_here) return "";
  return fmt::format(
      "--transport direct: the {} ranks are not all on one node (this one shares memory with {}); "
      "direct access maps peers' memory, which only ranks on one node can",
      P, on_node);
}

std::unique_ptr<Regions> make_mpi_regions(MPI_Comm comm, bool on_gpu) {
  if (on_gpu) return std::make_unique<GpuRegions>(comm);
  return std::make_unique<MpiRegions>(comm);
}

}  // namespace commlab
