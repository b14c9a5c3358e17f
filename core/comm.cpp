#include "comm.hpp"

#include <algorithm>
#include <climits>

#include "device.hpp"
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>  // Open MPI's MPIX_Query_cuda_support
#endif

namespace commlab {

namespace {
// MPI 3 counts are int. Larger messages travel as consecutive pieces of at
// most 1 GiB under one tag; pieces keep MPI's ordering, so they reassemble.
// Staged GPU data travels in pieces of 4 MiB, each through a pinned slot.
constexpr size_t kPiece = size_t{1} << 30;
constexpr size_t kStagePiece = size_t{4} << 20;
constexpr int kTag = 4242;

// A zero-byte message is still one message.
size_t pieces(size_t bytes, size_t piece) { return bytes == 0 ? 1 : (bytes + piece - 1) / piece; }
size_t piece_len(size_t bytes, size_t piece, size_t k) {
  return k * piece < bytes ? std::min(piece, bytes - k * piece) : 0;
}
}  // namespace

bool mpi_is_cuda_aware() {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

Comm::Comm(MPI_Comm comm) : comm_(comm) {
  MPI_Comm_rank(comm, &rank_);
  MPI_Comm_size(comm, &size_);
}

Comm::~Comm() {
  for (int i = 0; i < 2; ++i) {
    if (out_[i]) gpu::release_pinned(out_[i]);
    if (in_[i]) gpu::release_pinned(in_[i]);
    if (out_ready_[i]) gpu::event_destroy(out_ready_[i]);
    if (in_done_[i]) gpu::event_destroy(in_done_[i]);
  }
  for (auto& pool : {send_blocks_, recv_blocks_})
    for (auto& [block, bytes] : pool) gpu::release_pinned(block);
}

void Comm::use(Memory& mem, Transport transport) {
  mem_ = &mem;
  transport_ = transport;
  if (transport != Transport::staged || out_[0]) return;
  for (int i = 0; i < 2; ++i) {
    out_[i] = gpu::alloc_pinned(kStagePiece);
    in_[i] = gpu::alloc_pinned(kStagePiece);
    out_ready_[i] = gpu::event_create();
    in_done_[i] = gpu::event_create();
  }
}

void Comm::count_send(int to, size_t bytes, Step step) {
  const int index = step.index + step_offset_;
  sent_B_ += bytes;
  ++msgs_;
  last_step_ = std::max<int64_t>(last_step_, index);
  if (tracing_) trace_.push_back({index, rank_, to, step.chunk, bytes});
}

void Comm::count_recv(size_t bytes) { recv_B_ += bytes; }

// One blocking send, receive or both (MPI_PROC_NULL for the side not taken).
// Piece k of the send travels with piece k of the receive; the side with
// fewer pieces sends or receives nothing in the remaining rounds.
void Comm::exchange(int to, const char* s, size_t sbytes, int from, char* r, size_t rbytes,
                    const Fold* fold) {
  if (transport_ == Transport::staged) return staged_exchange(to, s, sbytes, from, r, rbytes, fold);
  if (transport_ == Transport::cuda_aware) mem_->sync();  // MPI reads the GPU's memory itself
  const size_t ns = to == MPI_PROC_NULL ? 0 : pieces(sbytes, kPiece);
  const size_t nr = from == MPI_PROC_NULL ? 0 : pieces(rbytes, kPiece);
  for (size_t k = 0; k < std::max(ns, nr); ++k) {
    const size_t at = k * kPiece;
    const int slen = static_cast<int>(piece_len(sbytes, kPiece, k));
    const int rlen = static_cast<int>(piece_len(rbytes, kPiece, k));
    if (k < ns && k < nr)
      MPI_Sendrecv(s + at, slen, MPI_BYTE, to, kTag, r + at, rlen, MPI_BYTE, from, kTag, comm_,
                   MPI_STATUS_IGNORE);
    else if (k < ns)
      MPI_Send(s + at, slen, MPI_BYTE, to, kTag, comm_);
    else
      MPI_Recv(r + at, rlen, MPI_BYTE, from, kTag, comm_, MPI_STATUS_IGNORE);
    if (k < nr && fold) mem_->reduce(fold->red, fold->acc + at, r + at, rlen / fold->red.esize());
  }
}

// The same through pinned slots, two each way. Piece k+1's device-to-host
// copy is queued before piece k goes to MPI; piece k's host-to-device copy
// (and its reduction) are queued as soon as it lands, and MPI goes on to the
// next. Events keep a slot from being reused before its copy is done. All
// of it is on the one stream, so later kernels see the data in order.
void Comm::staged_exchange(int to, const char* s, size_t sbytes, int from, char* r, size_t rbytes,
                           const Fold* fold) {
  const size_t C = kStagePiece;
  const size_t ns = to == MPI_PROC_NULL ? 0 : pieces(sbytes, C);
  const size_t nr = from == MPI_PROC_NULL ? 0 : pieces(rbytes, C);
  auto stage_out = [&](size_t k) {
    gpu::copy(out_[k % 2], s + k * C, piece_len(sbytes, C, k));
    gpu::event_record(out_ready_[k % 2]);
  };
  if (ns) stage_out(0);
  for (size_t k = 0; k < std::max(ns, nr); ++k) {
    const bool sending = k < ns, receiving = k < nr;
    const size_t rlen = piece_len(rbytes, C, k);
    if (k + 1 < ns) stage_out(k + 1);  // its slot's last MPI transfer (piece k-1) has returned
    if (sending) gpu::event_wait(out_ready_[k % 2]);
    if (receiving) gpu::event_wait(in_done_[k % 2]);  // piece k-2 has left this slot
    MPI_Sendrecv(out_[k % 2], sending ? static_cast<int>(piece_len(sbytes, C, k)) : 0, MPI_BYTE,
                 sending ? to : MPI_PROC_NULL, kTag, in_[k % 2], static_cast<int>(rlen), MPI_BYTE,
                 receiving ? from : MPI_PROC_NULL, kTag, comm_, MPI_STATUS_IGNORE);
    if (!receiving) continue;
    gpu::copy(r + k * C, in_[k % 2], rlen);
    gpu::event_record(in_done_[k % 2]);
    if (fold) mem_->reduce(fold->red, fold->acc + k * C, r + k * C, rlen / fold->red.esize());
  }
}

void Comm::send(int to, const void* buf, size_t bytes, Step step) {
  count_send(to, bytes, step);
  exchange(to, static_cast<const char*>(buf), bytes, MPI_PROC_NULL, nullptr, 0, nullptr);
}

void Comm::recv(int from, void* buf, size_t bytes, Step) {
  count_recv(bytes);
  exchange(MPI_PROC_NULL, nullptr, 0, from, static_cast<char*>(buf), bytes, nullptr);
}

void Comm::sendrecv(int to, const void* sbuf, size_t sbytes, int from, void* rbuf, size_t rbytes,
                    Step step) {
  count_send(to, sbytes, step);
  count_recv(rbytes);
  exchange(to, static_cast<const char*>(sbuf), sbytes, from, static_cast<char*>(rbuf), rbytes,
           nullptr);
}

void Comm::recv_reduce(int from, void* incoming, void* acc, size_t bytes, const Reduction& red,
                       Step) {
  count_recv(bytes);
  const Fold fold{red, static_cast<char*>(acc)};
  exchange(MPI_PROC_NULL, nullptr, 0, from, static_cast<char*>(incoming), bytes, &fold);
}

void Comm::sendrecv_reduce(int to, const void* sbuf, size_t sbytes, int from, void* incoming,
                           void* acc, size_t rbytes, const Reduction& red, Step step) {
  count_send(to, sbytes, step);
  count_recv(rbytes);
  const Fold fold{red, static_cast<char*>(acc)};
  exchange(to, static_cast<const char*>(sbuf), sbytes, from, static_cast<char*>(incoming), rbytes,
           &fold);
}

// The pinned block for the index-th posted message, grown to `bytes`.
void* Comm::pinned(std::vector<std::pair<void*, size_t>>& pool, size_t index, size_t bytes) {
  if (pool.size() <= index) pool.resize(index + 1, {nullptr, 0});
  auto& [block, size] = pool[index];
  if (size < bytes || !block) {
    if (block) gpu::release_pinned(block);
    block = gpu::alloc_pinned(bytes);
    size = bytes;
  }
  return block;
}

// Non-blocking calls split as the blocking ones do (staged: the same 4 MiB
// pieces), so either kind can meet the other. Staged, a message is copied
// whole into its own pinned block: an isend before it is posted, an irecv
// once wait_all() has seen it land.
void Comm::isend(int to, const void* buf, size_t bytes, Step step) {
  count_send(to, bytes, step);
  const bool staged = transport_ == Transport::staged;
  const size_t piece = staged ? kStagePiece : kPiece;
  auto* p = static_cast<const char*>(buf);
  if (staged) {
    void* block = pinned(send_blocks_, sends_.size(), bytes);
    gpu::copy(block, buf, bytes);
    gpu::sync();
    p = static_cast<const char*>(block);
  } else if (transport_ == Transport::cuda_aware) {
    mem_->sync();
  }
  for (size_t k = 0, n = pieces(bytes, piece); k < n; ++k)
    MPI_Isend(p + k * piece, static_cast<int>(piece_len(bytes, piece, k)), MPI_BYTE, to, kTag,
              comm_, &sends_.emplace_back());
}

void Comm::irecv(int from, void* buf, size_t bytes, Step) {
  count_recv(bytes);
  const bool staged = transport_ == Transport::staged;
  const size_t piece = staged ? kStagePiece : kPiece;
  auto* p = static_cast<char*>(buf);
  if (staged) {
    if (landing_) gpu::sync();  // the last wait_all's copies out of these blocks are done
    landing_ = false;
    p = static_cast<char*>(pinned(recv_blocks_, landings_.size(), bytes));
    landings_.push_back({buf, p, bytes});
  } else if (transport_ == Transport::cuda_aware) {
    mem_->sync();  // no kernel still reads or writes what MPI is about to write
  }
  for (size_t k = 0, n = pieces(bytes, piece); k < n; ++k)
    MPI_Irecv(p + k * piece, static_cast<int>(piece_len(bytes, piece, k)), MPI_BYTE, from, kTag,
              comm_, &recvs_.emplace_back());
}

void Comm::wait_sends() {
  MPI_Waitall(static_cast<int>(sends_.size()), sends_.data(), MPI_STATUSES_IGNORE);
  sends_.clear();
}

void Comm::wait_all() {
  wait_sends();
  MPI_Waitall(static_cast<int>(recvs_.size()), recvs_.data(), MPI_STATUSES_IGNORE);
  recvs_.clear();
  for (const Landing& l : landings_) gpu::copy(l.dst, l.block, l.bytes);
  landing_ = landing_ || !landings_.empty();
  landings_.clear();
}

int Comm::probe_any() {
  MPI_Status status;
  MPI_Probe(MPI_ANY_SOURCE, kTag, comm_, &status);
  return status.MPI_SOURCE;
}

void Comm::reset_counts() {
  sent_B_ = recv_B_ = msgs_ = 0;
  last_step_ = -1;
  trace_.clear();
}

Traffic Comm::gather_counts() const {
  uint64_t mine_max[3] = {sent_B_, recv_B_, static_cast<uint64_t>(last_step_ + 1)};
  uint64_t mine_sum[2] = {sent_B_, msgs_};
  uint64_t mx[3], sum[2];
  MPI_Allreduce(mine_max, mx, 3, MPI_UINT64_T, MPI_MAX, comm_);
  MPI_Allreduce(mine_sum, sum, 2, MPI_UINT64_T, MPI_SUM, comm_);
  Traffic t;
  t.sent_max_rank_B = mx[0];
  t.recv_max_rank_B = mx[1];
  t.steps = mx[2];
  t.sent_total_B = sum[0];
  t.msgs_total = sum[1];
  return t;
}

std::vector<TraceEntry> Comm::gather_trace() const {
  static_assert(sizeof(TraceEntry) % sizeof(int) == 0);
  const int ints_per = sizeof(TraceEntry) / sizeof(int);
  int mine = static_cast<int>(trace_.size()) * ints_per;
  std::vector<int> counts(size_), displs(size_);
  MPI_Gather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm_);
  int total = 0;
  for (int r = 0; r < size_; ++r) displs[r] = total, total += counts[r];
  std::vector<TraceEntry> all(rank_ == 0 ? total / ints_per : 0);
  MPI_Gatherv(trace_.data(), mine, MPI_INT, all.data(), counts.data(), displs.data(), MPI_INT, 0,
              comm_);
  std::stable_sort(all.begin(), all.end(), [](const TraceEntry& a, const TraceEntry& b) {
    return a.step != b.step ? a.step < b.step : a.from < b.from;
  });
  return all;
}

}  // namespace commlab
