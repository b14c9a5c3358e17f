// What the algorithms and library calls share about parts: binomial rounds, a
// rank's lowest bit (its parent and subtree), parts counted from a rank, and
// the int counts MPI's v-variants take.
#include <cstring>

#include "collective.hpp"

namespace commlab {

int binomial_rounds(int P) {
  int rounds = 0;
  while ((1 << rounds) < P) ++rounds;
  return rounds;
}

int lowbit(int v) { return v & -v; }

int log2_exact(int power_of_two) {
  int k = 0;
  while ((1 << k) < power_of_two) ++k;
  return k;
}

size_t RotatedParts::offset(int u) const {
  if (u >= parts.parts) return parts.count;
  const int rank = (u + start) % parts.parts;
  const size_t at = parts.offset(rank), base = parts.offset(start);
  return rank >= start ? at - base : parts.count - base + at;  // past P-1 it wraps to 0
}

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
    j.comm.nccl()->exchange(j.in, root_counts.data(), root_displs.data(), j.out, mine.data(),
                            at_start.data(), j.red.dtype);
  else
    j.comm.nccl()->exchange(j.in, mine.data(), at_start.data(), j.out, root_counts.data(),
                            root_displs.data(), j.red.dtype);
}

void rotate_copy(Memory& mem, void* dst, const void* src, size_t total_B, size_t first_B) {
  auto* d = static_cast<char*>(dst);
  auto* s = static_cast<const char*>(src);
  if (total_B == 0) return;
  mem.copy(d, s + first_B, total_B - first_B);
  mem.copy(d + total_B - first_B, s, first_B);
}

Source gathered_source(int P, size_t N, size_t i) {
  const Partition parts{N, P};
  const int from = parts.part_of(i);
  return {from, i - parts.offset(from)};
}

MpiParts::MpiParts(const Partition& parts) : counts(parts.parts), displs(parts.parts) {
  for (int r = 0; r < parts.parts; ++r) {
    counts[r] = static_cast<int>(parts.size(r));
    displs[r] = static_cast<int>(parts.offset(r));
  }
  even = parts.count % parts.parts == 0;
}

}  // namespace commlab
