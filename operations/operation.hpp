// What the harness needs to know of a collective operation, beside its
// algorithms (collectives/algorithm.hpp): what each rank's buffers hold, the
// right answer, the library calls it is measured against, and which input a
// run may not take. Each operation's file (operations/bcast.cpp, ...) fills
// one in; operations/operations.def lists them, operation.cpp looks them up.
#pragma once
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "collectives/algorithm.hpp"
#include "core/vocabulary/outcome.hpp"
#include "core/vocabulary/types.hpp"
#include "pattern.hpp"

namespace commlab {

// A library call started non-blocking (--overlap): its requests, and what
// they read until they complete (a v-variant's counts and displacements).
struct Requests {
  std::vector<MPI_Request> all;
  std::vector<std::shared_ptr<const void>> kept;
  MPI_Request* next() { return &all.emplace_back(); }
  template <class T>
  const T& keep(T value) {
    auto p = std::make_shared<const T>(std::move(value));
    kept.push_back(p);
    return *p;
  }
};

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
  // Its non-blocking form (MPI_Iallreduce, ...), for --overlap; null: none.
  void (*start)(const CollectiveJob& job, Requests& requests) = nullptr;
  std::string nb_name = {}, nb_uneven_name = {};
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
inline Source gathered_source(int P, size_t N, size_t i) {
  const Partition parts{N, P};
  const int from = parts.part_of(i);
  return {from, i - parts.offset(from)};
}

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
  // Elements of scratch its hand-written algorithms may ask for, `largest`
  // the largest buffer any rank holds (the direct transport registers this
  // much): twice that, unless an operation says more.
  virtual size_t scratch_count(int, size_t, size_t largest) const { return 2 * largest; }
  // For operations without data (barrier): their own check of one algorithm.
  virtual Verdict check(Comm&, const std::function<void()>&) const { return {}; }
};

// Every operation of operations.def, by program name (operation.cpp).
std::unique_ptr<Operation> make_operation(const std::string& name);
std::vector<std::unique_ptr<Operation>> all_operations();

}  // namespace commlab
