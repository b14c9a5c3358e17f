// How the GPU's reduction splits `count` elements for its 16-byte vector
// loads (device_cuda.cu): a head done element by element until the pointers
// reach a 16-byte boundary, the packs, and a tail. A chunk starts anywhere in
// a buffer (two_shot's chunk i at i x count / P elements), but the regions
// are symmetric, so the three pointers are alike off the boundary and only a
// few elements need doing one by one; pointers off it by different amounts
// are done one by one throughout. Host and device code (the kernels split
// each message so), tested on the host without a GPU.
#pragma once
#include <cstddef>
#include <cstdint>

#include "core/vocabulary/half.hpp"  // COMMLAB_HOST_DEVICE

namespace commlab {

struct PackSplit {
  size_t head = 0, packs = 0, tail = 0;  // elements, 16-byte packs, elements
};

COMMLAB_HOST_DEVICE inline PackSplit split_for_packs(uintptr_t dst, uintptr_t a, uintptr_t b,
                                                     size_t count, size_t esize) {
  const uintptr_t off = dst % 16;
  if (off != a % 16 || off != b % 16 || off % esize != 0) return {count, 0, 0};
  PackSplit s;
  const size_t to_boundary = size_t((16 - off) % 16) / esize;
  s.head = count < to_boundary ? count : to_boundary;
  s.packs = (count - s.head) / (16 / esize);
  s.tail = count - s.head - s.packs * (16 / esize);
  return s;
}

}  // namespace commlab
