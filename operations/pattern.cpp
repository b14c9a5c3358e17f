#include "pattern.hpp"

#include <algorithm>
#include <stdexcept>

#include "core/device/reduce.hpp"

namespace commlab {

int64_t exact_integers(DType t) {
  switch (t) {
#define COMMLAB_DTYPE(name, cxx, mpi, nccl, exact) \
  case DType::name:                                \
    return exact;
#include "core/vocabulary/dtypes.def"
#undef COMMLAB_DTYPE
  }
  throw std::logic_error("exact_integers: not a dtype");
}

Pattern::Pattern(Fill fill_, DType dtype_, Op op_, int P_)
    : fill(fill_), dtype(dtype_), op(op_), P(P_) {
  const int64_t p = P, factors = dtype == DType::float16 ? 15 : 20;  // float16 ends at 65504
  k_ = std::max<int64_t>(2, (p + factors - 1) / factors);
  m_ = std::clamp<int64_t>(exact_integers(dtype) / std::max<int64_t>(3 * p, 1), 1,
                           std::max<int64_t>(p, 1));
  const int64_t limit = exact_integers(dtype);
  prime_ = limit > 8388593 ? 8388593 : limit > 2039 ? 2039 : 251;
}

int64_t Pattern::value(int rank, size_t index) const {
  const int64_t i = static_cast<int64_t>(index), r = rank, p = P;
  if (fill == Fill::rank) {
    // 10r + i: the tens say whose, the units where, so that a chunk added into
    // the wrong place shows in --show. r alone for a product, and where the
    // sum of P such values would not be exact in the dtype.
    const bool exact = 10 * (p - 1) + i <= exact_integers(dtype) / std::max<int64_t>(p, 1);
    return op != Op::prod && exact ? 10 * r + i : r;
  }
  if (op == Op::prod) return (r + i) % k_ == 0 ? 2 : 1;
  return 1 + (r + i) % m_ + m_ * (i % 3);
}

int64_t Pattern::moved(int rank, size_t index) const {
  if (fill == Fill::rank) return rank;
  return 1 + static_cast<int64_t>((uint64_t(rank) * 7919 + index) % uint64_t(prime_));
}

int64_t Pattern::reduced(size_t index) const {
  int64_t acc = value(0, index);
  for (int r = 1; r < P; ++r) acc = combine(op, acc, value(r, index));
  return acc;
}

}  // namespace commlab
