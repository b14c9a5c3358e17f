// What a hand-written algorithm needs, and nothing of the harness: the job it
// runs (its buffers, the Comm it talks through, the memory its data lives in), its
// entry (the run, its exact traffic model, the taught formula), and the
// pieces several schedules share (the ring, the power-of-two fold, binomial
// trees). Each algorithm lives in its own file, operation_algorithm.cpp (or
// allreduce_algos/algorithm.cpp), read top to bottom: the schedule in its
// header comment, the code, then its exact traffic model. Algorithms know
// nothing of timing, checking or output (harness/).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/comm/comm.hpp"
#include "core/comm/nodes.hpp"
#include "core/comm/traffic.hpp"
#include "core/device/memory.hpp"
#include "core/device/reduce.hpp"
#include "core/vocabulary/partition.hpp"
#include "taught.hpp"

namespace commlab {

class Nccl;

// What a schedule depends on besides the data: P ranks, N = `count` elements
// of esize bytes, the root; and for some algorithms where the ranks run and
// the size of the pieces a message is cut into.
struct JobShape {
  int P;
  size_t count, esize;
  int root;
  Nodes nodes = {};      // empty: one node
  size_t segment_B = 0;  // the segmented ring's segment; 0: one per chunk
};

// One run of a collective on this rank. N = `count` elements is the whole
// message (the root's buffer, or the gathered result); where it is cut into P
// parts, part r is Partition{count, P}.size(r) elements at .offset(r).
// In place is MPI's: `in == out`, laid out as MPI_IN_PLACE would have it.
struct CollectiveJob {
  Comm& comm;
  const void* in;
  void* out;
  size_t count;
  Reduction red;  // the element type; the op for reduce and reduce-scatter
  int root;
  Memory& mem;  // where data lives: room for incoming data, copies, reductions
  size_t segment_B = 0;
  // Where the job runs, which is not Comm's business: the ranks' nodes (null:
  // one node; the hierarchical all-reduce groups by them), and NCCL over the
  // same ranks for the library rows on GPUs (null: none).
  const Nodes* nodes = nullptr;
  Nccl* nccl = nullptr;

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
  // Reported time = measured time x this: 0.5 for a ping-pong, whose round
  // trip is two one-way transfers (osu_latency reports the one-way latency).
  double time_scale = 1;
  // The textbook's T for it, written out and as a number of bytes, if it has
  // one: an entry of taught.hpp's table (teach).
  std::string taught_formula = {};
  double (*taught_T)(int P, double N_bytes) = nullptr;
  void teach(const Taught& t) { taught_formula = t.formula, taught_T = t.T; }
  // It reads peers' memory (Comm::read): it runs only on the direct transport.
  bool reads_peers = false;
  // Its messages depend on a figure the time model measured (the segmented
  // ring's segment), which moves with the machine's speed: a library row is
  // not named for it unless it was forced.
  bool shaped_by_timing = false;
  // No MPI library the programs build against runs it (Open MPI 4.1, MPICH
  // 4.0: Swing), and it moves the bytes of one that they do: a library row
  // is not named for it.
  bool not_in_libraries = false;
  // How many times rank `rank` copies the whole vector between buffers of its
  // own in one run of `shape`: no message, but one node's memory carries it
  // (time_model.hpp, memory_load). The shape, not P alone: a tree's copies
  // depend on where the rank sits from the root. Null: an all-reduce's
  // allreduce_buffer, once not in place and never in place; other
  // operations' copies of their input (a reduce or reduce-scatter not in
  // place) are not counted yet.
  int (*own_copies)(const JobShape& shape, int rank, bool in_place) = nullptr;
  // The traffic model in closed form at any scale (traffic.hpp), root 0;
  // null where an algorithm has none yet.
  ScaledTraffic (*at_scale)(int P, double N_bytes, int ranks_per_node) = nullptr;
  // The same on a network of nodes (core/comm/topology.hpp), the busiest link's
  // bytes step by step for the port's; null where there is none yet.
  ScaledTraffic (*on_network)(int P, double N_bytes, int ranks_per_node,
                              const Topology& network) = nullptr;

  // With the bytes through the busiest node's port, for the shape's placement.
  Traffic model(const JobShape& shape) const {
    Traffic t = traffic(shape);
    count_where(t, t.messages, shape.nodes);
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
  // fold's step (0 with nothing to fold).
  int64_t fold_ports(StepPorts& ports) const;
};

// An all-reduce's one buffer: `out`, holding this rank's input (copied there
// unless in place), reduced over every rank once the algorithm is done.
char* allreduce_buffer(const CollectiveJob& job);
// Whether P (1 or more) is a power of two: the schedules that need one fall
// back to another where it is not.
inline bool power_of_two(int P) { return (P & (P - 1)) == 0; }

// sendrecv's partner of rank r: pairs (0,1), (2,3), ...; -1 for an odd last rank.
int sendrecv_peer(int P, int r);

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

// Where every rank reads from every other (one_shot, two_shot): the most
// ranks of one node times the ranks outside it, over the nodes that blocks
// of k ranks make (k, and the last's remainder). The reads that cross the
// busiest node's link in such a step, for the closed forms (at_scale).
double crossing_pairs(int P, int ranks_per_node);

// dst := src rotated left by first_B bytes (dst and src must not overlap).
void rotate_copy(Memory& mem, void* dst, const void* src, size_t total_B, size_t first_B);

}  // namespace commlab
