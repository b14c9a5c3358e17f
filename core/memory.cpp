#include "memory.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>

#include "device.hpp"

namespace commlab {

Memory::~Memory() {
  if (on_gpu())
    gpu::release(scratch_);
  else
    std::free(scratch_);
}

void Memory::place_scratch(void* at, size_t bytes) {
  placed_ = at;
  placed_B_ = at ? bytes : 0;
}

void* Memory::scratch(size_t bytes) {
  if (placed_) {
    if (bytes > placed_B_)
      throw std::logic_error(fmt::format(
          "scratch of {} B asked for, the registered region holds {} B", bytes, placed_B_));
    return placed_;
  }
  if (bytes <= scratch_B_ && scratch_) return scratch_;
  if (on_gpu()) {
    gpu::release(scratch_);
    scratch_ = gpu::alloc(bytes);
  } else {
    std::free(scratch_);
    scratch_ = std::malloc(bytes ? bytes : 1);
    if (!scratch_) throw std::bad_alloc();
  }
  scratch_B_ = bytes;
  return scratch_;
}

void Memory::copy(void* dst, const void* src, size_t bytes) {
  if (bytes == 0 || dst == src) return;
  moved_B_ += 2 * bytes;
  if (on_gpu())
    gpu::copy(dst, src, bytes);
  else
    std::memcpy(dst, src, bytes);
}

void Memory::reduce(const Reduction& red, void* acc, const void* in, size_t count) {
  moved_B_ += 3 * count * red.esize();
  if (on_gpu())
    gpu::reduce(red.dtype, red.op, acc, in, count);
  else
    red.apply(acc, in, count);
}

void Memory::reduce_to(const Reduction& red, void* dst, const void* a, const void* b,
                       size_t count) {
  moved_B_ += 3 * count * red.esize();
  if (on_gpu())
    gpu::reduce_to(red.dtype, red.op, dst, a, b, count);
  else
    red.apply_to(dst, a, b, count);
}

void Memory::sync() {
  if (on_gpu()) gpu::sync();
}

}  // namespace commlab
