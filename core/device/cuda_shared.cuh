// What the GPU backend's two files share: device_cuda.cu (memory, copies,
// reductions, the stream) and program_cuda.cu (the device program, one
// kernel a call over direct access): the stream, the error checks, the
// launch count, and the 16-byte packs both reduce in.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "core/vocabulary/types.hpp"
#include "packs.hpp"

namespace commlab::gpu::detail {

extern cudaStream_t g_stream;
extern int g_multiprocessors;
extern uint64_t g_launches;  // Activity's

// A failed CUDA call: thrown (check), or said on stderr where nothing can be thrown (warn).
void check(cudaError_t e, const char* what);
void warn(cudaError_t e, const char* what);

constexpr int kThreads = 256;
// Enough blocks to fill every multiprocessor a few times over; each thread
// strides through the rest.
unsigned blocks_for(size_t items);

// program_cuda.cu's: the gathered program launched (before anything else is
// queued or waited for), a failed wait of a program reported (after a
// sync), and every program kernel loaded (when the GPU is chosen).
void launch_program();
void check_signals();
void load_programs();

// 16 bytes of T: one vector load per thread keeps the kernel at copy speed.
template <class T>
struct alignas(16) Pack {
  T v[16 / sizeof(T)];
};

// dst = a (op) b over the split's elements, this thread's share of them
// (from `first`, every `stride`): the head element by element up to a
// 16-byte boundary, the packs with one vector load of each term before the
// store, the tail (packs.hpp). dst may be a or b; either term may be a
// peer's memory (CUDA IPC). The reduction kernel and the signal kernel's
// reducing messages both run it, so both reduce at copy speed.
template <class T, Op O>
__device__ void reduce_split(T* d, const T* a, const T* b, PackSplit s, size_t first,
                             size_t stride) {
  for (size_t i = first; i < s.head; i += stride) d[i] = combine(O, a[i], b[i]);
  auto* dp = reinterpret_cast<Pack<T>*>(d + s.head);
  auto* ap = reinterpret_cast<const Pack<T>*>(a + s.head);
  auto* bp = reinterpret_cast<const Pack<T>*>(b + s.head);
  for (size_t i = first; i < s.packs; i += stride) {
    Pack<T> x = ap[i];
    const Pack<T> y = bp[i];
#pragma unroll
    for (int k = 0; k < int(16 / sizeof(T)); ++k) x.v[k] = combine(O, x.v[k], y.v[k]);
    dp[i] = x;
  }
  const size_t rest = s.head + s.packs * (16 / sizeof(T));
  for (size_t i = first; i < s.tail; i += stride)
    d[rest + i] = combine(O, a[rest + i], b[rest + i]);
}

// dst := t[0] (op) t[1] ..., in that order (every rank the same sum), or
// dst (op)= them (onto), this thread's share: in 16-byte packs where every
// term sits as dst does off a 16-byte boundary (the symmetric regions'
// buffers do), element by element otherwise.
template <class T, Op O>
__device__ void fold_split(T* d, const void* const* terms, uint32_t n, size_t count, bool onto) {
  const auto term = [&](uint32_t k) { return static_cast<const T*>(terms[k]); };
  const auto at = [](const void* q) { return reinterpret_cast<uintptr_t>(q); };
  const size_t first = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  PackSplit split = split_for_packs(at(d), at(d), at(d), count, sizeof(T));
  for (uint32_t k = 0; k < n; ++k)
    if (at(term(k)) % 16 != at(d) % 16) split = PackSplit{count, 0, 0};
  const auto fold = [&](size_t i) {
    T x = onto ? d[i] : term(0)[i];
    for (uint32_t k = onto ? 0 : 1; k < n; ++k) x = combine(O, x, term(k)[i]);
    d[i] = x;
  };
  for (size_t i = first; i < split.head; i += stride) fold(i);
  using P = Pack<T>;
  for (size_t i = first; i < split.packs; i += stride) {
    auto* dp = reinterpret_cast<P*>(d + split.head) + i;
    P x = onto ? *dp : reinterpret_cast<const P*>(term(0) + split.head)[i];
    for (uint32_t k = onto ? 0 : 1; k < n; ++k) {
      const P y = reinterpret_cast<const P*>(term(k) + split.head)[i];
#pragma unroll
      for (int e = 0; e < int(16 / sizeof(T)); ++e) x.v[e] = combine(O, x.v[e], y.v[e]);
    }
    *dp = x;
  }
  const size_t rest = split.head + split.packs * (16 / sizeof(T));
  for (size_t i = first; i < split.tail; i += stride) fold(rest + i);
}

}  // namespace commlab::gpu::detail
