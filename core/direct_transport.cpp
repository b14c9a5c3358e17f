#include "direct_transport.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <new>
#include <stdexcept>
#include <thread>

namespace commlab {

namespace {

constexpr size_t kLine = 64;  // a cache line: counters written by different ranks never share one
constexpr uint64_t kSlots = 16;  // messages in flight from one rank to another
// A received message is copied in pieces of this size, each reduced (when
// the step reduces) while it is still in cache.
constexpr size_t kPiece_B = 256 << 10;

struct alignas(kLine) Counter {
  std::atomic<uint64_t> value{0};
};

// Messages from one rank to another, in order: the sender fills slot n mod
// kSlots and then counts it posted; the receiver copies and counts it taken.
struct Lane {
  Counter posted, taken;
  struct Slot {
    uint64_t offset, bytes;
  } slots[kSlots];
};

// The control block: whether a rank failed, each rank's fences, then P x P lanes.
struct Control {
  Counter failed;
  Counter* fences() { return reinterpret_cast<Counter*>(this + 1); }
  Lane* lanes(int P) { return reinterpret_cast<Lane*>(fences() + P); }
};
static_assert(sizeof(Control) == kLine && sizeof(Lane) % kLine == 0);

Control& control_of(const Regions& r) { return *static_cast<Control*>(r.control()); }

}  // namespace

size_t control_bytes(int P) {
  return sizeof(Control) + size_t(P) * sizeof(Counter) + size_t(P) * size_t(P) * sizeof(Lane);
}

void init_control(void* at, int P) {
  auto* c = new (at) Control;
  for (int i = 0; i < P; ++i) new (c->fences() + i) Counter;
  for (int i = 0; i < P * P; ++i) new (c->lanes(P) + i) Lane;
}

void Regions::fail() { control_of(*this).failed.value.store(1, std::memory_order_release); }
bool Regions::failed() const {
  return control_of(*this).failed.value.load(std::memory_order_acquire) != 0;
}

HeapRegions::HeapRegions(int P, size_t bytes)
    : bytes_(bytes),
      control_(static_cast<char*>(std::aligned_alloc(kLine, control_bytes(P))), std::free) {
  if (!control_) throw std::bad_alloc();
  for (int r = 0; r < P; ++r) regions_.emplace_back(new char[std::max<size_t>(bytes, 1)]);
  init_control(control_.get(), P);
}

void HeapRegions::reserve(size_t bytes) {
  if (bytes > bytes_)
    throw std::logic_error(
        fmt::format("the in-process regions hold {} B, {} B asked for", bytes_, bytes));
}

DirectTransport::DirectTransport(Transport& control, Regions& regions, Memory& mem,
                                 std::chrono::milliseconds timeout)
    : control_(control),
      regions_(regions),
      mem_(mem),
      timeout_(timeout),
      me_(control.rank()),
      P_(control.size()),
      recvs_(P_),
      sent_(P_) {
  // The lanes and fences count on from where an earlier transport over the
  // same regions left them (none may have had a message in flight).
  Control& c = control_of(regions_);
  for (int to = 0; to < P_; ++to)
    sent_[to] = c.lanes(P_)[me_ * P_ + to].posted.value.load(std::memory_order_acquire);
  fences_ = c.fences()[me_].value.load(std::memory_order_acquire);
}

DirectTransport::~DirectTransport() = default;

// Spins on done(), serving the receives that can be served meanwhile;
// yields the core after a while, fails past the deadline or once another
// rank failed.
template <class Done, class What>
void DirectTransport::wait(Done done, What what) {
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

uint64_t DirectTransport::post(int to, const void* buf, size_t bytes) {
  if (to < 0 || to >= P_)
    throw std::logic_error(fmt::format("rank {} of {} names rank {}", me_, P_, to));
  const char* p = static_cast<const char*>(buf);
  const char* base = regions_.base(me_);
  if (bytes && (p < base || p + bytes > base + regions_.bytes()))
    throw std::logic_error(fmt::format(
        "rank {} sends {} B from outside its registered region: with --transport direct every "
        "buffer a rank sends from is in it (Memory::scratch, the job's buffers)",
        me_, bytes));
  mem_.sync();  // on the GPU: what was queued into the buffer has landed before it is read
  waiting_.push_back({to, bytes ? size_t(p - base) : 0, bytes});
  progress();
  return sent_[to]++;
}

bool DirectTransport::take(int from) {
  Lane& lane = control_of(regions_).lanes(P_)[from * P_ + me_];
  const uint64_t n = lane.taken.value.load(std::memory_order_relaxed);
  if (recvs_[from].empty() || lane.posted.value.load(std::memory_order_acquire) == n) return false;
  const Lane::Slot slot = lane.slots[n % kSlots];
  const Recv r = recvs_[from].front();
  if (slot.bytes != r.bytes)
    throw std::logic_error(fmt::format("rank {} expected {} bytes from rank {}, got {}", me_,
                                       r.bytes, from, slot.bytes));
  const char* src = regions_.base(from) + slot.offset;
  for (size_t at = 0; at < r.bytes || at == 0; at += kPiece_B) {
    const size_t len = std::min(kPiece_B, r.bytes - at);
    mem_.copy(r.buf + at, src + at, len);
    if (r.landed) (*r.landed)(at, len);
    if (r.bytes == 0) break;
  }
  mem_.sync();  // copied before the sender may reuse its buffer
  moved_.read_B += r.bytes;
  recvs_[from].pop_front();
  lane.taken.value.store(n + 1, std::memory_order_release);
  return true;
}

void DirectTransport::progress() {
  Lane* lanes = control_of(regions_).lanes(P_);
  // Into free slots, in the order posted to each rank; a full lane holds up
  // the sends to its rank only.
  std::vector<bool> full(waiting_.empty() ? 0 : P_);
  for (auto it = waiting_.begin(); it != waiting_.end();) {
    Lane& lane = lanes[me_ * P_ + it->to];
    const uint64_t n = lane.posted.value.load(std::memory_order_relaxed);
    if (full[it->to] || n - lane.taken.value.load(std::memory_order_acquire) == kSlots) {
      full[it->to] = true;
      ++it;
      continue;
    }
    lane.slots[n % kSlots] = {it->offset, it->bytes};
    lane.posted.value.store(n + 1, std::memory_order_release);
    it = waiting_.erase(it);
  }
  for (int from = 0; from < P_; ++from)
    while (take(from)) {
    }
}

void DirectTransport::exchange(int to, const void* s, size_t sbytes, int from, void* r,
                               size_t rbytes, const Landed* landed) {
  const uint64_t n = to != kNoRank ? post(to, s, sbytes) : 0;
  if (from != kNoRank) {
    if (from < 0 || from >= P_)
      throw std::logic_error(fmt::format("rank {} of {} names rank {}", me_, P_, from));
    // Beside a send, what lands is reduced only once the send was taken:
    // the reduction may write the very buffer the receiver is still reading
    // (recursive doubling sends and accumulates in one).
    auto& queue = recvs_[from];
    queue.push_back({static_cast<char*>(r), rbytes, to == kNoRank ? landed : nullptr});
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
    if (from != kNoRank && landed)
      for (size_t at = 0; at < rbytes; at += kPiece_B)
        (*landed)(at, std::min(kPiece_B, rbytes - at));
  }
}

void DirectTransport::isend(int to, const void* buf, size_t bytes) {
  isends_.emplace_back(to, post(to, buf, bytes));
}

void DirectTransport::irecv(int from, void* buf, size_t bytes) {
  if (from < 0 || from >= P_)
    throw std::logic_error(fmt::format("rank {} of {} names rank {}", me_, P_, from));
  recvs_[from].push_back({static_cast<char*>(buf), bytes, nullptr});
  progress();
}

void DirectTransport::wait_sends() {
  Lane* lanes = control_of(regions_).lanes(P_);
  for (const auto& [to, n] : isends_) {
    const Lane& lane = lanes[me_ * P_ + to];
    wait([&, n = n] { return lane.taken.value.load(std::memory_order_acquire) > n; },
         [&, to = to] { return fmt::format("its message to rank {} to be received", to); });
  }
  isends_.clear();
}

void DirectTransport::wait_all() {
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

int DirectTransport::probe_any() {
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

const char* DirectTransport::at(int rank, const void* mine) const {
  const char* p = static_cast<const char*>(mine);
  const char* base = regions_.base(me_);
  if (p < base || p > base + regions_.bytes())
    throw std::logic_error(fmt::format("rank {}: a buffer outside its registered region", me_));
  return regions_.base(rank) + (p - base);
}

void DirectTransport::read(int from, const void* theirs, void* dst, size_t bytes) {
  mem_.copy(dst, theirs, bytes);
  if (from != me_) moved_.read_B += bytes;
}

void DirectTransport::read_reduce(int from, const void* theirs, void* acc, size_t count,
                                  const Reduction& red) {
  mem_.reduce(red, acc, theirs, count);
  if (from != me_) moved_.read_B += count * red.esize();
}

void DirectTransport::read_reduce_to(int a_from, const void* a, int b_from, const void* b,
                                     void* dst, size_t count, const Reduction& red) {
  mem_.reduce_to(red, dst, a, b, count);
  moved_.read_B += (a_from != me_) * count * red.esize() + (b_from != me_) * count * red.esize();
}

// Each rank counts its fences in its own counter and waits for every other
// rank's to reach its own: one store and P - 1 loads, no message.
void DirectTransport::fence() {
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
