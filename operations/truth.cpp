#include "truth.hpp"

#include <algorithm>

namespace commlab {

Truth::Truth(const Operation& op, const Pattern& pat, int root, size_t N, bool in_place)
    : op_(op), pat_(pat), root_(root), N_(N), in_place_(in_place) {}

Layout Truth::layout(int r) const { return op_.layout(pat_.P, r, root_, N_, in_place_); }

size_t Truth::checked(int r) const {
  const Layout L = layout(r);
  return std::min(L.checked, L.out);
}

int64_t Truth::before(int r, size_t i) const {
  if (!in_place_) return op_.input(pat_, N_, r, i);
  std::optional<size_t> s = op_.starts_as(pat_.P, r, root_, N_, i);
  return s ? op_.input(pat_, N_, r, *s) : kJunk;
}

int64_t Truth::after(int r, size_t i) const {
  const Source s = op_.source(pat_.P, r, root_, N_, in_place_, i);
  if (s.from != kAllRanks) return op_.input(pat_, N_, s.from, s.index);
  return reduced_.empty() ? reduced(s.index) : reduced_[s.index];
}

int64_t Truth::reduced(size_t index) const {
  int64_t acc = op_.input(pat_, N_, 0, index);
  for (int r = 1; r < pat_.P; ++r) acc = combine(pat_.op, acc, op_.input(pat_, N_, r, index));
  return acc;
}

void Truth::precompute() {
  if (!op_.reduces || !reduced_.empty()) return;
  std::vector<int64_t> all(N_);
  for (size_t i = 0; i < N_; ++i) all[i] = reduced(i);
  reduced_ = std::move(all);
}

RegionLayout region_layout(const Truth& truth, int P, size_t N, size_t esize) {
  size_t in = 0, out = 0;
  for (int r = 0; r < P; ++r) {
    const Layout L = truth.layout(r);
    in = std::max(in, L.in), out = std::max(out, L.out);
  }
  const size_t scratch = truth.operation().scratch_count(P, N, std::max({in, out, N}));
  return RegionLayout::of(in * esize, out * esize, scratch * esize);
}

}  // namespace commlab
