#include "direct_host_signals.hpp"

#include <fmt/format.h>

#include <stdexcept>
#include <thread>

namespace commlab {

HostSignalled::HostSignalled(Transport& control, Regions& regions, Memory& mem,
                             std::chrono::milliseconds timeout)
    : DirectTransport(control, regions, mem, timeout), recvs_(P_), sent_(P_) {
  // The lanes and fences count on from where an earlier transport over the
  // same regions left them (none may have had a message in flight).
  Control& c = control_of(regions_);
  for (int to = 0; to < P_; ++to)
    sent_[to] = c.lanes(P_)[me_ * P_ + to].posted.value.load(std::memory_order_acquire);
  fences_ = c.fences()[me_].value.load(std::memory_order_acquire);
}

// Spins on done(), serving the receives that can be served meanwhile;
// yields the core after a while, fails past the deadline or once another
// rank failed.
template <class Done, class What>
void HostSignalled::wait(Done done, What what) {
  auto deadline = std::chrono::steady_clock::time_point::max();
  for (uint64_t spins = 0;; ++spins) {
    progress();
    if (done()) return;
    if (spins < 64) continue;
    std::this_thread::yield();
    if (spins % 1024) continue;
    if (regions_.failed()) throw OtherRankFailed{};
    const auto now = std::chrono::steady_clock::now();
    if (deadline == std::chrono::steady_clock::time_point::max()) deadline = now + timeout_;
    if (now > deadline)
      throw Timeout(fmt::format("rank {} of {} waited {} ms for {}: the schedule deadlocks", me_,
                                P_, timeout_.count(), what()));
  }
}

uint64_t HostSignalled::post(int to, const void* buf, size_t bytes) {
  check_rank(to);
  const size_t offset = offset_of(buf, bytes);
  // On the GPU: what was queued into the buffer has landed before it is read.
  if (mem_.pending()) mem_.sync();
  waiting_.push_back({to, offset, bytes});
  progress();
  return sent_[to]++;
}

// One pass over the sender's bytes, one launch on the GPU: reduced straight
// into the accumulator (reading it and them, writing it), or copied.
void HostSignalled::read_one(int from, const SignalSlot& slot) {
  const Recv r = recvs_[from].front();
  if (slot.bytes != r.bytes)
    throw std::logic_error(fmt::format("rank {} expected {} bytes from rank {}, got {}", me_,
                                       r.bytes, from, slot.bytes));
  const char* src = regions_.base(from) + slot.offset;
  if (r.fold)
    r.fold->landed(src, 0, r.bytes);
  else
    mem_.copy(r.buf, src, r.bytes);
  moved_.read_B += r.bytes;
  ++received_, ++receive_ops_;
  recvs_[from].pop_front();
}

void HostSignalled::progress() {
  Lane* lanes = control_of(regions_).lanes(P_);
  // Into free slots, in the order posted to each rank; a full lane holds up
  // the sends to its rank only.
  std::vector<bool> full(waiting_.empty() ? 0 : P_);
  for (auto it = waiting_.begin(); it != waiting_.end();) {
    Lane& lane = lanes[me_ * P_ + it->to];
    const uint64_t n = lane.posted.value.load(std::memory_order_relaxed);
    if (full[it->to] || n - lane.taken.value.load(std::memory_order_acquire) == kSignalSlots) {
      full[it->to] = true;
      ++it;
      continue;
    }
    lane.slots[n % kSignalSlots] = {it->offset, it->bytes};
    lane.posted.value.store(n + 1, std::memory_order_release);
    it = waiting_.erase(it);
  }
  // Every message that has arrived and has its receive posted, read; then
  // one wait for all of them before the senders are told (they may reuse
  // their buffers once theirs is counted taken).
  std::vector<std::pair<Counter*, uint64_t>> read;
  for (int from = 0; from < P_; ++from) {
    Lane& lane = lanes[from * P_ + me_];
    const uint64_t taken = lane.taken.value.load(std::memory_order_relaxed);
    const uint64_t posted = lane.posted.value.load(std::memory_order_acquire);
    uint64_t n = taken;
    for (; n < posted && !recvs_[from].empty(); ++n) read_one(from, lane.slots[n % kSignalSlots]);
    if (n != taken) read.emplace_back(&lane.taken, n);
  }
  if (read.empty()) return;
  if (mem_.pending()) mem_.sync();
  for (const auto& [counter, n] : read) counter->value.store(n, std::memory_order_release);
}

void HostSignalled::exchange(int to, const void* s, size_t sbytes, int from, void* r, size_t rbytes,
                             const Fold* fold) {
  const uint64_t n = to != kNoRank ? post(to, s, sbytes) : 0;
  // A reduction into the very bytes this rank sends must wait until the
  // receiver has read them: then what lands is copied, and folded in once
  // the send was taken (two passes). Otherwise it is reduced straight from
  // the sender's memory as it is taken (one).
  const bool later = fold && to != kNoRank && overlap(fold->acc, rbytes, s, sbytes);
  if (from != kNoRank) {
    check_rank(from);
    auto& queue = recvs_[from];
    queue.push_back({static_cast<char*>(r), rbytes,
                     fold && !later ? std::optional<Fold>(*fold) : std::nullopt});
    const size_t ahead = queue.size();  // this receive is filled once `ahead` have been
    const Lane& lane = control_of(regions_).lanes(P_)[from * P_ + me_];
    const uint64_t target = lane.taken.value.load(std::memory_order_relaxed) + ahead;
    wait([&] { return lane.taken.value.load(std::memory_order_relaxed) >= target; },
         [&] { return fmt::format("{} bytes from rank {}", rbytes, from); });
  }
  // The sender's buffer is read by the receiver: it may change only once taken.
  if (to != kNoRank) {
    const Lane& lane = control_of(regions_).lanes(P_)[me_ * P_ + to];
    wait([&] { return lane.taken.value.load(std::memory_order_acquire) > n; },
         [&] {
           return fmt::format("its message of {} bytes to rank {} to be received", sbytes, to);
         });
  }
  if (later && from != kNoRank) fold->landed(r, 0, rbytes), ++receive_ops_;
}

void HostSignalled::isend(int to, const void* buf, size_t bytes) {
  isends_.emplace_back(to, post(to, buf, bytes));
}

void HostSignalled::irecv(int from, void* buf, size_t bytes) {
  check_rank(from);
  recvs_[from].push_back({static_cast<char*>(buf), bytes, std::nullopt});
  progress();
}

void HostSignalled::wait_sends() {
  Lane* lanes = control_of(regions_).lanes(P_);
  for (const auto& [to, n] : isends_) {
    const Lane& lane = lanes[me_ * P_ + to];
    wait([&, n = n] { return lane.taken.value.load(std::memory_order_acquire) > n; },
         [&, to = to] { return fmt::format("its message to rank {} to be received", to); });
  }
  isends_.clear();
}

void HostSignalled::wait_all() {
  wait(
      [&] {
        for (const auto& q : recvs_)
          if (!q.empty()) return false;
        return true;
      },
      [&] {
        for (int from = 0; from < P_; ++from)
          if (!recvs_[from].empty())
            return fmt::format("{} bytes from rank {}", recvs_[from].front().bytes, from);
        return std::string();
      });
  wait_sends();
}

int HostSignalled::probe_any() {
  Lane* lanes = control_of(regions_).lanes(P_);
  int found = kNoRank;
  wait(
      [&] {
        for (int from = 0; from < P_ && found == kNoRank; ++from) {
          const Lane& lane = lanes[from * P_ + me_];
          // Posted and not yet matched by a receive already waiting for it.
          const uint64_t unmatched =
              lane.taken.value.load(std::memory_order_relaxed) + recvs_[from].size();
          if (lane.posted.value.load(std::memory_order_acquire) > unmatched) found = from;
        }
        return found != kNoRank;
      },
      [] { return std::string("a message from any rank"); });
  return found;
}

// Each rank counts its fences in its own counter and waits for every other
// rank's to reach its own: one store and P - 1 loads, no message.
void HostSignalled::fence() {
  mem_.sync();  // what this rank queued has landed before the others look
  Counter* counters = control_of(regions_).fences();
  const uint64_t mine = ++fences_;
  counters[me_].value.store(mine, std::memory_order_release);
  int slowest = 0;
  wait(
      [&] {
        for (; slowest < P_; ++slowest)
          if (counters[slowest].value.load(std::memory_order_acquire) < mine) return false;
        return true;
      },
      [&] { return fmt::format("rank {} to reach fence {}", slowest, mine); });
}

}  // namespace commlab
