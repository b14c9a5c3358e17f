// Point-to-point over MPI, counted. Every hand-written algorithm talks only
// through this class, so every byte and message it puts on the wire is seen.
// Each call names the schedule step it belongs to (and the chunk it carries),
// which is what --show prints and how steps are counted.
//
// GPU buffers travel one of two ways: straight from device memory when the
// MPI library is CUDA-aware, or staged through pinned host buffers in pieces,
// the copy of one piece overlapping the MPI transfer of the next (and, in the
// _reduce calls, the reduction kernel of the last).
#pragma once
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "memory.hpp"
#include "traffic.hpp"

namespace commlab {

constexpr int kWholeBuffer = -1;
constexpr int kSeveralChunks = -2;  // a run of consecutive chunks (a subtree's, a group's)

struct Step {
  int index;                 // round of the schedule, from 0
  int chunk = kWholeBuffer;  // which chunk the message carries, for --show
};

// One message, as --show lists it.
struct TraceEntry {
  int step, from, to, chunk;
  uint64_t bytes;
};

class Nccl;

// MPIX_Query_cuda_support(): whether this MPI reads device memory itself.
bool mpi_is_cuda_aware();

class Comm {
 public:
  explicit Comm(MPI_Comm comm);
  ~Comm();
  Comm(const Comm&) = delete;
  Comm& operator=(const Comm&) = delete;

  // The memory every buffer passed from now on lives in, and how it travels.
  void use(Memory& mem, Transport transport);
  Memory& memory() { return *mem_; }
  Transport transport() const { return transport_; }
  // NCCL over the same ranks, for the library rows on GPUs; null when there is none.
  void set_nccl(Nccl* nccl) { nccl_ = nccl; }
  Nccl* nccl() const { return nccl_; }

  int rank() const { return rank_; }
  int size() const { return size_; }
  MPI_Comm mpi() const { return comm_; }

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

  // Counting: start a fresh count, then gather every rank's into one Traffic
  // (collective). Tracing keeps each message for --show.
  void reset_counts();
  Traffic gather_counts() const;
  void set_tracing(bool on) { tracing_ = on; }   // reset_counts() clears the trace
  std::vector<TraceEntry> gather_trace() const;  // all ranks' sends, on rank 0

 private:
  struct Fold {  // what a _reduce call does with each piece received
    const Reduction& red;
    char* acc;
  };
  void count_send(int to, size_t bytes, Step step);
  void count_recv(size_t bytes);
  void exchange(int to, const char* s, size_t sbytes, int from, char* r, size_t rbytes,
                const Fold* fold);
  void staged_exchange(int to, const char* s, size_t sbytes, int from, char* r, size_t rbytes,
                       const Fold* fold);
  void* pinned(std::vector<std::pair<void*, size_t>>& pool, size_t index, size_t bytes);

  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
  uint64_t sent_B_ = 0, recv_B_ = 0, msgs_ = 0;
  int64_t last_step_ = -1;
  int step_offset_ = 0;
  std::vector<MPI_Request> sends_, recvs_;  // posted, not yet waited for
  Memory host_;
  Memory* mem_ = &host_;
  Transport transport_ = Transport::host;
  Nccl* nccl_ = nullptr;
  // Staged transport: two pinned slots each way for the blocking calls, whose
  // events say when a slot's copy is done; one pinned block per posted
  // isend/irecv, and where each irecv's data goes once it lands.
  void *out_[2] = {}, *in_[2] = {}, *out_ready_[2] = {}, *in_done_[2] = {};
  std::vector<std::pair<void*, size_t>> send_blocks_, recv_blocks_;
  struct Landing {
    void* dst;
    const void* block;
    size_t bytes;
  };
  std::vector<Landing> landings_;
  bool landing_ = false;  // copies out of the blocks may still run
  bool tracing_ = false;
  std::vector<TraceEntry> trace_;
};

}  // namespace commlab
