#include "pattern.hpp"

#include "reduce.hpp"

namespace commlab {

int64_t fill_value(Fill fill, Op op, int rank, size_t index, int P) {
  if (fill == Fill::rank) return rank;
  const int64_t i = static_cast<int64_t>(index), r = rank, p = P;
  if (op == Op::prod) {
    const int64_t k = p <= 40 ? 2 : (p + 19) / 20;
    return (r + i) % k == 0 ? 2 : 1;
  }
  return 1 + (r + i) % p + p * (i % 3);
}

int64_t move_value(Fill fill, int rank, size_t index) {
  if (fill == Fill::rank) return rank;
  return 1 + static_cast<int64_t>((uint64_t(rank) * 7919 + index) % 8388593);  // a prime
}

int64_t reduced_value(Fill fill, Op op, size_t index, int P) {
  int64_t acc = fill_value(fill, op, 0, index, P);
  for (int r = 1; r < P; ++r) acc = combine(op, acc, fill_value(fill, op, r, index, P));
  return acc;
}

}  // namespace commlab
