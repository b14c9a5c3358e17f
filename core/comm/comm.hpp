// Point-to-point as the algorithms see it. Every hand-written algorithm talks
// only through this class: send, receive, exchange, each naming the schedule
// step it belongs to (and the chunk it carries), under the phase the schedule
// is in. The bytes travel through a Transport (transport.hpp): MPI on host or
// GPU buffers, or threads of one process in the tests.
//
// Comm only moves and labels. What the harness learns of a run (every rank's
// bytes, each message, the buffer after each step) is a Recorder's job
// (recorder.hpp), attached by the harness; where the ranks run (nodes.hpp) and
// the NCCL communicator are the job's, not Comm's.
#pragma once
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "core/device/memory.hpp"
#include "schedule.hpp"
#include "step.hpp"
#include "transport.hpp"

namespace commlab {

class Recorder;

class Comm {
 public:
  // Over MPI, on host buffers until use() says otherwise; `make` builds each
  // transport (core/transports/make_transport.hpp: make_transport).
  Comm(MPI_Comm comm, MakeTransport make);
  // Over a transport someone else owns (a thread of a ThreadWorld), on `mem`.
  Comm(Transport& transport, Memory& mem);
  Comm(const Comm&) = delete;
  Comm& operator=(const Comm&) = delete;

  // The memory every buffer passed from now on lives in, and how it travels
  // (MPI, or direct access with the host or the device signalling).
  void use(Memory& mem, TransportKind kind, Signals signals = Signals::host);
  // Back to MPI on host buffers, freeing what the transport held (the
  // direct transport's MPI windows, which must go before MPI_Finalize).
  void reset() { use(host_, TransportKind::host); }
  Memory& memory() { return *mem_; }
  TransportKind transport_kind() const { return t_->kind(); }
  Transport& transport() { return *t_; }

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
  // Send sbuf and make dst := mine (op) what arrives, mine untouched: a
  // step that sends the very buffer it reduces (recursive doubling) writes
  // the other of two, so the receiver may reduce straight from the sender's
  // memory in one pass. dst also serves as the receive buffer.
  void sendrecv_reduce_to(int to, const void* sbuf, size_t sbytes, int from, void* dst,
                          const void* mine, size_t rbytes, const Reduction& red, Step step);
  // Non-blocking: post now, complete with wait_all() (which every isend and
  // irecv needs before its buffer is touched again).
  void isend(int to, const void* buf, size_t bytes, Step step);
  void irecv(int from, void* buf, size_t bytes, Step step);
  void wait_all();
  // Whether every isend and irecv has completed (then as wait_all), without waiting.
  bool test_all();
  void wait_sends();  // only the isends: their buffers may be reused, receives go on
  // Every message of a round is posted; compute may follow (transport.hpp).
  void round_posted();

  // Blocks until a message from any rank is ready to receive; returns its sender.
  int probe_any();

  // Direct access (transport direct, direct_transport.hpp): the algorithms
  // that read peers' registered memory instead of sending messages. Each
  // read is labelled and counted as a message from `from` to this rank.
  bool maps_peers() { return t_->peers() != nullptr; }
  // Whether `buf` lies in this rank's registered region, where peers find it.
  bool registered(const void* buf);
  // Where `mine` (a buffer in this rank's registered region) is in rank's.
  const char* peer(int rank, const void* mine) { return peers().at(rank, mine); }
  void read(int from, const void* theirs, void* dst, size_t bytes, Step step);
  // acc (op)= what is at `theirs`, read straight from the peer's memory.
  void read_reduce(int from, const void* theirs, void* acc, size_t bytes, const Reduction& red,
                   Step step);
  // dst := the reduction, in rank order, of `bytes` at `where`'s place in
  // every rank's region (where: in this rank's), this rank's own term taken
  // from `own`: the same sum on every rank that makes it. One pass over all
  // the terms (one launch on the GPU); each peer's term counted as a read.
  void reduce_from_all(const void* where, const void* own, void* dst, size_t bytes,
                       const Reduction& red, Step step);
  // Every rank has reached this point: what each wrote before is visible to
  // all, and nobody still reads what came before.
  void fence();

  // Added to every step index until reset: lets one algorithm run another as
  // its later phase (a broadcast made of a scatter, then an all-gather).
  void set_step_offset(int offset) { step_offset_ = offset; }

  // Where the schedule is now: every step from here until the next call is
  // part of this phase (the ring halves and the algorithms built of phases set it).
  void begin_phase(Phase phase) { phase_ = phase; }

  // The buffer whose state after each step --show --steps prints. The
  // harness watches the result; an algorithm that works in scratch (a
  // reduce-scatter) points at that instead. Nothing happens unless a
  // Recorder is attached.
  void watch(const void* buf, size_t bytes);

  // The harness: every message from now on is told to `recorder` (null: to
  // none). A fresh attachment starts the schedule at its phase `none`.
  void attach(Recorder* recorder);

 private:
  int step_index(Step step) const { return step.index + step_offset_; }
  void sending(int to, size_t bytes, Step step);
  // What a receive does with its message, for the recorder: stores it,
  // reduces it, or (irecv) leaves it to the algorithm.
  enum class Landing { stored, reduced, deferred };
  void receiving(int from, size_t bytes, Step step, Landing landing);
  void reading(int from, size_t bytes, Step step, bool reduced);
  Peers& peers();  // the transport's, or logic_error
  // The attached Recorder's schedule, if it keeps one (schedule.hpp).
  ScheduleLog* schedule_log() const;
  void log_post(Act act, int peer, const void* buf, size_t bytes, Step step);
  void log_wait(const Reduction* red = nullptr, void* acc = nullptr, const void* mine = nullptr,
                const void* incoming = nullptr, size_t bytes = 0);
  void cannot_replay(const char* what);
  // Blocking exchange; acc (op)= each received piece when red is given (acc
  // := mine (op) it, when mine is).
  void exchange(int to, const void* s, size_t sbytes, int from, void* r, size_t rbytes,
                const Reduction* red, void* acc, const void* mine = nullptr);

  Memory host_;
  Memory* mem_ = &host_;
  MakeTransport make_;                // over MPI; empty over another's
  std::unique_ptr<Transport> owned_;  // over MPI; null over another's
  Transport* t_;
  int step_offset_ = 0;
  Phase phase_ = Phase::none;
  Recorder* recorder_ = nullptr;
};

// A Recorder attached to a Comm for a scope, and detached however the scope
// ends: a Comm never points at a Recorder that is gone.
class Attached {
 public:
  Attached(Comm& comm, Recorder& recorder) : comm_(comm) { comm.attach(&recorder); }
  ~Attached() { comm_.attach(nullptr); }
  Attached(const Attached&) = delete;
  Attached& operator=(const Attached&) = delete;

 private:
  Comm& comm_;
};

}  // namespace commlab
