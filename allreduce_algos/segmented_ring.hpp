// The segmented ring all-reduce (segmented_ring.cpp): what the harness
// needs of it beside its entry in algorithms.def.
#pragma once
#include <cstddef>

#include "core/comm/time_model.hpp"

namespace commlab {

// The segment (a power-of-two share of a chunk of
// chunk_B bytes, whole elements) for which the time model predicts the
// fastest pipelined step; the chunk itself when it holds no whole element.
size_t best_segment_B(const CostModel& m, size_t chunk_B, size_t esize);

}  // namespace commlab
