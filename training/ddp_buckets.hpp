// DDP's buckets: which layers' gradients are all-reduced together
// (ddp_step.hpp), apart from the step so that the flags can check them.
#pragma once
#include <cstddef>
#include <vector>

namespace commlab::ddp {

// A slice of the flat gradient vector, in elements. The layers' gradients
// lie in backward order, the last layer's first, as DDP fills its buckets.
struct Range {
  size_t offset = 0, count = 0;
};

// DDP's buckets: the layers' gradients, in backward order, into a bucket
// until it holds at least cap_B (a layer larger than the cap is a bucket of
// its own). Bucket b is ready once layer ready_after[b] (in backward order)
// has its gradient.
struct Bucketing {
  std::vector<Range> buckets;
  std::vector<int> ready_after;
};
Bucketing bucket(int layers, size_t per_layer, size_t esize, size_t cap_B);

}  // namespace commlab::ddp
