#include "memory.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>

#include "device.hpp"
#include "host_alloc.hpp"

namespace commlab {

Memory::~Memory() {
  if (on_gpu())
    gpu::release(scratch_);
  else
    host_free(scratch_);
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
    host_free(scratch_);
    scratch_ = nullptr;  // not freed twice if the next allocation throws
    scratch_ = host_alloc(bytes);
  }
  scratch_B_ = bytes;
  return scratch_;
}

void Memory::copy(void* dst, const void* src, size_t bytes) {
  if (bytes == 0 || dst == src) return;
  if (log_) log_->copied(dst, src, bytes);
  moved_B_ += 2 * bytes;
  queue();
  if (programs_)
    gpu::program().copy(dst, src, bytes);
  else if (on_gpu())
    gpu::copy(dst, src, bytes);
  else
    std::memcpy(dst, src, bytes);
}

void Memory::reduce(const Reduction& red, void* acc, const void* in, size_t count) {
  if (count == 0) return;
  if (log_) log_->reduced(red, acc, in, nullptr, count);
  moved_B_ += 3 * count * red.esize();
  queue();
  if (programs_)
    gpu::program().reduce_to(red.dtype, red.op, acc, acc, in, count);
  else if (on_gpu())
    gpu::reduce(red.dtype, red.op, acc, in, count);
  else
    red.apply(acc, in, count);
}

void Memory::reduce_to(const Reduction& red, void* dst, const void* a, const void* b,
                       size_t count) {
  if (count == 0) return;
  if (log_) log_->reduced(red, dst, a, b, count);
  moved_B_ += 3 * count * red.esize();
  queue();
  if (programs_)
    gpu::program().reduce_to(red.dtype, red.op, dst, a, b, count);
  else if (on_gpu())
    gpu::reduce_to(red.dtype, red.op, dst, a, b, count);
  else
    red.apply_to(dst, a, b, count);
}

void Memory::reduce_many(const Reduction& red, void* dst, const void* const* terms, int n,
                         size_t count) {
  if (count == 0 || n == 0) return;
  if (log_) log_->cannot_replay("a reduction of many terms");
  moved_B_ += uint64_t(n + 1) * count * red.esize();
  queue();
  if (programs_) return gpu::program().reduce_many(red.dtype, red.op, dst, terms, n, count);
  if (on_gpu()) return gpu::reduce_many(red.dtype, red.op, dst, terms, n, count);
  // In blocks that stay in cache: the first two terms, then each other folded in.
  constexpr size_t kBlock_B = 64 << 10;
  const size_t es = red.esize(), per = std::max<size_t>(1, kBlock_B / es);
  auto at = [es](const void* p, size_t i) { return static_cast<const char*>(p) + i * es; };
  char* out = static_cast<char*>(dst);
  for (size_t i = 0; i < count; i += per) {
    const size_t m = std::min(per, count - i);
    if (n == 1)
      std::memmove(out + i * es, at(terms[0], i), m * es);
    else
      red.apply_to(out + i * es, at(terms[0], i), at(terms[1], i), m);
    for (int k = 2; k < n; ++k) red.apply(out + i * es, at(terms[k], i), m);
  }
}

void Memory::signal(const SignalOp& op) {
  if (log_) log_->cannot_replay("a signal between ranks");
  queue();
  if (on_gpu())
    gpu::program().signal(op);
  else
    run_signal_op(op);
}

void Memory::sync() {
  waits_ += queued_;
  queued_ = false;
  if (on_gpu()) gpu::sync();
}

}  // namespace commlab
