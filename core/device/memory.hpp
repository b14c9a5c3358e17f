// Where an algorithm's buffers live: host memory or this rank's GPU. The
// algorithms copy and reduce only through here, so one schedule runs on either;
// on the GPU both are queued on the stream and run in the order asked.
#pragma once
#include <cstddef>
#include <cstdint>

#include "core/vocabulary/types.hpp"
#include "reduce.hpp"
#include "signals.hpp"

namespace commlab {

// Told of every copy and reduction a Memory is asked for, in order: how the
// recorder (core/comm/schedule.hpp) keeps an algorithm's own work beside its
// messages, so that its schedule can be run again without the algorithm.
class MemoryLog {
 public:
  virtual ~MemoryLog() = default;
  virtual void copied(void* dst, const void* src, size_t bytes) = 0;
  // dst (op)= a, or with b: dst := a (op) b.
  virtual void reduced(const Reduction& red, void* dst, const void* a, const void* b,
                       size_t count) = 0;
  // Something a schedule cannot be replayed from (a reduction of many terms, a signal).
  virtual void cannot_replay(const char* what) = 0;
};

class Memory {
 public:
  explicit Memory(Device where = Device::host) : where_(where) {}
  ~Memory();
  Memory(const Memory&) = delete;
  Memory& operator=(const Memory&) = delete;

  Device where() const { return where_; }
  bool on_gpu() const { return where_ == Device::cuda; }

  // Room for incoming data. Grows, never shrinks, so the timed loop does not allocate.
  void* scratch(size_t bytes);
  // From now on scratch() is `bytes` at `at`, owned by someone else (the
  // direct transport's registered region, which peers can read); asking for
  // more is an error. Null: back to memory of its own.
  void place_scratch(void* at, size_t bytes);
  void copy(void* dst, const void* src, size_t bytes);
  // acc[i] = acc[i] (op) in[i] for i < count.
  void reduce(const Reduction& red, void* acc, const void* in, size_t count);
  // dst[i] = a[i] (op) b[i], in one pass; dst may be a or b.
  void reduce_to(const Reduction& red, void* dst, const void* a, const void* b, size_t count);
  // dst[i] = terms[0][i] (op) terms[1][i] (op) ... in that order, in one
  // pass (one_shot's sum of every rank's buffer); dst may be terms[0].
  void reduce_many(const Reduction& red, void* dst, const void* const* terms, int n, size_t count);
  // A direct transport's message or fence with flags that the GPU, not the
  // host, writes and polls (signals.hpp): on the GPU a step of the device
  // program (gpu::program()); on the host, run at once.
  void signal(const SignalOp& op);
  // GPU: from now on (until told otherwise) the copies and reductions too
  // are steps of the device program, so that a call over direct access is
  // one launch (direct_device_signals.hpp turns it on). Host: nothing.
  void gather_programs(bool on) { programs_ = on && on_gpu(); }
  // GPU: until every queued copy and kernel has finished (also what others
  // queued on the stream: NCCL, the staged transport). Host: nothing.
  void sync();
  // Whether this Memory queued anything since its last sync.
  bool pending() const { return queued_; }
  // The bytes the copies and reductions asked of it so far read and wrote
  // (a copy of B: 2B; a reduction of B: 3B; of n terms: (n+1)B), in its
  // memory or a peer's.
  uint64_t moved_B() const { return moved_B_; }
  // What it queued so far: copies, reductions and signal ops (on the GPU,
  // each one launch); and the syncs that followed queued work (on the GPU,
  // a host round trip each).
  uint64_t ops() const { return ops_; }
  uint64_t waits() const { return waits_; }
  // Tell `log` of every copy and reduction from now on (null: none). Comm
  // clears it while a transport works, whose own copies are not the algorithm's.
  void set_log(MemoryLog* log) { log_ = log; }
  MemoryLog* log() const { return log_; }

 private:
  Device where_;
  void* scratch_ = nullptr;
  size_t scratch_B_ = 0;
  void* placed_ = nullptr;
  size_t placed_B_ = 0;
  uint64_t moved_B_ = 0;
  uint64_t ops_ = 0, waits_ = 0;
  bool queued_ = false;  // an op since the last sync
  bool programs_ = false;
  MemoryLog* log_ = nullptr;
  void queue() { ++ops_, queued_ = true; }
};

}  // namespace commlab
