// Which server owns which parameters. A shard is a list of ranges of the
// flat parameter vector; servers store their shard packed, in range order.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace commlab::ps {

enum class Placement {
  even,    // contiguous, as equal as possible (core/vocabulary/partition.hpp's split): the default
  uneven,  // contiguous, server s gets a share proportional to s + 1
  hashed,  // whole rows (one class's weights and bias: a key) by a hash of the row
};
Placement parse_placement(const std::string& s);  // throws UsageError
std::string name(Placement p);

struct Range {
  size_t offset, count;
};
struct Shard {
  std::vector<Range> ranges;
  size_t count() const;
  // packed[k...] <-> model[range...], range by range.
  void pack(const float* model, float* packed) const;
  void unpack(const float* packed, float* model) const;
};

// S shards of `params` parameters in rows of `row`. Every parameter lands in
// exactly one shard; a shard may be empty (hashed, more servers than rows).
std::vector<Shard> place(Placement how, size_t params, size_t row, int S);

}  // namespace commlab::ps
