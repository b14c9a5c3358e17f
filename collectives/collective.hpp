// The hand-written collectives. Each algorithm lives in its own file, named
// operation_algorithm.cpp, read top to bottom: the schedule in its header
// comment, the code, then its exact traffic model. Algorithms talk only through
// the counted Comm and know nothing of timing, checking or output; each
// operation's file (bcast.cpp, ...) says what its buffers hold, what the right
// answer is, and which library call it is measured against.
#pragma once
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/bench.hpp"
#include "core/buffer.hpp"
#include "core/comm.hpp"
#include "core/memory.hpp"
#include "core/nccl.hpp"
#include "core/partition.hpp"
#include "core/pattern.hpp"
#include "core/reduce.hpp"
#include "core/traffic.hpp"

namespace commlab {

// One run of a collective on this rank. N = `count` elements is the whole
// message (the root's buffer, or the gathered result); where it is cut into P
// parts, part r is Partition{count, P}.size(r) elements at .offset(r).
// In place is MPI's: `in == out`, laid out as MPI_IN_PLACE would have it.
// What a schedule depends on besides the data: P ranks, N = count elements
// of esize bytes, the root; and for some algorithms where the ranks run and
// the size of the pieces a message is cut into.
struct JobShape {
  int P;
  size_t count, esize;
  int root;
  Nodes nodes = {};      // empty: one node
  size_t segment_B = 0;  // the segmented ring's segment; 0: one per chunk
};

struct CollectiveJob {
  Comm& comm;
  const void* in;
  void* out;
  size_t count;
  Reduction red;  // the element type; the op for reduce and reduce-scatter
  int root;
  Memory& mem;  // where data lives: room for incoming data, copies, reductions
  size_t segment_B = 0;

  size_t esize() const { return red.esize(); }
  bool in_place() const { return in == out; }
  Partition parts() const { return {count, comm.size()}; }
};

struct CollectiveAlgorithm {
  std::string name;
  void (*run)(const CollectiveJob& job);
  // Exact traffic of one run of this shape.
  Traffic (*traffic)(const JobShape& shape);
  // What the row should say about this P (a fallback taken), or "".
  std::string (*remark)(int P) = nullptr;
  double time_scale = 1;  // see Case::time_scale
  // The textbook's T for it, written out and as a number of bytes, if it has one.
  std::string taught_formula = {};
  double (*taught_T)(int P, double N_bytes) = nullptr;
  // The traffic model in closed form at any scale (traffic.hpp), root 0;
  // null where an algorithm has none yet.
  ScaledTraffic (*at_scale)(int P, double N_bytes, int ranks_per_node) = nullptr;

  // With the bytes through the busiest node's port, for the shape's placement.
  Traffic model(const JobShape& shape) const {
    Traffic t = traffic(shape);
    t.port_critical_B = port_critical_B(t.messages, shape.nodes.of_rank());
    return t;
  }
  Traffic model(int P, size_t count, size_t esize, int root) const {
    return traffic({P, count, esize, root});
  }
};

// The traffic of the many algorithms that depend on P, N, element size and root alone.
template <Traffic (*model)(int P, size_t count, size_t esize, int root)>
Traffic sized(const JobShape& s) {
  return model(s.P, s.count, s.esize, s.root);
}

// The library call an operation is measured against. It takes the same job
// (and ignores its Comm's counting: it calls MPI directly).
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
  bool reduces = false;    // takes -o
  bool has_data = true;    // false: barrier
  bool int_counts = true;  // its MPI call takes int counts (all-reduce's goes in pieces)
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

// Every operation, by program name: allreduce, sendrecv, bcast, reduce,
// scatter, gather, allgather, reduce_scatter, alltoall, barrier; one file each.
std::unique_ptr<Operation> make_operation(const std::string& name);
std::vector<std::unique_ptr<Operation>> all_operations();
std::unique_ptr<Operation> make_allreduce();
std::unique_ptr<Operation> make_sendrecv();
std::unique_ptr<Operation> make_bcast();
std::unique_ptr<Operation> make_reduce();
std::unique_ptr<Operation> make_scatter();
std::unique_ptr<Operation> make_gather();
std::unique_ptr<Operation> make_allgather();
std::unique_ptr<Operation> make_reduce_scatter();
std::unique_ptr<Operation> make_alltoall();
std::unique_ptr<Operation> make_barrier();

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
// -a auto: the index of the least predicted time (the first of equals).
size_t fastest(const std::vector<Predicted>& predicted);

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

// sendrecv's partner of rank r: pairs (0,1), (2,3), ...; -1 for an odd last rank.
int sendrecv_peer(int P, int r);

// The all-reduce algorithms' entries (allreduce_algos/algorithms.def).
#define COMMLAB_ALLREDUCE(name) CollectiveAlgorithm allreduce_##name##_algorithm();
#include "allreduce_algos/algorithms.def"
#undef COMMLAB_ALLREDUCE

// The other algorithms, one file each.
void sendrecv_pingpong(const CollectiveJob&);
void sendrecv_exchange(const CollectiveJob&);
void bcast_linear(const CollectiveJob&);
void bcast_binomial(const CollectiveJob&);
void bcast_scatter_allgather(const CollectiveJob&);
void reduce_linear(const CollectiveJob&);
void reduce_binomial(const CollectiveJob&);
void scatter_linear(const CollectiveJob&);
void scatter_binomial(const CollectiveJob&);
void gather_linear(const CollectiveJob&);
void gather_binomial(const CollectiveJob&);
void allgather_ring(const CollectiveJob&);
void allgather_recursive_doubling(const CollectiveJob&);
void allgather_bruck(const CollectiveJob&);
void reduce_scatter_ring(const CollectiveJob&);
void reduce_scatter_pairwise(const CollectiveJob&);
void alltoall_pairwise(const CollectiveJob&);
void barrier_linear(const CollectiveJob&);
void barrier_dissemination(const CollectiveJob&);

// Their models: each replays its schedule into a Tally. The tally_ forms add
// one algorithm's messages to a Tally, so an algorithm built from two others adds both.
Traffic model_sendrecv_pingpong(int P, size_t count, size_t esize, int root);
Traffic model_sendrecv_exchange(int P, size_t count, size_t esize, int root);
Traffic model_bcast_linear(int P, size_t count, size_t esize, int root);
Traffic model_bcast_binomial(int P, size_t count, size_t esize, int root);
Traffic model_bcast_scatter_allgather(int P, size_t count, size_t esize, int root);
Traffic model_reduce_linear(int P, size_t count, size_t esize, int root);
Traffic model_reduce_binomial(int P, size_t count, size_t esize, int root);
Traffic model_scatter_linear(int P, size_t count, size_t esize, int root);
Traffic model_scatter_binomial(int P, size_t count, size_t esize, int root);
Traffic model_gather_linear(int P, size_t count, size_t esize, int root);
Traffic model_gather_binomial(int P, size_t count, size_t esize, int root);
Traffic model_allgather_ring(int P, size_t count, size_t esize, int root);
Traffic model_allgather_recursive_doubling(int P, size_t count, size_t esize, int root);
Traffic model_allgather_bruck(int P, size_t count, size_t esize, int root);
Traffic model_reduce_scatter_ring(int P, size_t count, size_t esize, int root);
Traffic model_reduce_scatter_pairwise(int P, size_t count, size_t esize, int root);
Traffic model_alltoall_pairwise(int P, size_t count, size_t esize, int root);
Traffic model_barrier_linear(int P, size_t count, size_t esize, int root);
Traffic model_barrier_dissemination(int P, size_t count, size_t esize, int root);
std::string remark_allgather_recursive_doubling(int P);
void tally_scatter_binomial(Tally& t, int P, size_t count, size_t esize, int root, int first_step);
void tally_reduce_binomial(Tally& t, int P, size_t count, size_t esize, int root, int first_step);
void tally_bcast_binomial(Tally& t, int P, size_t count, size_t esize, int root, int first_step);

// The ring (ring.cpp): one chunk numbering for every ring algorithm. Its P
// positions hold ranks 0 .. P-1, or the ranks listed (the hierarchical
// all-reduce's ring of node leaders).
struct Ring {
  int P;
  std::vector<int> ranks = {};  // the rank at each position; empty: position r is rank r
  explicit Ring(int size) : P(size) {}
  explicit Ring(std::vector<int> members) : P(int(members.size())), ranks(std::move(members)) {}
  int rank_at(int pos) const { return ranks.empty() ? pos : ranks[pos]; }
  int position_of(int rank) const;
  int right(int r) const { return (r + 1) % P; }
  int left(int r) const { return (r - 1 + P) % P; }
  int reduce_scatter_sends(int r, int s) const { return mod(r - s - 1); }
  int allgather_sends(int r, int s) const { return mod(r - s); }
  int mod(int x) const { return ((x % P) + P) % P; }
};
// Reduce-scatter on `work` (ring.P chunks) in place: position r ends with chunk r reduced.
void ring_reduce_scatter(Comm& comm, const Ring& ring, const Chunks& work, const Reduction& red,
                         Memory& mem, int first_step);
// All-gather on `buffer`, where position r holds chunk r: every rank ends with every chunk.
void ring_allgather(Comm& comm, const Ring& ring, const Chunks& buffer, int first_step);
void tally_ring_reduce_scatter(Tally& t, const Ring& ring, const Partition& parts, size_t esize,
                               int first_step);
void tally_ring_allgather(Tally& t, const Ring& ring, const Partition& parts, size_t esize,
                          int first_step);

// fold.cpp: Rabenseifner's fold of P ranks onto p2, the largest power of two
// <= P, for the algorithms that need one: ranks 2i and 2i+1 (i < extra =
// P - p2) pair up, 2i's data folded into 2i+1 at step 0 and the result sent
// back at the end; the p2 ranks left are virtual ranks 0 .. p2-1.
struct PowerOfTwoFold {
  explicit PowerOfTwoFold(int P);
  int P, p2, extra;
  int virtual_rank(int r) const;  // -1 for a rank folded away
  int real_rank(int v) const;
  int first_step() const { return extra ? 1 : 0; }  // the virtual ranks' first step
  void fold_in(const CollectiveJob& job, char* data, size_t bytes) const;  // step 0
  void fold_out(const CollectiveJob& job, char* data, size_t bytes, int step) const;
  void tally_in(Tally& t, uint64_t bytes) const;
  void tally_out(Tally& t, uint64_t bytes, int step) const;
  // For the closed forms (at_scale): the busiest node's messages in the
  // fold's step (0 with nothing to fold), and in one exchange between the
  // virtual ranks `bit` apart.
  int64_t fold_ports(StepPorts& ports) const;
  int64_t exchange_ports(StepPorts& ports, int bit) const;
};

// An all-reduce's one buffer: `out`, holding this rank's input (copied there
// unless in place), reduced over every rank once the algorithm is done.
char* allreduce_buffer(const CollectiveJob& job);

// Binomial trees over ranks relative to the root (v = 0 is the root), shared
// by bcast, reduce, scatter and gather: ceil(log2 P) rounds.
int binomial_rounds(int P);
// The largest power of two dividing v (v > 0): v's parent is v - lowbit(v),
// and v's subtree is v .. v + lowbit(v) - 1 (cut at P).
int lowbit(int v);
int log2_exact(int power_of_two);

// Parts in the order of ranks counted from `start` (start, start+1, ... mod P),
// the order binomial trees and Bruck's algorithm keep them in. It is the
// buffer rotated left by offset(start).
struct RotatedParts {
  Partition parts;
  int start;
  size_t offset(int u) const;  // elements before relative part u, for u = 0 .. P
  size_t size(int u) const { return parts.size((u + start) % parts.parts); }
};
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

// dst := src rotated left by first_B bytes (dst and src must not overlap).
void rotate_copy(Memory& mem, void* dst, const void* src, size_t total_B, size_t first_B);

// barrier.cpp: which ranks left a barrier before the last one arrived. Times
// are on one reference clock, each known to within its error bound.
struct BarrierTiming {
  double enter, enter_err;             // the late rank's arrival
  std::vector<double> exit, exit_err;  // every rank's departure
};
std::vector<int> early_leavers(const BarrierTiming& t);

}  // namespace commlab
