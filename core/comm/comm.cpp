#include "comm.hpp"

#include <stdexcept>
#include <utility>
#include <vector>

#include "recorder.hpp"

namespace commlab {

Comm::Comm(MPI_Comm comm, MakeTransport make)
    : make_(std::move(make)),
      owned_(make_(comm, host_, TransportKind::host, Signals::host)),
      t_(owned_.get()) {}

Comm::Comm(Transport& transport, Memory& mem) : mem_(&mem), t_(&transport) {}

void Comm::use(Memory& mem, TransportKind kind, Signals signals) {
  if (!owned_) throw std::logic_error("Comm::use: only a Comm over MPI changes its transport");
  // A new transport even for the same kind: an MPI transport keeps the Memory it syncs.
  owned_ = make_(t_->mpi(), mem, kind, signals);
  t_ = owned_.get();
  mem_ = &mem;
}

void Comm::attach(Recorder* recorder) {
  recorder_ = recorder;
  phase_ = Phase::none;
  if (recorder) recorder->start(t_->peer_bytes(), *mem_);
  mem_->set_log(schedule_log());
}

namespace {
// A transport's own copies and reductions (a fold's, as each piece lands; a
// staged GPU's pieces) are not the algorithm's: the call is logged instead.
class Unlogged {
 public:
  explicit Unlogged(Memory& mem) : mem_(mem), was_(mem.log()) { mem.set_log(nullptr); }
  ~Unlogged() { mem_.set_log(was_); }
  Unlogged(const Unlogged&) = delete;
  Unlogged& operator=(const Unlogged&) = delete;

 private:
  Memory& mem_;
  MemoryLog* was_;
};
}  // namespace

ScheduleLog* Comm::schedule_log() const { return recorder_ ? recorder_->schedule() : nullptr; }

void Comm::log_post(Act act, int peer, const void* buf, size_t bytes, Step step) {
  ScheduleLog* log = schedule_log();
  if (!log || peer == kNoRank) return;
  Action a{act, peer};
  if (act == Act::send)
    a.a = buf;
  else
    a.dst = const_cast<void*>(buf);
  a.bytes = bytes, a.step = {step_index(step), step.chunk, step.last}, a.phase = phase_;
  log->add(a);
}

// A blocking call's end; with red, what it reduced as the message landed:
// acc (op)= incoming, or acc := mine (op) incoming.
void Comm::log_wait(const Reduction* red, void* acc, const void* mine, const void* incoming,
                    size_t bytes) {
  ScheduleLog* log = schedule_log();
  if (!log) return;
  log->add(Action{Act::wait});
  if (!red || bytes == 0) return;
  Action land{Act::land};
  land.dst = acc, land.a = mine ? mine : incoming, land.b = mine ? incoming : nullptr;
  land.bytes = bytes / red->esize(), land.red = *red;
  log->add(land);
}

void Comm::cannot_replay(const char* what) {
  if (ScheduleLog* log = schedule_log()) log->cannot_replay(what);
}

void Comm::watch(const void* buf, size_t bytes) {
  if (recorder_) recorder_->watch(buf, bytes);
}

void Comm::sending(int to, size_t bytes, Step step) {
  if (!recorder_) return;
  const int index = step_index(step);
  recorder_->begin_step(index, *mem_);
  TraceEntry e{index, rank(), to, step.chunk, bytes, phase_};
  e.last_chunk = step.last;
  recorder_->sent(e);
}

void Comm::receiving(int from, size_t bytes, Step step, Landing landing) {
  if (!recorder_) return;
  const int index = step_index(step);
  recorder_->begin_step(index, *mem_);
  recorder_->received({index, from, rank(), step.chunk, bytes, phase_, false,
                       landing == Landing::reduced, landing == Landing::deferred, step.last});
}

void Comm::exchange(int to, const void* s, size_t sbytes, int from, void* r, size_t rbytes,
                    const Reduction* red, void* acc, const void* mine) {
  const Unlogged unlogged(*mem_);
  if (!red) return t_->exchange(to, s, sbytes, from, r, rbytes, nullptr);
  const Fold fold{mem_, red, static_cast<char*>(acc), static_cast<const char*>(mine)};
  t_->exchange(to, s, sbytes, from, r, rbytes, &fold);
}

void Comm::send(int to, const void* buf, size_t bytes, Step step) {
  sending(to, bytes, step);
  log_post(Act::send, to, buf, bytes, step);
  exchange(to, buf, bytes, kNoRank, nullptr, 0, nullptr, nullptr);
  log_wait();
}

void Comm::recv(int from, void* buf, size_t bytes, Step step) {
  receiving(from, bytes, step, Landing::stored);
  log_post(Act::recv, from, buf, bytes, step);
  exchange(kNoRank, nullptr, 0, from, buf, bytes, nullptr, nullptr);
  log_wait();
}

void Comm::sendrecv(int to, const void* sbuf, size_t sbytes, int from, void* rbuf, size_t rbytes,
                    Step step) {
  sending(to, sbytes, step);
  receiving(from, rbytes, step, Landing::stored);
  log_post(Act::send, to, sbuf, sbytes, step);
  log_post(Act::recv, from, rbuf, rbytes, step);
  exchange(to, sbuf, sbytes, from, rbuf, rbytes, nullptr, nullptr);
  log_wait();
}

void Comm::recv_reduce(int from, void* incoming, void* acc, size_t bytes, const Reduction& red,
                       Step step) {
  receiving(from, bytes, step, Landing::reduced);
  log_post(Act::recv, from, incoming, bytes, step);
  exchange(kNoRank, nullptr, 0, from, incoming, bytes, &red, acc);
  log_wait(&red, acc, nullptr, incoming, bytes);
}

void Comm::sendrecv_reduce(int to, const void* sbuf, size_t sbytes, int from, void* incoming,
                           void* acc, size_t rbytes, const Reduction& red, Step step) {
  sending(to, sbytes, step);
  receiving(from, rbytes, step, Landing::reduced);
  log_post(Act::send, to, sbuf, sbytes, step);
  log_post(Act::recv, from, incoming, rbytes, step);
  exchange(to, sbuf, sbytes, from, incoming, rbytes, &red, acc);
  log_wait(&red, acc, nullptr, incoming, rbytes);
}

void Comm::sendrecv_reduce_to(int to, const void* sbuf, size_t sbytes, int from, void* dst,
                              const void* mine, size_t rbytes, const Reduction& red, Step step) {
  sending(to, sbytes, step);
  receiving(from, rbytes, step, Landing::reduced);
  log_post(Act::send, to, sbuf, sbytes, step);
  log_post(Act::recv, from, dst, rbytes, step);
  exchange(to, sbuf, sbytes, from, dst, rbytes, &red, dst, mine);
  log_wait(&red, dst, mine, dst, rbytes);
}

void Comm::isend(int to, const void* buf, size_t bytes, Step step) {
  sending(to, bytes, step);
  log_post(Act::send, to, buf, bytes, step);
  const Unlogged unlogged(*mem_);
  t_->isend(to, buf, bytes);
}

void Comm::irecv(int from, void* buf, size_t bytes, Step step) {
  receiving(from, bytes, step, Landing::deferred);
  log_post(Act::recv, from, buf, bytes, step);
  const Unlogged unlogged(*mem_);
  t_->irecv(from, buf, bytes);
}

Peers& Comm::peers() {
  Peers* p = t_->peers();
  if (!p)
    throw std::logic_error("an algorithm that reads peers' memory ran on the " +
                           name(transport_kind()) + " transport, which cannot map it");
  return *p;
}

void Comm::reading(int from, size_t bytes, Step step, bool reduced) {
  if (!recorder_) return;
  const int index = step_index(step);
  recorder_->begin_step(index, *mem_);
  recorder_->read(
      {index, from, rank(), step.chunk, bytes, phase_, true, reduced, false, step.last});
}

void Comm::read(int from, const void* theirs, void* dst, size_t bytes, Step step) {
  cannot_replay("a read of a peer's memory");
  reading(from, bytes, step, false);
  peers().read(from, theirs, dst, bytes);
}

void Comm::read_reduce(int from, const void* theirs, void* acc, size_t bytes, const Reduction& red,
                       Step step) {
  cannot_replay("a read of a peer's memory");
  reading(from, bytes, step, true);
  peers().read_reduce(from, theirs, acc, bytes / red.esize(), red);
}

void Comm::reduce_from_all(const void* where, const void* own, void* dst, size_t bytes,
                           const Reduction& red, Step step) {
  const int P = size(), me = rank();
  cannot_replay("a read of every peer's memory");
  if (bytes == 0) return;
  if (P == 1) return mem_->copy(dst, own, bytes);
  std::vector<const void*> terms(P);
  for (int q = 0; q < P; ++q) {
    terms[q] = q == me ? own : peer(q, where);
    if (q != me) reading(q, bytes, step, true);
  }
  peers().read_reduce_all(terms.data(), dst, bytes / red.esize(), red);
}

bool Comm::registered(const void* buf) {
  const char *p = static_cast<const char*>(buf), *region = peers().region();
  return p >= region && p < region + peers().region_bytes();
}

void Comm::fence() {
  cannot_replay("a fence");
  peers().fence();
}

void Comm::wait_sends() {
  cannot_replay("a wait for sends alone");
  const Unlogged unlogged(*mem_);
  t_->wait_sends();
}

void Comm::wait_all() {
  log_wait();
  const Unlogged unlogged(*mem_);
  t_->wait_all();
}

void Comm::round_posted() {
  const Unlogged unlogged(*mem_);
  t_->round_posted();
}

bool Comm::test_all() {
  const Unlogged unlogged(*mem_);
  return t_->test_all();
}

int Comm::probe_any() {
  cannot_replay("a probe for any sender");
  return t_->probe_any();
}

}  // namespace commlab
