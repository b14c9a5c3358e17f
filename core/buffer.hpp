// Typed buffers the harness fills, checks and shows. Algorithms see raw
// pointers and counts only; what they point at is decided here.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "types.hpp"

namespace commlab {

class Buffer {
 public:
  Buffer(DType dtype, size_t count);

  DType dtype() const { return dtype_; }
  size_t count() const { return count_; }
  size_t bytes() const { return bytes_.size(); }
  void* data() { return bytes_.data(); }
  const void* data() const { return bytes_.data(); }

  // Element i := value(i), exact for the small integers the patterns use.
  void fill(const std::function<int64_t(size_t)>& value);
  void copy_from(const Buffer& other);
  double at(size_t i) const;
  // "[a b c ... z]", at most `max_shown` elements, for --show.
  std::string format(size_t max_shown = 16) const;

 private:
  DType dtype_;
  size_t count_;
  std::vector<std::byte> bytes_;
};

// Grows, never shrinks: algorithms take their scratch space from here so the
// timed loop does not allocate.
class Workspace {
 public:
  void* get(size_t bytes);

 private:
  std::vector<std::byte> bytes_;
};

// Elements of `got` that differ from expected(i), and a line about the first
// one. Only the first `first_n` elements when given (an in-place
// reduce-scatter defines only the head of its buffer).
struct Mismatch {
  uint64_t wrong = 0;
  std::string first;
};
Mismatch compare(const Buffer& got, const std::function<int64_t(size_t)>& expected);
Mismatch compare(const Buffer& got, const Buffer& reference, size_t first_n = SIZE_MAX);

}  // namespace commlab
