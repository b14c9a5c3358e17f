// What the harness needs to know of a collective operation, beside its
// algorithms (collectives/algorithm.hpp): what each rank's buffers hold, the
// right answer, the library calls it is measured against, and which input a
// run may not take. Each operation's file (collectives/bcast.cpp, ...) fills
// one in; collectives/operations.def lists them.
#pragma once
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "collectives/algorithm.hpp"
#include "core/direct_transport.hpp"
#include "core/outcome.hpp"
#include "core/pattern.hpp"
#include "core/types.hpp"

namespace commlab {

// The library call an operation is measured against. It takes the same job
// (but not its Comm: it calls MPI or NCCL directly, so nothing of it is counted).
struct LibraryCall {
  std::string name;         // e.g. MPI_Scatter
  std::string uneven_name;  // the v-variant used when P does not divide N
  void (*run)(const CollectiveJob& job);
  // Only run beside this algorithm, which it is compared with (sendrecv's
  // two), and timed the same way.
  std::string pairs_with = {};
  Impl impl = Impl::mpi;  // or nccl: GPU buffers only, one GPU per rank
  // When NCCL has no form of this call for the shape (P not dividing N, in place), false.
  bool (*usable)(int P, size_t N, bool in_place) = nullptr;
};

// Where the right value of an output element comes from: one rank's input
// element, or the reduction of element `index` over every rank's input.
struct Source {
  int from;  // kAllRanks for a reduction
  size_t index;
};
constexpr int kAllRanks = -1;

// Element i of a buffer that holds every rank's part in rank order (gather,
// all-gather) comes from the rank whose part it falls in.
Source gathered_source(int P, size_t N, size_t i);

// This rank's buffers, in elements. In place there is one buffer, of `out`.
struct Layout {
  size_t in = 0, out = 0;
  size_t checked = SIZE_MAX;  // leading elements of out with a defined result (default all)
};

enum class InPlace { never, optional, always };

class Operation {
 public:
  virtual ~Operation() = default;

  std::string name, summary;
  InPlace in_place_form = InPlace::optional;
  bool reduces = false;      // takes -o
  bool has_data = true;      // false: barrier
  bool int_counts = true;    // its MPI call takes int counts (all-reduce's goes in pieces)
  bool offers_auto = false;  // -a auto: the algorithm the time model predicts fastest
  std::vector<CollectiveAlgorithm> algorithms;
  std::vector<LibraryCall> library;

  const CollectiveAlgorithm& algorithm(const std::string& wanted) const {
    for (const auto& a : algorithms)
      if (a.name == wanted) return a;
    throw std::logic_error(name + " has no algorithm " + wanted);
  }
  virtual double busbw_factor(int P) const = 0;  // nccl-tests' definitions
  virtual Layout layout(int P, int r, int root, size_t N, bool in_place) const = 0;
  // Rank r's input element i.
  virtual int64_t input(const Pattern& pat, size_t, int r, size_t i) const {
    return reduces ? pat.value(r, i) : pat.moved(r, i);
  }
  // In place: the input element the one buffer's element i holds before the
  // run, or none when it is only room for the result.
  virtual std::optional<size_t> starts_as(int P, int r, int root, size_t N, size_t i) const = 0;
  // The right value of rank r's output element i, i < layout().checked.
  virtual Source source(int P, int r, int root, size_t N, bool in_place, size_t i) const = 0;
  // Bad input this operation cannot take at this P, or "".
  virtual std::string refuse(int, size_t, bool) const { return ""; }
  // For operations without data (barrier): their own check of one algorithm.
  virtual Verdict check(Comm&, const std::function<void()>&) const { return {}; }
};

// Every operation of collectives/operations.def, by program name (operations.cpp).
std::unique_ptr<Operation> make_operation(const std::string& name);
std::vector<std::unique_ptr<Operation>> all_operations();

constexpr const char* kAuto = "auto";
struct CostModel;
// segmented_ring.cpp: the segment (a power-of-two share of a chunk of
// chunk_B bytes, whole elements) for which the time model predicts the
// fastest pipelined step; the chunk itself when it holds no whole element.
size_t best_segment_B(const CostModel& m, size_t chunk_B, size_t esize);

// An algorithm's exact traffic on a shape, and the time model's time for it.
struct Predicted {
  Traffic model;
  double us = 0;
};
Predicted predict(const CollectiveAlgorithm& algo, const CostModel& cost, const JobShape& shape);
std::vector<Predicted> predict(const Operation& op, const CostModel& cost,
                               const JobShape& shape);  // every algorithm, in order
// -a auto: the index of the least predicted time (the first of equals),
// among what the transport can run: the algorithms that read peers' memory
// only where ranks map it (maps_peers).
size_t fastest(const Operation& op, const std::vector<Predicted>& predicted, bool maps_peers);

constexpr int64_t kJunk = -1;  // what result buffers hold before a run: no input value is negative

// The whole program for one operation, or for one of its algorithms alone
// (allreduce_ring: the program name says which); returns the exit status.
int collective_main(int argc, char** argv, const std::string& operation,
                    const std::string& only_algorithm = "");

// What rank r's buffer holds before a run, and the right value of each of its
// output elements after it: one operation on one shape, as both the programs
// and the in-process tests check it.
class Truth {
 public:
  Truth(const Operation& op, const Pattern& pat, int root, size_t N, bool in_place);
  Layout layout(int r) const;
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
// the largest input and result any rank's layout asks, and scratch of twice
// the largest buffer (the most any algorithm takes).
RegionLayout region_layout(const Truth& truth, int P, size_t N, size_t esize);

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

// barrier.cpp: which ranks left a barrier before the last one arrived. Times
// are on one reference clock, each known to within its error bound.
struct BarrierTiming {
  double enter, enter_err;             // the late rank's arrival
  std::vector<double> exit, exit_err;  // every rank's departure
};
std::vector<int> early_leavers(const BarrierTiming& t);

}  // namespace commlab
