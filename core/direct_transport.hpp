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
// Beside the regions, a control block in host memory every rank maps (the
// heap, or an MPI shared window): per ordered pair of ranks a lane of message
// slots, and per rank a fence counter. Signalling is by flags in that block,
// not by MPI: a release store of a counter, an acquire load on the other side.
//
// A message (send, recv, exchange: every hand-written algorithm, unchanged)
// is one copy, pulled by its receiver: the sender posts where its bytes are
// (an offset in its region) in the lane's next slot; the receiver copies them
// from the sender's region into its own buffer and marks the slot taken; a
// send completes when its message was taken (MPI_Ssend's rule, as the
// in-process transport). Pulling needs one signal each way per message and
// the data crosses once. Nothing is ever written into a peer's memory, so
// every byte a rank moves over the fabric is a byte it read from a peer.
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
#include <string>
#include <vector>

#include "memory.hpp"
#include "peers.hpp"
#include "transport.hpp"

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
  // Collective: every region at least `bytes` (each rank asks the same);
  // growing one drops what it held and every pointer into it.
  virtual void reserve(size_t bytes) = 0;
  // A rank failed: every other rank's wait ends at once (the in-process runs).
  void fail();
  bool failed() const;
};

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
  void reserve(size_t bytes) override;

 private:
  size_t bytes_;
  std::vector<std::unique_ptr<char[]>> regions_;
  std::unique_ptr<char, void (*)(void*)> control_;  // aligned to a cache line
};

// Collective: why the ranks of `comm` cannot map each other's memory (not
// all on one node), or "" (mpi_regions.cpp).
std::string direct_unavailable(MPI_Comm comm);
// Collective, GPU buffers: why this rank cannot read its peers' GPU memory,
// or "": a probe region opened by CUDA IPC, then read for real from every
// peer, by a copy and by the reduction kernel, each within a deadline.
// `gpus`: every rank's GPU by its PCI address, for the message.
std::string gpu_peers_unmappable(MPI_Comm comm, const std::vector<std::string>& gpus);
// The direct transport among `comm`'s ranks, which direct_unavailable()
// said can: MPI-3 shared memory for host buffers, CUDA IPC for `mem` on the GPU.
std::unique_ptr<Transport> make_direct_transport(MPI_Comm comm, Memory& mem);

class DirectTransport : public Transport, public Peers {
 public:
  // Messages through `regions`, copies by `mem`; allgather and the MPI
  // communicator are `control`'s (MPI, or the threads').
  DirectTransport(Transport& control, Regions& regions, Memory& mem,
                  std::chrono::milliseconds timeout = std::chrono::seconds(60));
  ~DirectTransport() override;

  TransportKind kind() const override { return TransportKind::direct; }
  int rank() const override { return me_; }
  int size() const override { return P_; }
  void exchange(int to, const void* s, size_t sbytes, int from, void* r, size_t rbytes,
                const Landed* landed) override;
  void isend(int to, const void* buf, size_t bytes) override;
  void irecv(int from, void* buf, size_t bytes) override;
  void wait_sends() override;
  void wait_all() override;
  int probe_any() override;
  std::vector<std::vector<char>> allgather(const std::vector<char>& mine) override {
    return control_.allgather(mine);
  }
  MPI_Comm mpi() const override { return control_.mpi(); }
  Peers* peers() override { return this; }
  PeerBytes peer_bytes() const override { return moved_; }

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
  void fence() override;

 private:
  struct Recv {  // an irecv, or a blocking receive, not yet filled
    char* buf;
    size_t bytes;
    const Landed* landed;
  };
  struct Send {  // a message waiting for a free slot in its lane
    int to;
    size_t offset, bytes;
  };
  uint64_t post(int to, const void* buf, size_t bytes);  // its number in the lane
  void progress();                                       // fills what has arrived
  bool take(int from);                                   // one message from `from`, if posted
  template <class Done, class What>
  void wait(Done done, What what);

  Transport& control_;
  Regions& regions_;
  Memory& mem_;
  const std::chrono::milliseconds timeout_;
  const int me_, P_;
  std::vector<std::deque<Recv>> recvs_;           // per sender, in posting order
  std::deque<Send> waiting_;                      // lanes full: posted as slots free
  std::vector<uint64_t> sent_;                    // messages this rank posted to each rank
  std::vector<std::pair<int, uint64_t>> isends_;  // (to, number) until wait_sends
  uint64_t fences_ = 0;
  PeerBytes moved_;
};

}  // namespace commlab
