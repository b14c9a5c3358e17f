#include "buffer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>

#include "core/device/device.hpp"

namespace commlab {

Buffer::Buffer(DType dtype, size_t count, Device where)
    : dtype_(dtype), count_(count), where_(where) {
  if (where == Device::cuda) {
    runtime_ = {gpu::alloc(bytes()), gpu::release};
    data_ = runtime_.get();
    return;
  }
  // Never a null pointer, even when empty: some MPI calls refuse one (a
  // v-variant at a rank whose part is empty).
  host_.reset(host_alloc(bytes()));
  data_ = host_.get();
}

Buffer Buffer::page_locked(DType dtype, size_t count) {
  Buffer b(dtype, 0);
  b.count_ = count;
  b.runtime_ = {gpu::alloc_pinned(b.bytes()), gpu::release_pinned};
  b.data_ = b.runtime_.get();
  return b;
}

Buffer Buffer::view(DType dtype, size_t count, Device where, void* at) {
  Buffer b(dtype, 0);
  b.count_ = count;
  b.where_ = where;
  b.data_ = at;
  return b;
}

void Buffer::fill(const std::function<int64_t(size_t)>& value) {
  // On the GPU: generated on the host, then one upload (untimed, once per shape).
  Buffer staged(dtype_, where_ == Device::host ? 0 : count_);
  Buffer& target = where_ == Device::host ? *this : staged;
  visit_dtype(dtype_, [&](auto x) {
    using T = decltype(x);
    auto* p = static_cast<T*>(target.data());
    for (size_t i = 0; i < count_; ++i) p[i] = static_cast<T>(value(i));
  });
  if (where_ == Device::cuda) copy_from(staged);
}

void Buffer::copy_from(const Buffer& other) {
  if (other.bytes() != bytes()) throw std::logic_error("Buffer::copy_from: size differs");
  if (bytes() == 0) return;
  if (where_ == Device::host && other.where_ == Device::host) {
    std::memcpy(data_, other.data_, bytes());
    return;
  }
  gpu::copy(data_, other.data_, bytes());
  gpu::sync();
}

Buffer Buffer::on_host() const {
  Buffer h(dtype_, count_);
  h.copy_from(*this);
  return h;
}

double Buffer::at(size_t i) const {
  return visit_dtype(dtype_, [&](auto x) {
    using T = decltype(x);
    T v;
    if (where_ == Device::host) return static_cast<double>(static_cast<const T*>(data_)[i]);
    gpu::copy(&v, static_cast<const T*>(data_) + i, sizeof v);
    gpu::sync();
    return static_cast<double>(v);
  });
}

std::vector<double> Buffer::values() const {
  if (where_ == Device::cuda) return on_host().values();
  std::vector<double> v(count_);
  visit_dtype(dtype_, [&](auto x) {
    auto* p = static_cast<const decltype(x)*>(data_);
    for (size_t i = 0; i < count_; ++i) v[i] = static_cast<double>(p[i]);
  });
  return v;
}

Buffer Buffer::from_bytes(DType dtype, const std::vector<char>& bytes) {
  Buffer b(dtype, bytes.size() / element_size(dtype));
  if (b.bytes()) std::memcpy(b.data(), bytes.data(), b.bytes());
  return b;
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

Mismatch compare(const Buffer& got, const std::function<int64_t(size_t)>& expected,
                 size_t first_n) {
  if (got.where() == Device::cuda) return compare(got.on_host(), expected, first_n);
  return compare_with(
      got, [&](size_t i, auto x) { return static_cast<decltype(x)>(expected(i)); }, first_n);
}

Mismatch compare(const Buffer& got, const Buffer& reference, size_t first_n) {
  const size_t n = std::min(first_n, got.count());
  if (got.dtype() != reference.dtype() || reference.count() < n)
    throw std::logic_error("compare: buffers differ in type or size");
  if (got.where() == Device::cuda && reference.where() == Device::cuda) {
    gpu::Difference d = gpu::compare(got.dtype(), got.data(), reference.data(), n);
    Mismatch m{d.count, ""};
    if (d.count)
      m.first = fmt::format("element {}: got {:g}, want {:g}", d.first, got.at(d.first),
                            reference.at(d.first));
    return m;
  }
  if (got.where() == Device::cuda || reference.where() == Device::cuda)
    return compare(got.on_host(), reference.on_host(), first_n);
  return compare_with(
      got, [&](size_t i, auto x) { return static_cast<const decltype(x)*>(reference.data())[i]; },
      n);
}

}  // namespace commlab
