#include "placement.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "core/vocabulary/names.hpp"
#include "core/vocabulary/partition.hpp"

namespace commlab::ps {

namespace {
const Names<Placement> kPlacements{
    {Placement::even, "even"}, {Placement::uneven, "uneven"}, {Placement::hashed, "hashed"}};
}  // namespace

Placement parse_placement(const std::string& s) { return parse_in(kPlacements, s, "--placement"); }
std::string name(Placement p) { return name_in(kPlacements, p); }

size_t Shard::count() const {
  size_t n = 0;
  for (const Range& r : ranges) n += r.count;
  return n;
}

void Shard::pack(const float* model, float* packed) const {
  for (const Range& r : ranges) packed = std::copy_n(model + r.offset, r.count, packed);
}

void Shard::unpack(const float* packed, float* model) const {
  for (const Range& r : ranges) {
    std::copy_n(packed, r.count, model + r.offset);
    packed += r.count;
  }
}

std::vector<Shard> place(Placement how, size_t params, size_t row, int S) {
  std::vector<Shard> shards(S);
  if (how == Placement::even) {
    const Partition parts{params, S};
    for (int s = 0; s < S; ++s) shards[s].ranges.push_back({parts.offset(s), parts.size(s)});
  } else if (how == Placement::uneven) {
    // Boundary before shard s at params x (1 + 2 + ... + s) / (1 + 2 + ... + S).
    const uint64_t total = uint64_t(S) * (S + 1) / 2;
    auto boundary = [&](int s) { return size_t(params * (uint64_t(s) * (s + 1) / 2) / total); };
    for (int s = 0; s < S; ++s)
      shards[s].ranges.push_back({boundary(s), boundary(s + 1) - boundary(s)});
  } else {
    // A fixed hash of the row number, so every process places alike;
    // neighbouring rows of one server merge into one range.
    for (size_t first = 0, r = 0; first < params; first += row, ++r) {
      uint64_t h = (r + 1) * 0x9e3779b97f4a7c15ull;
      h ^= h >> 29;
      Shard& shard = shards[h % uint64_t(S)];
      const size_t n = std::min(row, params - first);
      if (!shard.ranges.empty() && shard.ranges.back().offset + shard.ranges.back().count == first)
        shard.ranges.back().count += n;
      else
        shard.ranges.push_back({first, n});
    }
  }
  return shards;
}

}  // namespace commlab::ps
