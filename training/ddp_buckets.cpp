#include "ddp_buckets.hpp"

namespace commlab::ddp {

Bucketing bucket(int layers, size_t per_layer, size_t esize, size_t cap_B) {
  Bucketing b;
  Range open;
  for (int l = 0; l < layers; ++l) {
    open.count += per_layer;
    if (open.count * esize >= cap_B || l == layers - 1) {
      b.buckets.push_back(open);
      b.ready_after.push_back(l);
      open = {open.offset + open.count, 0};
    }
  }
  return b;
}

}  // namespace commlab::ddp
