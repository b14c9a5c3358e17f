// The two 16-bit floating-point types GPUs reduce in: IEEE float16 (1 sign, 5
// exponent, 10 fraction bits) and bfloat16 (float32's top 16 bits). Each is
// stored as its bits and does its arithmetic in float32, rounding the result
// to nearest-even: the same on the host, which checks results, and in the
// GPU kernels (where the conversions are single instructions).
#pragma once
#include <cstdint>
#include <cstring>

#ifdef __CUDACC__
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#define COMMLAB_HOST_DEVICE __host__ __device__
#else
#define COMMLAB_HOST_DEVICE
#endif

namespace commlab {

namespace half_bits {

COMMLAB_HOST_DEVICE inline uint32_t of(float f) {
  uint32_t x;
  memcpy(&x, &f, sizeof x);
  return x;
}
COMMLAB_HOST_DEVICE inline float to_float(uint32_t x) {
  float f;
  memcpy(&f, &x, sizeof f);
  return f;
}

// Round-to-nearest-even of float32 to float16, subnormals and overflow included.
COMMLAB_HOST_DEVICE inline uint16_t from_float(float f) {
#ifdef __CUDA_ARCH__
  return __half_as_ushort(__float2half_rn(f));
#else
  uint32_t x = of(f);
  const uint32_t sign = (x >> 16) & 0x8000;
  x &= 0x7FFFFFFF;
  if (x >= 0x7F800000) return sign | (x > 0x7F800000 ? 0x7E00 : 0x7C00);  // NaN, infinity
  if (x >= 0x477FF000) return sign | 0x7C00;  // 65520 and up round to infinity
  if (x < 0x38800000) {                       // below 2^-14: a subnormal float16
    if (x <= 0x33000000) return sign;         // 2^-25 and below round to zero
    const uint32_t shift = 126 - (x >> 23), m = (x & 0x7FFFFF) | 0x800000;
    uint32_t h = m >> shift;
    const uint32_t rest = m & ((1u << shift) - 1), tie = 1u << (shift - 1);
    if (rest > tie || (rest == tie && (h & 1))) ++h;
    return static_cast<uint16_t>(sign | h);
  }
  uint32_t h = (x - 0x38000000) >> 13;  // exponent rebiased from 127 to 15
  const uint32_t rest = x & 0x1FFF;
  if (rest > 0x1000 || (rest == 0x1000 && (h & 1))) ++h;  // a carry rounds into the exponent
  return static_cast<uint16_t>(sign | h);
#endif
}

COMMLAB_HOST_DEVICE inline float to_float16_value(uint16_t h) {
#ifdef __CUDA_ARCH__
  return __half2float(__ushort_as_half(h));
#else
  const uint32_t sign = uint32_t(h & 0x8000) << 16, e = (h >> 10) & 0x1F, m = h & 0x3FF;
  if (e == 0x1F) return to_float(sign | 0x7F800000 | (m << 13));
  if (e == 0) {  // zero or subnormal: m x 2^-24, exact in float32
    const float v = float(m) * 5.9604644775390625e-08f;
    return sign ? -v : v;
  }
  return to_float(sign | ((e + 112) << 23) | (m << 13));
#endif
}

COMMLAB_HOST_DEVICE inline uint16_t bfloat16_from_float(float f) {
  const uint32_t x = of(f);
  if ((x & 0x7FFFFFFF) > 0x7F800000) return static_cast<uint16_t>((x >> 16) | 0x40);  // quiet NaN
  return static_cast<uint16_t>((x + 0x7FFF + ((x >> 16) & 1)) >> 16);  // nearest, ties to even
}

}  // namespace half_bits

struct float16 {
  uint16_t bits = 0;
  float16() = default;
  COMMLAB_HOST_DEVICE float16(float f) : bits(half_bits::from_float(f)) {}
  COMMLAB_HOST_DEVICE operator float() const { return half_bits::to_float16_value(bits); }
};

struct bfloat16 {
  uint16_t bits = 0;
  bfloat16() = default;
  COMMLAB_HOST_DEVICE bfloat16(float f) : bits(half_bits::bfloat16_from_float(f)) {}
  COMMLAB_HOST_DEVICE operator float() const { return half_bits::to_float(uint32_t(bits) << 16); }
};

}  // namespace commlab
