#include "signals.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "core/vocabulary/failures.hpp"
#include "reduce.hpp"

namespace commlab {

std::string describe_wait(int rank, const SignalWait& w, double seconds) {
  std::string what;
  switch (w.what) {
    case Awaited::room:
      what = fmt::format("rank {} to take its message {} and free a slot", w.peer,
                         w.at_least + kSignalSlots - 1);
      break;
    case Awaited::posted:
      what = fmt::format("rank {} to post its message {}", w.peer, w.at_least - 1);
      break;
    case Awaited::taken:
      what = fmt::format("rank {} to take its message {}", w.peer, w.at_least - 1);
      break;
    case Awaited::fence:
      what = fmt::format("rank {} to reach fence {}", w.peer, w.at_least);
      break;
    case Awaited::blocks:
      return fmt::format(
          "rank {} waited {:g} s for its own kernel's blocks to finish a step "
          "(the GPU cannot keep them all resident, or one failed)",
          rank, seconds);
  }
  return fmt::format("rank {} waited {:g} s for {}: the schedule deadlocks, or rank {} failed",
                     rank, seconds, what, w.peer);
}

namespace {

// The pads are plain words that several processes (or threads) map: the
// compilers' atomic builtins on them, as std::atomic_ref would in C++20.
uint64_t acquire(const uint64_t* flag) { return __atomic_load_n(flag, __ATOMIC_ACQUIRE); }
void release(const SignalWrite& w) { __atomic_store_n(w.flag, w.value, __ATOMIC_RELEASE); }

void wait_for(const SignalOp& op, const SignalWait& w) {
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(op.deadline_s));
  for (uint64_t spins = 0; acquire(w.flag) < w.at_least; ++spins) {
    if (spins < 64) continue;
    std::this_thread::yield();
    if (spins % 1024) continue;
    if (op.failed && acquire(op.failed)) throw OtherRankFailed{};
    if (std::chrono::steady_clock::now() > deadline)
      throw Timeout(describe_wait(op.rank, w, op.deadline_s));
  }
}

void take(const SignalOp& op) {
  wait_for(op, op.arrived);
  const SignalSlot s = *op.from_slot;  // written before `posted` was released
  if (s.bytes != op.bytes)
    throw std::logic_error(fmt::format("rank {} expected {} bytes from rank {}, got {}", op.rank,
                                       op.bytes, op.arrived.peer, s.bytes));
  const char* src = op.peer_base + s.offset;
  if (op.reduce) {
    const Reduction red{op.dtype, op.op};
    if (op.mine)
      red.apply_to(op.dst, op.mine, src, op.bytes / red.esize());
    else
      red.apply(op.dst, src, op.bytes / red.esize());
  } else if (op.bytes) {
    std::memcpy(op.dst, src, op.bytes);
  }
  release(op.taken);
}

}  // namespace

void run_signal_op(const SignalOp& op) {
  if (op.post) {
    wait_for(op, op.room);
    *op.slot = op.where;
    release(op.posted);
  }
  for (int i = 0; i < op.writes; ++i) release(op.write[i]);
  if (op.take) take(op);
  for (int i = 0; i < op.waits; ++i) wait_for(op, op.wait[i]);
}

}  // namespace commlab
