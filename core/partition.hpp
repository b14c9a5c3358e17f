// Cutting `count` elements into P parts "as equal as possible": the first
// count % P parts get one element more (brief.md). Counts below P give empty parts.
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
};

}  // namespace commlab
