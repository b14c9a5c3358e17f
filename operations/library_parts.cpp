// What the operations' library calls share about parts: the int counts MPI's
// v-variants take, and NCCL's scatter and gather made of grouped sends.
#include "library_parts.hpp"

#include "core/device/nccl.hpp"

namespace commlab {

void nccl_root_parts(const CollectiveJob& j, bool root_sends) {
  const Partition parts = j.parts();
  const int P = j.comm.size(), me = j.comm.rank();
  // The root's side: part r with rank r. Each rank's side: its part, with the root.
  std::vector<size_t> root_counts(P), root_displs(P), mine(P), at_start(P);
  for (int r = 0; me == j.root && r < P; ++r) {
    root_counts[r] = parts.size(r);
    root_displs[r] = parts.offset(r);
  }
  mine[j.root] = parts.size(me);
  if (root_sends)
    j.nccl->exchange(j.in, root_counts.data(), root_displs.data(), j.out, mine.data(),
                     at_start.data(), j.red.dtype);
  else
    j.nccl->exchange(j.in, mine.data(), at_start.data(), j.out, root_counts.data(),
                     root_displs.data(), j.red.dtype);
}

MpiParts::MpiParts(const Partition& parts) : counts(parts.parts), displs(parts.parts) {
  for (int r = 0; r < parts.parts; ++r) {
    counts[r] = static_cast<int>(parts.size(r));
    displs[r] = static_cast<int>(parts.offset(r));
  }
  even = parts.count % parts.parts == 0;
}

}  // namespace commlab
