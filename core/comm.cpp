#include "comm.hpp"

#include <algorithm>
#include <climits>

namespace commlab {

namespace {
// MPI 3 counts are int. Larger messages travel as consecutive pieces of at
// most 1 GiB under one tag; pieces keep MPI's ordering, so they reassemble.
constexpr size_t kPiece = size_t{1} << 30;
constexpr int kTag = 4242;

int piece_count(size_t bytes) { return static_cast<int>(std::min(bytes, kPiece)); }
// A zero-byte message is still one message.
size_t pieces(size_t bytes) { return bytes == 0 ? 1 : (bytes + kPiece - 1) / kPiece; }
// call(offset, count) for each piece of a `bytes` message, in order.
template <class Call>
void each_piece(size_t bytes, Call call) {
  for (size_t k = 0, n = pieces(bytes); k < n; ++k)
    call(k * kPiece, piece_count(bytes - k * kPiece));
}
}  // namespace

Comm::Comm(MPI_Comm comm) : comm_(comm) {
  MPI_Comm_rank(comm, &rank_);
  MPI_Comm_size(comm, &size_);
}

void Comm::count_send(int to, size_t bytes, Step step) {
  const int index = step.index + step_offset_;
  sent_B_ += bytes;
  ++msgs_;
  last_step_ = std::max<int64_t>(last_step_, index);
  if (tracing_) trace_.push_back({index, rank_, to, step.chunk, bytes});
}

void Comm::count_recv(size_t bytes) { recv_B_ += bytes; }

void Comm::send(int to, const void* buf, size_t bytes, Step step) {
  count_send(to, bytes, step);
  auto* p = static_cast<const char*>(buf);
  each_piece(bytes, [&](size_t at, int n) { MPI_Send(p + at, n, MPI_BYTE, to, kTag, comm_); });
}

void Comm::recv(int from, void* buf, size_t bytes, Step) {
  count_recv(bytes);
  auto* p = static_cast<char*>(buf);
  each_piece(bytes, [&](size_t at, int n) {
    MPI_Recv(p + at, n, MPI_BYTE, from, kTag, comm_, MPI_STATUS_IGNORE);
  });
}

void Comm::sendrecv(int to, const void* sbuf, size_t sbytes, int from, void* rbuf, size_t rbytes,
                    Step step) {
  count_send(to, sbytes, step);
  count_recv(rbytes);
  auto* s = static_cast<const char*>(sbuf);
  auto* r = static_cast<char*>(rbuf);
  // Piece k of the send travels with piece k of the receive; the side with
  // fewer pieces sends or receives nothing in the remaining rounds.
  size_t ns = pieces(sbytes), nr = pieces(rbytes);
  for (size_t k = 0; k < std::max(ns, nr); ++k) {
    const size_t at = k * kPiece;
    const bool sending = k < ns, receiving = k < nr;
    MPI_Sendrecv(s + (sending ? at : 0), sending ? piece_count(sbytes - at) : 0, MPI_BYTE,
                 sending ? to : MPI_PROC_NULL, kTag, r + (receiving ? at : 0),
                 receiving ? piece_count(rbytes - at) : 0, MPI_BYTE,
                 receiving ? from : MPI_PROC_NULL, kTag, comm_, MPI_STATUS_IGNORE);
  }
}

void Comm::isend(int to, const void* buf, size_t bytes, Step step) {
  count_send(to, bytes, step);
  auto* p = static_cast<const char*>(buf);
  each_piece(bytes, [&](size_t at, int n) {
    MPI_Isend(p + at, n, MPI_BYTE, to, kTag, comm_, &sends_.emplace_back());
  });
}

void Comm::irecv(int from, void* buf, size_t bytes, Step) {
  count_recv(bytes);
  auto* p = static_cast<char*>(buf);
  each_piece(bytes, [&](size_t at, int n) {
    MPI_Irecv(p + at, n, MPI_BYTE, from, kTag, comm_, &recvs_.emplace_back());
  });
}

void Comm::wait_sends() {
  MPI_Waitall(static_cast<int>(sends_.size()), sends_.data(), MPI_STATUSES_IGNORE);
  sends_.clear();
}

void Comm::wait_all() {
  wait_sends();
  MPI_Waitall(static_cast<int>(recvs_.size()), recvs_.data(), MPI_STATUSES_IGNORE);
  recvs_.clear();
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
