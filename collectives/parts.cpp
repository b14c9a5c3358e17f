// What the algorithms share about parts: sendrecv's pairs, an all-reduce's one buffer,
// binomial rounds, a rank's lowest bit (its parent and subtree), parts
// counted from a rank, a rotated copy.
#include <algorithm>
#include <cstring>

#include "algorithm.hpp"

namespace commlab {

int sendrecv_peer(int P, int r) { return (r ^ 1) < P ? r ^ 1 : -1; }

char* allreduce_buffer(const CollectiveJob& job) {
  if (!job.in_place()) job.mem.copy(job.out, job.in, job.count * job.esize());
  return static_cast<char*>(job.out);
}

int binomial_rounds(int P) {
  int rounds = 0;
  while ((1 << rounds) < P) ++rounds;
  return rounds;
}

int lowbit(int v) { return v & -v; }

double crossing_pairs(int P, int ranks_per_node) {
  auto pairs = [P](int n) { return double(n) * double(P - n); };
  return std::max(pairs(std::min(ranks_per_node, P)), pairs(P % ranks_per_node));
}

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

void rotate_copy(Memory& mem, void* dst, const void* src, size_t total_B, size_t first_B) {
  auto* d = static_cast<char*>(dst);
  auto* s = static_cast<const char*>(src);
  if (total_B == 0) return;
  mem.copy(d, s + first_B, total_B - first_B);
  mem.copy(d + total_B - first_B, s, first_B);
}

}  // namespace commlab
