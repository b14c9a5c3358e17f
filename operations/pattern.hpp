// Fill patterns. Every value is a small integer, chosen so that sum, prod, max
// and min over all ranks stay exactly representable in the run's dtype:
// results are compared exactly, in any reduction order, and the value at a
// wrong element hints at whose data landed there.
#pragma once
#include <cstddef>
#include <cstdint>

#include "core/vocabulary/types.hpp"

namespace commlab {

enum class Fill {
  pattern,  // varies with rank and index (the default)
  rank,     // element i of rank r is 10r + i: the known vectors of docs/formulas.md, for --show
};

// The inputs of one run of P ranks: what each rank's element i holds.
class Pattern {
 public:
  Pattern(Fill fill, DType dtype, Op op, int P);
  const Fill fill;
  const DType dtype;
  const Op op;
  const int P;

  // Rank r's element i, for a reduction by `op`.
  // sum/max/min: 1 + (r+i) mod M + M*(i mod 3), M = P while the sum over P
  //   ranks (below 3*M*P) stays an exact integer of the dtype: the winning rank
  //   of max and min moves with i, and neighbouring chunks differ. float32:
  //   M = P up to P = 2364; bfloat16 (8 significant bits) only up to P = 9.
  // prod: 2 where (r+i) mod K == 0, else 1, with K growing with P so that at
  //   most 20 factors of 2 (float16: 15) meet at any element.
  int64_t value(int rank, size_t index) const;
  // For operations that move data without reducing it: a value that says whose
  // element it is and where it sat, so a block delivered to the wrong place
  // shows. Exact in the dtype: below 2^23, or 2039 (float16), 251 (bfloat16).
  int64_t moved(int rank, size_t index) const;
  // `op` over every rank's value() at `index`: the exact reduction result.
  int64_t reduced(size_t index) const;

 private:
  // value()'s M and K, and moved()'s prime, from the dtype and P once: a
  // check calls value() for every element of every rank, and these took
  // three divisions a call.
  int64_t m_, k_, prime_;
};

// The largest n such that every integer in [-n, n] is exact in `t`.
int64_t exact_integers(DType t);

}  // namespace commlab
