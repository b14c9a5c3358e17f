// Direct access: ranks on one node map each other's registered memory and
// move data by reading it, the way NCCL's P2P transport, vLLM's custom
// all-reduce and PyTorch's SymmetricMemory do inside a node.
//
// Every rank owns one region of the same size and layout (symmetric memory:
// a buffer at offset x in one rank's region is at offset x in every rank's),
// mapped by all the others:
//
//   in-process tests   the threads' own heap blocks         HeapRegions, here
//   host processes     MPI-3 shared memory                   mpi_regions.cpp
//                      (MPI_Win_allocate_shared on the node's communicator)
//   GPU processes      cudaMalloc'd regions, opened by the   mpi_regions.cpp
//                      others with cudaIpcOpenMemHandle
//
// Signalling is by flags, not by MPI: a release store of a counter, an
// acquire load on the other side. Two ways, one protocol of lanes and slots:
//
//   host    a control block in host memory every rank maps (the heap, or an
//           MPI shared window): per ordered pair of ranks a lane of message
//           slots, and per rank a fence counter. The host writes and polls
//           them; on the GPU it waits for the stream before each signal, so
//           every step costs a host round trip (direct_host_signals.cpp).
//   device  a signal pad per rank, mapped by all (signals.hpp): one op per
//           message, which on the GPU is one kernel that posts, waits, reads
//           and signals on its own, so the host queues a whole call without
//           waiting (direct_device_signals.cpp). It needs every rank's
//           kernels to run at once: MPS, or a GPU per rank.
//
// A message (send, recv, exchange: every hand-written algorithm, unchanged)
// is one pass, pulled by its receiver: the sender posts where its bytes are
// (an offset in its region) in the lane's next slot; the receiver copies them
// from the sender's region into its own buffer, or reduces them straight into
// its accumulator (a reducing step: one pass that reads both and writes one),
// and marks the slot taken; a send completes when its message was taken
// (MPI_Ssend's rule, as the in-process transport). Pulling needs one signal
// each way per message and the data crosses once. No data is ever written
// into a peer's memory (only signals), so every byte a rank moves over the
// fabric is a byte it read from a peer.
//
// The algorithms only direct access allows (one_shot, two_shot) use the
// Peers interface (peers.hpp): where a peer's buffer is, read from it, and
// fence(), after which every rank has reached the same point.
//
// Every wait has a deadline (Gloo's rule): a schedule that deadlocks fails
// naming the rank and what it waited for. Waits spin, then yield the core:
// ranks may share few cores (this machine has two).
#pragma once
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/comm/peers.hpp"
#include "core/comm/transport.hpp"
#include "core/device/memory.hpp"
#include "core/device/signals.hpp"

namespace commlab {

// Where a job's buffers lie in every rank's region (the same offsets on
// every rank, so that a peer finds a buffer where its own is): the input
// at 0, the result, then scratch, each aligned for any element type.
struct RegionLayout {
  size_t out_at = 0, scratch_at = 0, scratch_B = 0;
  size_t bytes() const { return scratch_at + scratch_B; }
  static RegionLayout of(size_t in_B, size_t out_B, size_t scratch_B) {
    auto line = [](size_t b) { return (b + 255) / 256 * 256; };
    return {line(in_B), line(in_B) + line(out_B), scratch_B};
  }
};

// Every rank's region as this process addresses it, and the control block.
class Regions {
 public:
  virtual ~Regions() = default;
  virtual int size() const = 0;
  virtual char* base(int rank) const = 0;
  virtual size_t bytes() const = 0;  // each rank's
  virtual void* control() const = 0;
  // Every rank's signal pad (signals.hpp), for device-side signalling; null
  // where the regions have none.
  virtual char* pad(int rank) const = 0;
  // Collective: every region at least `bytes` (each rank asks the same);
  // growing one drops what it held and every pointer into it.
  virtual void reserve(size_t bytes) = 0;
  // A rank failed: every other rank's wait ends at once (the in-process runs).
  void fail();
  bool failed() const;
};

// The control block every rank maps, whichever way it signals (the host
// signals through its lanes and fences; both read `failed`).
constexpr size_t kLine = 64;  // a cache line: counters written by different ranks never share one

struct alignas(kLine) Counter {
  std::atomic<uint64_t> value{0};
};

// Messages from one rank to another, in order: the sender fills slot n mod
// kSignalSlots and then counts it posted; the receiver reads and counts it taken.
struct Lane {
  Counter posted, taken;
  SignalSlot slots[kSignalSlots];
};

// The control block: whether a rank failed, each rank's fences, then P x P lanes.
struct Control {
  Counter failed;
  Counter* fences() { return reinterpret_cast<Counter*>(this + 1); }
  Lane* lanes(int P) { return reinterpret_cast<Lane*>(fences() + P); }
};
static_assert(sizeof(Control) == kLine && sizeof(Lane) % kLine == 0);

inline Control& control_of(const Regions& r) { return *static_cast<Control*>(r.control()); }

// The control block's bytes for P ranks, and its layout written at `at` (one rank does it).
size_t control_bytes(int P);
void init_control(void* at, int P);

// The in-process tests': P heap blocks of a fixed size, read through the
// threads' own pointers. reserve() past that size is an error.
class HeapRegions : public Regions {
 public:
  HeapRegions(int P, size_t bytes);
  int size() const override { return int(regions_.size()); }
  char* base(int rank) const override { return regions_.at(rank).get(); }
  size_t bytes() const override { return bytes_; }
  void* control() const override { return control_.get(); }
  char* pad(int rank) const override { return pads_.get() + size_t(rank) * SignalPad::bytes(P_); }
  void reserve(size_t bytes) override;

 private:
  int P_;
  size_t bytes_;
  std::vector<std::unique_ptr<char[]>> regions_;
  std::unique_ptr<char, void (*)(void*)> control_, pads_;  // aligned to a cache line
};

std::string name(Signals s);  // host, device

// What both ways of signalling share: the regions, reads from peers (the
// Peers interface), what was read counted; messages are theirs.
class DirectTransport : public Transport, public Peers {
 public:
  ~DirectTransport() override;
  // What it runs over, when it owns it (between processes), destroyed after it.
  void own(std::unique_ptr<Transport> control, std::unique_ptr<Regions> regions);

  TransportKind kind() const override { return TransportKind::direct; }
  int rank() const override { return me_; }
  int size() const override { return P_; }
  std::vector<std::vector<char>> allgather(const std::vector<char>& mine) override {
    return control_.allgather(mine);
  }
  MPI_Comm mpi() const override { return control_.mpi(); }
  Peers* peers() override { return this; }
  PeerBytes peer_bytes() const override { return moved_; }
  // Messages received so far, and the copies and reductions (GPU launches)
  // queued to receive them: one each, but where a step reduces into the
  // very bytes it sends (then two).
  uint64_t received() const { return received_; }
  uint64_t receive_ops() const { return receive_ops_; }

  // Peers
  char* region() const override { return regions_.base(me_); }
  size_t region_bytes() const override { return regions_.bytes(); }
  void reserve(size_t bytes) override { regions_.reserve(bytes); }
  const char* at(int rank, const void* mine) const override;
  void read(int from, const void* theirs, void* dst, size_t bytes) override;
  void read_reduce(int from, const void* theirs, void* acc, size_t count,
                   const Reduction& red) override;
  void read_reduce_to(int a_from, const void* a, int b_from, const void* b, void* dst, size_t count,
                      const Reduction& red) override;
  void read_reduce_all(const void* const* terms, void* dst, size_t count,
                       const Reduction& red) override;

 protected:
  DirectTransport(Transport& control, Regions& regions, Memory& mem,
                  std::chrono::milliseconds timeout);
  // The offset of `buf` in this rank's region, where the receiver finds it.
  size_t offset_of(const void* buf, size_t bytes) const;
  void check_rank(int r) const;
  // Whether [a, a + a_B) and [b, b + b_B) share a byte: a reduction into
  // bytes this rank sends must wait until the receiver has read them.
  static bool overlap(const void* a, size_t a_B, const void* b, size_t b_B) {
    const char *x = static_cast<const char*>(a), *y = static_cast<const char*>(b);
    return a_B && b_B && x < y + b_B && y < x + a_B;
  }

  std::unique_ptr<Transport> owned_control_;  // first: destroyed last
  std::unique_ptr<Regions> owned_regions_;
  Transport& control_;
  Regions& regions_;
  Memory& mem_;
  const std::chrono::milliseconds timeout_;
  const int me_, P_;
  PeerBytes moved_;
  uint64_t received_ = 0, receive_ops_ = 0;
};

}  // namespace commlab
