// What the operations' library calls share about parts (library_parts.cpp).
#pragma once
#include <vector>

#include "collectives/algorithm.hpp"
#include "core/vocabulary/partition.hpp"

namespace commlab {

// Counts and displacements for MPI's v-variants (ints: the program refuses
// counts over INT_MAX), and whether the plain call will do.
struct MpiParts {
  explicit MpiParts(const Partition& parts);
  std::vector<int> counts, displs;
  bool even;
};

// Scatter and gather in NCCL, which has neither: grouped ncclSend/ncclRecv
// of part r of the root's buffer to rank r (root_sends), or from it.
void nccl_root_parts(const CollectiveJob& j, bool root_sends);

}  // namespace commlab
