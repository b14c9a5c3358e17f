// Typed buffers the harness fills, checks and shows, in host memory or on
// the GPU. Algorithms see raw pointers and counts only; what they point at is
// decided here.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/device/host_alloc.hpp"
#include "core/vocabulary/types.hpp"

namespace commlab {

class Buffer {
 public:
  Buffer(DType dtype, size_t count, Device where = Device::host);
  // Host memory the GPU copies to and from at full speed (cudaMallocHost).
  static Buffer page_locked(DType dtype, size_t count);
  // `count` elements at `at`, which someone else owns and keeps (a
  // registered region's buffer): filled, copied and compared as any other.
  static Buffer view(DType dtype, size_t count, Device where, void* at);
  // A host buffer holding a copy of `bytes` (a --show snapshot), as elements of `dtype`.
  static Buffer from_bytes(DType dtype, const std::vector<char>& bytes);

  DType dtype() const { return dtype_; }
  size_t count() const { return count_; }
  size_t bytes() const { return count_ * element_size(dtype_); }
  Device where() const { return where_; }
  void* data() { return data_; }
  const void* data() const { return data_; }

  // Element i := value(i), exact for the small integers the patterns use.
  void fill(const std::function<int64_t(size_t)>& value);
  void copy_from(const Buffer& other);  // either may be on the GPU
  Buffer on_host() const;
  double at(size_t i) const;
  // Every element, as at() gives it (from the GPU in one copy).
  std::vector<double> values() const;
  // "[a b c ... z]", at most `max_shown` elements, for --show.
  std::string format(size_t max_shown = 16) const;

 private:
  DType dtype_;
  size_t count_;
  Device where_;
  HostBlock host_;  // on a page (host_alloc.hpp)
  // From the CUDA runtime: device memory, or page-locked host memory.
  std::unique_ptr<void, void (*)(void*)> runtime_{nullptr, nullptr};
  void* data_;
};

// Elements of `got` that differ from expected(i), and a line about the first
// one. Only the first `first_n` elements when given (an in-place
// reduce-scatter defines only the head of its buffer). Two GPU buffers are
// compared by a kernel, on the GPU.
struct Mismatch {
  uint64_t wrong = 0;
  std::string first;
};
Mismatch compare(const Buffer& got, const std::function<int64_t(size_t)>& expected,
                 size_t first_n = SIZE_MAX);
Mismatch compare(const Buffer& got, const Buffer& reference, size_t first_n = SIZE_MAX);

}  // namespace commlab
