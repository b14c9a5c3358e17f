// Point-to-point, counted. Every hand-written algorithm talks only through
// this class, so every byte and message it puts on the wire is seen. Each
// call names the schedule step it belongs to (and the chunk it carries),
// which is what --show prints and how steps are counted. The bytes travel
// through a Transport (transport.hpp): MPI on host or GPU buffers, or
// threads of one process in the tests; the counting is the same for all.
#pragma once
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "memory.hpp"
#include "traffic.hpp"
#include "transport.hpp"

namespace commlab {

constexpr int kWholeBuffer = -1;
constexpr int kSeveralChunks = -2;  // a run of consecutive chunks (a subtree's, a group's)

struct Step {
  int index;                 // round of the schedule, from 0
  int chunk = kWholeBuffer;  // which chunk the message carries, for --show
};

// The part of a schedule a step belongs to, as --show names it: a lecture
// draws the ring all-reduce as a reduce-scatter, then an all-gather.
enum class Phase {
  none,
  reduce_scatter,
  all_gather,
  reduce,
  broadcast,
  scatter,
  exchange,
  fold,  // the ranks past a power of two fold in first, and get the result last
};
std::string name(Phase p);

// One message, as --show lists it.
struct TraceEntry {
  int step, from, to, chunk;
  uint64_t bytes;
  Phase phase;
};

// A rank's buffer as it stood after `after_step` (-1: before its first step),
// for --show --steps and the lab's grader.
struct Snapshot {
  int after_step;
  std::vector<char> bytes;
};

// A rank's state after `step`: its latest snapshot taken after a step up to
// it (a rank idle in a step keeps what it had); null if it has none.
const Snapshot* state_after(const std::vector<Snapshot>& snapshots, int step);

class Nccl;
class Nodes;
// The nodes of `comm`'s ranks, from MPI's shared-memory split: each node is
// named by its lowest rank, numbered in order of those (collective).
Nodes nodes_of(MPI_Comm comm);

// Which node each rank runs on: node numbers 0, 1, ... in order of each
// node's lowest rank. The hierarchical all-reduce groups by it; the other
// algorithms never look.
// The groups are worked out once, here, not by the algorithms on every run.
class Nodes {
 public:
  Nodes() = default;
  explicit Nodes(std::vector<int> node_of_rank);
  // Ranks 0 .. k-1 on node 0, k .. 2k-1 on node 1, ... (the last may hold fewer).
  static Nodes blocks(int P, int ranks_per_node);
  bool empty() const { return of_rank_.empty(); }
  const std::vector<int>& of_rank() const { return of_rank_; }
  int count() const { return int(groups_.size()); }
  const std::vector<int>& ranks_on(int node) const { return groups_[node]; }  // the first leads
  const std::vector<int>& leaders() const { return leaders_; }  // each node's first rank
  size_t largest() const { return largest_; }  // ranks on the fullest node

 private:
  std::vector<int> of_rank_, leaders_;
  std::vector<std::vector<int>> groups_;
  size_t largest_ = 0;
};

// MPIX_Query_cuda_support(): whether this MPI reads device memory itself.
bool mpi_is_cuda_aware();

class Comm {
 public:
  // Over MPI, on host buffers until use() says otherwise.
  explicit Comm(MPI_Comm comm);
  // Over a transport someone else owns (a thread of a ThreadWorld), on `mem`.
  Comm(Transport& transport, Memory& mem);
  Comm(const Comm&) = delete;
  Comm& operator=(const Comm&) = delete;

  // The memory every buffer passed from now on lives in, and how it travels (MPI).
  void use(Memory& mem, TransportKind kind);
  Memory& memory() { return *mem_; }
  TransportKind transport() const { return t_->kind(); }
  // NCCL over the same ranks, for the library rows on GPUs; null when there is none.
  void set_nccl(Nccl* nccl) { nccl_ = nccl; }
  Nccl* nccl() const { return nccl_; }

  // Where the ranks run: over MPI, the nodes of its shared-memory split (or
  // blocks of --node-size ranks); in process, one node until set.
  const Nodes& nodes() const { return nodes_; }
  void set_nodes(Nodes nodes) { nodes_ = std::move(nodes); }

  int rank() const { return t_->rank(); }
  int size() const { return t_->size(); }
  MPI_Comm mpi() const { return t_->mpi(); }  // MPI_COMM_NULL in process

  void send(int to, const void* buf, size_t bytes, Step step);
  void recv(int from, void* buf, size_t bytes, Step step);
  // Both at once, so a ring of blocking neighbours cannot deadlock at any size.
  void sendrecv(int to, const void* sbuf, size_t sbytes, int from, void* rbuf, size_t rbytes,
                Step step);
  // recv and sendrecv, then acc (op)= incoming: the step of every reducing algorithm.
  // On the GPU each piece is reduced as it lands, while the next is in flight.
  void recv_reduce(int from, void* incoming, void* acc, size_t bytes, const Reduction& red,
                   Step step);
  void sendrecv_reduce(int to, const void* sbuf, size_t sbytes, int from, void* incoming, void* acc,
                       size_t rbytes, const Reduction& red, Step step);
  // Non-blocking: post now, complete with wait_all() (which every isend and
  // irecv needs before its buffer is touched again).
  void isend(int to, const void* buf, size_t bytes, Step step);
  void irecv(int from, void* buf, size_t bytes, Step step);
  void wait_all();
  void wait_sends();  // only the isends: their buffers may be reused, receives go on

  // Blocks until a message from any rank is ready to receive; returns its sender.
  int probe_any();

  // This rank's bytes since reset_counts(), so a caller can split them by role.
  uint64_t sent_bytes() const { return sent_B_; }
  uint64_t recv_bytes() const { return recv_B_; }

  // Added to every step index until reset: lets one algorithm run another as
  // its later phase (a broadcast made of a scatter, then an all-gather).
  void set_step_offset(int offset) { step_offset_ = offset; }

  // Where the schedule is now: every step from here until the next call is
  // part of this phase (the ring halves and the algorithms built of phases set it).
  void begin_phase(Phase phase) { phase_ = phase; }

  // While tracing: the buffer to keep a copy of as each step begins, which is
  // then its state after the steps before. The harness watches the result;
  // an algorithm that works in scratch (a reduce-scatter) watches that instead.
  void watch(const void* buf, size_t bytes) { watched_ = buf, watched_B_ = bytes; }
  void snapshot();  // the watched buffer now: after the last step begun (the end of a run)
  const std::vector<Snapshot>& snapshots() const { return snapshots_; }
  std::vector<std::vector<Snapshot>> gather_snapshots() const;  // every rank's, on every rank

  // Counting: start a fresh count, then gather every rank's into one Traffic
  // (collective). Tracing keeps each message, for --show and for the bytes
  // through the busiest node's port: gather_counts() finds those only in a
  // traced run (0 otherwise).
  void reset_counts();
  Traffic gather_counts() const;
  void set_tracing(bool on) { tracing_ = on; }   // reset_counts() clears the trace
  std::vector<TraceEntry> gather_trace() const;  // all ranks' sends, on every rank

 private:
  void count_send(int to, size_t bytes, Step step);
  void count_recv(size_t bytes, Step step);
  int enter(Step step);  // a call of this step begins: snapshot the last one's end; its index
  // Blocking exchange; acc (op)= each received piece when red is given.
  void exchange(int to, const void* s, size_t sbytes, int from, void* r, size_t rbytes,
                const Reduction* red, void* acc);

  Memory host_;
  Memory* mem_ = &host_;
  std::unique_ptr<Transport> owned_;  // over MPI; null over another's
  Transport* t_;
  Nodes nodes_;
  uint64_t sent_B_ = 0, recv_B_ = 0, msgs_ = 0;
  int64_t last_step_ = -1;
  int step_offset_ = 0;
  Nccl* nccl_ = nullptr;
  bool tracing_ = false;
  std::vector<TraceEntry> trace_;
  Phase phase_ = Phase::none;
  int step_now_ = -1;  // the latest step this rank has begun, for snapshots
  const void* watched_ = nullptr;
  size_t watched_B_ = 0;
  std::vector<Snapshot> snapshots_;
};

}  // namespace commlab
