// Fill patterns. Every value is a small integer, chosen so that sum, prod, max
// and min over all ranks stay exactly representable in int32 and float32 (and
// so in int64 and float64): results are compared exactly, in any reduction
// order, and the value at a wrong element hints at whose data landed there.
#pragma once
#include <cstddef>
#include <cstdint>

#include "types.hpp"

namespace commlab {

enum class Fill {
  pattern,  // varies with rank and index (the default)
  rank,     // every element of rank r is r: brief.md's known vectors, for --show
};

// Rank r's element i in a job of P ranks, for a run of operator `op`.
// sum/max/min: 1 + (r+i) mod P + P*(i mod 3): the winning rank of max and min
//   moves with i, and neighbouring chunks differ. Sums stay below 2^24 up to
//   P = 2048.
// prod: 2 where (r+i) mod K == 0, else 1, with K growing with P so that at most
//   about 20 factors of 2 meet at any element.
int64_t fill_value(Fill fill, Op op, int rank, size_t index, int P);

// For operations that move data without reducing it: a value that says whose
// element it is and where it sat (rank r, index i), so a block delivered to the
// wrong place shows. Below 2^23: exact in every dtype.
int64_t move_value(Fill fill, int rank, size_t index);

// `op` over every rank's fill_value at `index`: the exact reduction result.
int64_t reduced_value(Fill fill, Op op, size_t index, int P);

}  // namespace commlab
