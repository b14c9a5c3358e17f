// Cutting `count` elements into P parts "as equal as possible": the first
// count % P parts get one element more (docs/formulas.md). Counts below P give empty parts.
#pragma once
#include <cstddef>

namespace commlab {

struct Partition {
  size_t count;
  int parts;

  size_t size(int c) const {
    size_t base = count / parts, extra = count % parts;
    return base + (static_cast<size_t>(c) < extra ? 1 : 0);
  }
  size_t offset(int c) const {
    size_t base = count / parts, extra = count % parts, cu = static_cast<size_t>(c);
    return cu * base + (cu < extra ? cu : extra);
  }
  size_t largest() const { return size(0); }
  // The part that element i falls in (i < count).
  int part_of(size_t i) const {
    size_t base = count / parts, extra = count % parts, big = extra * (base + 1);
    return static_cast<int>(i < big ? i / (base + 1) : extra + (i - big) / base);
  }
};

// A buffer of `parts.count` elements of `esize` bytes, seen as its P chunks.
struct Chunks {
  char* base;
  Partition parts;
  size_t esize;

  char* at(int c) const { return base + parts.offset(c) * esize; }
  size_t bytes(int c) const { return parts.size(c) * esize; }
  size_t largest_B() const { return parts.largest() * esize; }
};

}  // namespace commlab
