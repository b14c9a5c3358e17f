// The MPI transports: host buffers, GPU buffers read by a CUDA-aware MPI,
// and GPU buffers staged through pinned host memory.
#include "mpi_transport.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <stdexcept>

#include "core/device/device.hpp"

#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>  // Open MPI's MPIX_Query_cuda_support
#endif

namespace commlab {

bool mpi_is_cuda_aware() {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

namespace {
// MPI 3 counts are int. Larger messages travel as consecutive pieces of at
// most 1 GiB under one tag; pieces keep MPI's ordering, so they reassemble.
// Staged GPU data travels in pieces of 4 MiB, each through a pinned slot.
constexpr size_t kPiece = size_t{1} << 30;
constexpr size_t kStagePiece = size_t{4} << 20;
constexpr int kTag = 4242;

// A zero-byte message is still one message.
size_t pieces(size_t bytes, size_t piece) { return bytes == 0 ? 1 : (bytes + piece - 1) / piece; }
int piece_len(size_t bytes, size_t piece, size_t k) {
  return static_cast<int>(k * piece < bytes ? std::min(piece, bytes - k * piece) : 0);
}
int peer(int r) { return r == kNoRank ? MPI_PROC_NULL : r; }

class MpiTransport : public Transport {
 public:
  MpiTransport(MPI_Comm comm, TransportKind kind, Memory& mem)
      : comm_(comm), kind_(kind), mem_(mem) {
    MPI_Comm_rank(comm, &rank_);
    MPI_Comm_size(comm, &size_);
  }
  TransportKind kind() const override { return kind_; }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  MPI_Comm mpi() const override { return comm_; }

  // Piece k of the send travels with piece k of the receive; the side with
  // fewer pieces sends or receives nothing in the remaining rounds.
  void exchange(int to, const void* s, size_t sbytes, int from, void* r, size_t rbytes,
                const Fold* fold) override {
    ready_for_mpi();
    const size_t ns = to == kNoRank ? 0 : pieces(sbytes, kPiece);
    const size_t nr = from == kNoRank ? 0 : pieces(rbytes, kPiece);
    for (size_t k = 0; k < std::max(ns, nr); ++k) {
      const size_t at = k * kPiece;
      const int rlen = piece_len(rbytes, kPiece, k);
      // A side with no piece k left takes part as MPI_PROC_NULL (and no pointer past its buffer).
      sends_first(k < ns ? static_cast<const char*>(s) + at : nullptr,
                  k < ns ? piece_len(sbytes, kPiece, k) : 0, k < ns ? to : kNoRank,
                  k < nr ? static_cast<char*>(r) + at : nullptr, k < nr ? rlen : 0,
                  k < nr ? from : kNoRank);
      if (k < nr && fold) fold->landed(r, at, rlen);
    }
  }
  void isend(int to, const void* buf, size_t bytes) override {
    ready_for_mpi();
    post_sends(to, static_cast<const char*>(buf), bytes, kPiece);
  }
  void irecv(int from, void* buf, size_t bytes) override {
    ready_for_mpi();
    post_recvs(from, static_cast<char*>(buf), bytes, kPiece);
  }
  void round_posted() override { post_waiting_recvs(); }
  void wait_sends() override {
    post_waiting_recvs();  // the peers' sends may need them to finish ours
    MPI_Waitall(static_cast<int>(sends_.size()), sends_.data(), MPI_STATUSES_IGNORE);
    sends_.clear();
  }
  void wait_all() override {
    wait_sends();
    MPI_Waitall(static_cast<int>(recvs_.size()), recvs_.data(), MPI_STATUSES_IGNORE);
    recvs_.clear();
  }
  bool test_all() override {
    post_waiting_recvs();
    int sent = 1, landed = 1;
    MPI_Testall(static_cast<int>(sends_.size()), sends_.data(), &sent, MPI_STATUSES_IGNORE);
    MPI_Testall(static_cast<int>(recvs_.size()), recvs_.data(), &landed, MPI_STATUSES_IGNORE);
    if (!sent || !landed) return false;
    sends_.clear(), recvs_.clear();
    return true;
  }
  int probe_any() override {
    post_waiting_recvs();  // a message one of them is for is not the probe's
    MPI_Status status;
    MPI_Probe(MPI_ANY_SOURCE, kTag, comm_, &status);
    return status.MPI_SOURCE;
  }
  std::vector<std::vector<char>> allgather(const std::vector<char>& mine) override {
    // MPI's counts are int: more than 2 GiB of records in all (a trace or
    // --steps' states of a huge run) is refused, never wrapped.
    uint64_t n64 = mine.size(), total64 = 0;
    MPI_Allreduce(&n64, &total64, 1, MPI_UINT64_T, MPI_SUM, comm_);
    if (total64 > uint64_t(INT_MAX))
      throw std::length_error(fmt::format(
          "{} bytes of records to gather from every rank: more than MPI's 2 GiB; show fewer "
          "elements",
          total64));
    int n = static_cast<int>(n64);
    std::vector<int> counts(size_), displs(size_);
    MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, comm_);
    int total = 0;
    for (int r = 0; r < size_; ++r) displs[r] = total, total += counts[r];
    std::vector<char> flat(total);
    MPI_Allgatherv(mine.data(), n, MPI_BYTE, flat.data(), counts.data(), displs.data(), MPI_BYTE,
                   comm_);
    std::vector<std::vector<char>> all(size_);
    for (int r = 0; r < size_; ++r)
      all[r].assign(flat.begin() + displs[r], flat.begin() + displs[r] + counts[r]);
    return all;
  }

 protected:
  // A CUDA-aware MPI reads the GPU's memory itself: no kernel may still be writing it.
  void ready_for_mpi() {
    if (kind_ == TransportKind::cuda_aware) mem_.sync();
  }
  // Non-blocking messages split as the blocking ones do, so either kind can
  // meet the other. A step's sends go out before its receives: over TCP, a
  // receive that matches a large message already announced answers at once,
  // and the peer's data then fills the connection ahead of the handshake of
  // our own send, which waits for all of it (measured on the emulated
  // switch: recursive doubling at P = 3 took 4 transfers' time for 3, every
  // call; docs/time-model.md). So a receive is posted when the next send
  // has been, or when anything waits or tests.
  void post_sends(int to, const char* p, size_t bytes, size_t piece) {
    for (size_t k = 0, n = pieces(bytes, piece); k < n; ++k)
      MPI_Isend(p + k * piece, piece_len(bytes, piece, k), MPI_BYTE, peer(to), kTag, comm_,
                &sends_.emplace_back());
    post_waiting_recvs();
  }
  void post_recvs(int from, char* p, size_t bytes, size_t piece) {
    for (size_t k = 0, n = pieces(bytes, piece); k < n; ++k)
      waiting_recvs_.push_back({from, p + k * piece, piece_len(bytes, piece, k)});
  }
  void post_waiting_recvs() {
    for (const Unposted& u : waiting_recvs_)
      MPI_Irecv(u.p, u.len, MPI_BYTE, peer(u.from), kTag, comm_, &recvs_.emplace_back());
    waiting_recvs_.clear();
  }
  // One blocking send and receive, the send posted first (as above); the
  // receives waiting from earlier irecvs are posted with them, so that a
  // peer blocked in its own send to us can finish. kNoRank: no such side.
  void sends_first(const void* s, int slen, int to, void* r, int rlen, int from) {
    MPI_Request both[2];
    MPI_Isend(s, slen, MPI_BYTE, peer(to), kTag, comm_, &both[0]);
    post_waiting_recvs();
    MPI_Irecv(r, rlen, MPI_BYTE, peer(from), kTag, comm_, &both[1]);
    MPI_Waitall(2, both, MPI_STATUSES_IGNORE);
  }

  MPI_Comm comm_;
  TransportKind kind_;
  Memory& mem_;
  int rank_ = 0, size_ = 1;
  std::vector<MPI_Request> sends_, recvs_;  // posted, not yet waited for
  struct Unposted {
    int from;
    char* p;
    int len;
  };
  std::vector<Unposted> waiting_recvs_;  // irecvs not yet posted (post_recvs)
};

// Page-locked host memory and stream events, released with their owner.
using Pinned = std::unique_ptr<void, void (*)(void*)>;
Pinned pinned(size_t bytes) { return {gpu::alloc_pinned(bytes), gpu::release_pinned}; }
using Event = std::unique_ptr<void, void (*)(void*)>;
Event event() { return {gpu::event_create(), gpu::event_destroy}; }

// GPU buffers through pinned slots, two each way for the blocking calls.
// Piece k+1's device-to-host copy is queued before piece k goes to MPI;
// piece k's host-to-device copy (and what `fold` queues, a reduction) as
// soon as it lands, and MPI goes on to the next. Events keep a slot from
// being reused before its copy is done. All of it is on the one stream, so
// later kernels see the data in order.
class StagedTransport : public MpiTransport {
 public:
  StagedTransport(MPI_Comm comm, Memory& mem) : MpiTransport(comm, TransportKind::staged, mem) {}

  void exchange(int to, const void* s, size_t sbytes, int from, void* r, size_t rbytes,
                const Fold* fold) override {
    const size_t C = kStagePiece;
    const size_t ns = to == kNoRank ? 0 : pieces(sbytes, C);
    const size_t nr = from == kNoRank ? 0 : pieces(rbytes, C);
    auto stage_out = [&](size_t k) {
      gpu::copy(out_[k % 2].get(), static_cast<const char*>(s) + k * C, piece_len(sbytes, C, k));
      gpu::event_record(out_ready_[k % 2].get());
    };
    if (ns) stage_out(0);
    for (size_t k = 0; k < std::max(ns, nr); ++k) {
      const bool sending = k < ns, receiving = k < nr;
      const int rlen = piece_len(rbytes, C, k);
      if (k + 1 < ns) stage_out(k + 1);  // its slot's last MPI transfer (piece k-1) has returned
      if (sending) gpu::event_wait(out_ready_[k % 2].get());
      if (receiving) gpu::event_wait(in_done_[k % 2].get());  // piece k-2 has left this slot
      sends_first(out_[k % 2].get(), sending ? piece_len(sbytes, C, k) : 0, sending ? to : kNoRank,
                  in_[k % 2].get(), rlen, receiving ? from : kNoRank);
      if (!receiving) continue;
      gpu::copy(static_cast<char*>(r) + k * C, in_[k % 2].get(), rlen);
      gpu::event_record(in_done_[k % 2].get());
      if (fold) fold->landed(r, k * C, rlen);
    }
  }

  // A posted message is copied whole into a pinned block of its own: an
  // isend's before it is posted, an irecv's once wait_all() has seen it land.
  void isend(int to, const void* buf, size_t bytes) override {
    void* block = grown(send_blocks_, sends_.size(), bytes);
    gpu::copy(block, buf, bytes);
    gpu::sync();
    post_sends(to, static_cast<const char*>(block), bytes, kStagePiece);
  }
  void irecv(int from, void* buf, size_t bytes) override {
    if (landing_) gpu::sync();  // the last wait_all's copies out of these blocks are done
    landing_ = false;
    char* block = static_cast<char*>(grown(recv_blocks_, landings_.size(), bytes));
    landings_.push_back({buf, block, bytes});
    post_recvs(from, block, bytes, kStagePiece);
  }
  // Its pieces land in pinned blocks that wait_all copies out: a test cannot.
  bool test_all() override {
    throw std::logic_error("the staged transport cannot test for completion");
  }
  void wait_all() override {
    MpiTransport::wait_all();
    for (const Landing& l : landings_) gpu::copy(l.dst, l.block, l.bytes);
    landing_ = landing_ || !landings_.empty();
    landings_.clear();
  }

 private:
  struct Block {
    Pinned memory{nullptr, gpu::release_pinned};
    size_t bytes = 0;
  };
  // The pinned block for the index-th posted message, grown to `bytes`.
  static void* grown(std::vector<Block>& pool, size_t index, size_t bytes) {
    if (pool.size() <= index) pool.resize(index + 1);
    Block& b = pool[index];
    if (!b.memory || b.bytes < bytes) b = {pinned(bytes), bytes};
    return b.memory.get();
  }

  Pinned out_[2] = {pinned(kStagePiece), pinned(kStagePiece)};
  Pinned in_[2] = {pinned(kStagePiece), pinned(kStagePiece)};
  Event out_ready_[2] = {event(), event()}, in_done_[2] = {event(), event()};
  std::vector<Block> send_blocks_, recv_blocks_;
  struct Landing {  // where an irecv's data goes once it lands
    void* dst;
    const void* block;
    size_t bytes;
  };
  std::vector<Landing> landings_;
  bool landing_ = false;  // copies out of the blocks may still run
};

}  // namespace

std::unique_ptr<Transport> make_mpi_transport(MPI_Comm comm, TransportKind kind, Memory& mem) {
  if (kind == TransportKind::staged) return std::make_unique<StagedTransport>(comm, mem);
  return std::make_unique<MpiTransport>(comm, kind, mem);
}

}  // namespace commlab
