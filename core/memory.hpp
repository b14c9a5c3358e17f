// Where an algorithm's buffers live: host memory or this rank's GPU. The
// algorithms copy and reduce only through here, so one schedule runs on either;
// on the GPU both are queued on the stream and run in the order asked.
#pragma once
#include <cstddef>
#include <cstdint>

#include "reduce.hpp"
#include "types.hpp"

namespace commlab {

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
  // GPU: until every queued copy and kernel has finished. Host: nothing.
  void sync();
  // The bytes the copies and reductions asked of it so far read and wrote
  // (a copy of B: 2B; a reduction of B: 3B), in its memory or a peer's.
  uint64_t moved_B() const { return moved_B_; }

 private:
  Device where_;
  void* scratch_ = nullptr;
  size_t scratch_B_ = 0;
  void* placed_ = nullptr;
  size_t placed_B_ = 0;
  uint64_t moved_B_ = 0;
};

}  // namespace commlab
