// The right answers of one operation on one shape, for the programs and the
// in-process runs alike, and the direct transport's region it needs.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/transports/direct_transport.hpp"
#include "operation.hpp"
#include "pattern.hpp"

namespace commlab {

constexpr int64_t kJunk = -1;  // what result buffers hold before a run: no input value is negative
// What rank r's buffer holds before a run, and the right value of each of its
// output elements after it: one operation on one shape, as both the programs
// and the in-process tests check it.
class Truth {
 public:
  Truth(const Operation& op, const Pattern& pat, int root, size_t N, bool in_place);
  Layout layout(int r) const;
  const Operation& operation() const { return op_; }
  size_t checked(int r) const;  // output elements with a defined result
  // Element i of rank r's buffer before the run: its input, or in place the one buffer.
  int64_t before(int r, size_t i) const;
  int64_t after(int r, size_t i) const;
  // Folds every index over all ranks now, so after() only looks them up
  // (for many ranks sharing one Truth; call before they start).
  void precompute();

 private:
  int64_t reduced(size_t index) const;
  const Operation& op_;
  Pattern pat_;
  int root_;
  size_t N_;
  bool in_place_;
  std::vector<int64_t> reduced_;
};

// The direct transport's region for a job of N elements of esize bytes:
// the largest input and result any rank's layout asks, and the scratch its
// operation's algorithms may take (Operation::scratch_count).
RegionLayout region_layout(const Truth& truth, int P, size_t N, size_t esize);

}  // namespace commlab
