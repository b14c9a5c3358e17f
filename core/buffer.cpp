#include "buffer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace commlab {

Buffer::Buffer(DType dtype, size_t count)
    : dtype_(dtype), count_(count), bytes_(count * element_size(dtype)) {
  // Never a null pointer, even when empty: some MPI calls refuse one (a
  // v-variant at a rank whose part is empty).
  if (bytes_.empty()) bytes_.reserve(1);
}

void Buffer::fill(const std::function<int64_t(size_t)>& value) {
  visit_dtype(dtype_, [&](auto x) {
    using T = decltype(x);
    auto* p = reinterpret_cast<T*>(bytes_.data());
    for (size_t i = 0; i < count_; ++i) p[i] = static_cast<T>(value(i));
  });
}

void Buffer::copy_from(const Buffer& other) {
  if (other.bytes() != bytes()) throw std::logic_error("Buffer::copy_from: size differs");
  if (!bytes_.empty()) std::memcpy(bytes_.data(), other.bytes_.data(), bytes_.size());
}

double Buffer::at(size_t i) const {
  return visit_dtype(dtype_, [&](auto x) {
    using T = decltype(x);
    return static_cast<double>(reinterpret_cast<const T*>(bytes_.data())[i]);
  });
}

std::string Buffer::format(size_t max_shown) const {
  std::string s = "[";
  for (size_t i = 0; i < count_; ++i) {
    if (count_ > max_shown && i == max_shown - 1) {
      s += "... ";
      i = count_ - 1;
    }
    s += fmt::format("{:g}{}", at(i), i + 1 < count_ ? " " : "");
  }
  return s + "]";
}

void* Workspace::get(size_t bytes) {
  if (bytes_.size() < bytes) bytes_.resize(bytes);
  return bytes_.data();
}

namespace {
template <class Expected>
Mismatch compare_with(const Buffer& got, Expected expected, size_t first_n = SIZE_MAX) {
  Mismatch m;
  const size_t n = std::min(first_n, got.count());
  visit_dtype(got.dtype(), [&](auto x) {
    using T = decltype(x);
    auto* p = static_cast<const T*>(got.data());
    for (size_t i = 0; i < n; ++i) {
      T want = expected(i, x);
      if (p[i] == want) continue;
      if (m.wrong++ == 0)
        m.first = fmt::format("element {}: got {:g}, want {:g}", i, static_cast<double>(p[i]),
                              static_cast<double>(want));
    }
  });
  return m;
}
}  // namespace

Mismatch compare(const Buffer& got, const std::function<int64_t(size_t)>& expected) {
  return compare_with(got, [&](size_t i, auto x) { return static_cast<decltype(x)>(expected(i)); });
}

Mismatch compare(const Buffer& got, const Buffer& reference, size_t first_n) {
  const size_t n = std::min(first_n, got.count());
  if (got.dtype() != reference.dtype() || reference.count() < n)
    throw std::logic_error("compare: buffers differ in type or size");
  return compare_with(
      got, [&](size_t i, auto x) { return static_cast<const decltype(x)*>(reference.data())[i]; },
      n);
}

}  // namespace commlab
