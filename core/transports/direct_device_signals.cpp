#include "direct_device_signals.hpp"

#include <algorithm>
#include <stdexcept>

#include "direct_host_signals.hpp"  // the control block's failed flag

namespace commlab {

DeviceSignalled::DeviceSignalled(Transport& control, Regions& regions, Memory& mem,
                                 std::chrono::milliseconds timeout)
    : DirectTransport(control, regions, mem, timeout), sent_(P_), taken_from_(P_) {
  // The pads start at zero with their regions, and one transport uses them
  // (on the GPU they are device memory the host does not read).
  mem_.gather_programs(true);
}

SignalOp DeviceSignalled::blank() const {
  SignalOp op;
  op.rank = me_;
  op.deadline_s = double(timeout_.count()) / 1000;
  op.failed = reinterpret_cast<uint64_t*>(&control_of(regions_).failed.value);
  return op;
}

void DeviceSignalled::post(SignalOp& op, int to, const void* buf, size_t bytes) {
  check_rank(to);
  const uint64_t n = sent_[to]++;
  const SignalPad theirs = pad(to);
  op.post = true;
  // Slot n % kSignalSlots is free once message n - kSignalSlots was taken.
  op.room = {pad(me_).taken(to), n >= kSignalSlots ? n - kSignalSlots + 1 : 0, to, Awaited::room};
  op.slot = theirs.slot(me_, n);
  op.where = {offset_of(buf, bytes), bytes};
  op.posted = {theirs.posted(me_), n + 1};
}

void DeviceSignalled::take(SignalOp& op, int from, char* dst, size_t bytes, const Fold* fold) {
  check_rank(from);
  const uint64_t k = taken_from_[from]++;
  const SignalPad mine = pad(me_);
  op.take = true;
  op.arrived = {mine.posted(from), k + 1, from, Awaited::posted};
  op.from_slot = mine.slot(from, k);
  op.peer_base = regions_.base(from);
  op.dst = fold ? fold->acc : dst;
  op.mine = fold ? fold->mine : nullptr;
  op.bytes = bytes;
  op.reduce = fold != nullptr;
  if (fold) op.dtype = fold->red->dtype, op.op = fold->red->op;
  op.taken = {pad(from).taken(me_), k + 1};
  moved_.read_B += bytes;
  ++received_, ++receive_ops_;
}

void DeviceSignalled::wait_taken(SignalOp& op, const SignalPad& mine, int to, uint64_t n) {
  if (op.waits == kMaxSignalWaits)
    throw std::logic_error("a signal op waits for at most 64 counters");
  op.wait[op.waits++] = {mine.taken(to), n + 1, to, Awaited::taken};
}

void DeviceSignalled::exchange(int to, const void* s, size_t sbytes, int from, void* r,
                               size_t rbytes, const Fold* fold) {
  SignalOp op = blank();
  if (to != kNoRank) post(op, to, s, sbytes);
  // A reduction into the very bytes this rank sends must wait until the
  // receiver has read them: copied now, folded in by a second op.
  const bool later = fold && to != kNoRank && overlap(fold->acc, rbytes, s, sbytes);
  if (from != kNoRank) take(op, from, static_cast<char*>(r), rbytes, later ? nullptr : fold);
  // The sender's buffer may change once the message was taken: later work
  // on the stream waits for that.
  if (to != kNoRank) wait_taken(op, pad(me_), to, sent_[to] - 1);
  queue(op);
  if (later && from != kNoRank) fold->landed(r, 0, rbytes), ++receive_ops_;
}

void DeviceSignalled::isend(int to, const void* buf, size_t bytes) {
  SignalOp op = blank();
  post(op, to, buf, bytes);
  queue(op);
  isends_.emplace_back(to, sent_[to] - 1);
}

void DeviceSignalled::irecv(int from, void* buf, size_t bytes) {
  check_rank(from);
  irecvs_.push_back({from, static_cast<char*>(buf), bytes});
}

void DeviceSignalled::wait_sends() {
  const SignalPad mine = pad(me_);
  for (size_t i = 0; i < isends_.size(); i += kMaxSignalWaits) {
    SignalOp op = blank();
    for (size_t j = i; j < std::min(isends_.size(), i + kMaxSignalWaits); ++j)
      wait_taken(op, mine, isends_[j].first, isends_[j].second);
    queue(op);
  }
  isends_.clear();
}

void DeviceSignalled::wait_all() {
  // In the order posted: a lane's messages arrive in order.
  for (const Recv& r : irecvs_) {
    SignalOp op = blank();
    take(op, r.from, r.buf, r.bytes, nullptr);
    queue(op);
  }
  irecvs_.clear();
  wait_sends();
}

int DeviceSignalled::probe_any() {
  throw std::logic_error(
      "probe_any over direct access with device-side signalling: set COMMLAB_DIRECT_SIGNAL=host");
}

// Every rank raises its own count in every pad, then waits until every
// other rank's count in its own pad has reached it: one op up to 64 ranks,
// more in ops of 64 writes, then of 64 waits.
void DeviceSignalled::fence() {
  const uint64_t k = ++fences_;
  const SignalPad mine = pad(me_);
  SignalOp op = blank();
  for (int q = 0; q < P_; ++q) {
    if (op.writes == kMaxSignalWaits) queue(op), op = blank();
    op.write[op.writes++] = {pad(q).fence(me_), k};
  }
  for (int q = 0; q < P_; ++q) {
    if (q == me_) continue;
    if (op.waits == kMaxSignalWaits) queue(op), op = blank();
    op.wait[op.waits++] = {mine.fence(q), k, q, Awaited::fence};
  }
  queue(op);
}

}  // namespace commlab
