#include "executor.hpp"

#include <stdexcept>

#include "recorder.hpp"

namespace commlab {

namespace {
// A copy or a reduction, as the algorithm asked the Memory for it.
void run_local(Memory& mem, const Action& a) {
  if (a.act == Act::copy) return mem.copy(a.dst, a.a, a.bytes);
  if (a.b) return mem.reduce_to(a.red, a.dst, a.a, a.b, a.bytes);
  mem.reduce(a.red, a.dst, a.a, a.bytes);
}
}  // namespace

Schedule record_schedule(Comm& comm, const std::function<void()>& run, const std::string& name) {
  ScheduleLog log;
  Recorder recorder(Keep::counts);
  recorder.keep_schedule(log);
  {
    Attached attached(comm, recorder);
    run();
    comm.memory().sync();
  }
  Schedule s = log.compile();
  if (!s.replayable())
    throw std::logic_error(name + " cannot run non-blocking: it has " + s.cannot_replay);
  return s;
}

void Executor::begin(const Round& round) {
  for (const Action& a : round.start) {
    comm_.begin_phase(a.phase);
    if (a.act == Act::send)
      comm_.isend(a.peer, a.a, a.bytes, a.step);
    else if (a.act == Act::recv)
      comm_.irecv(a.peer, a.dst, a.bytes, a.step);
    else
      run_local(comm_.memory(), a);
  }
  comm_.round_posted();  // the caller may compute before it tests or waits
}

void Executor::finish(const Round& round) {
  for (const Action& a : round.finish) run_local(comm_.memory(), a);
}

void Executor::next() {
  finish(s_.rounds[round_]);
  if (++round_ < s_.rounds.size()) begin(s_.rounds[round_]);
}

void Executor::start() {
  if (!s_.replayable()) throw std::logic_error("a schedule with " + s_.cannot_replay + " replayed");
  comm_.set_step_offset(0);  // recorded with it applied
  round_ = 0;
  if (!done()) begin(s_.rounds[0]);
}

bool Executor::test() {
  while (!done()) {
    if (!comm_.test_all()) return false;
    next();
  }
  return true;
}

void Executor::wait() {
  while (!done()) {
    comm_.wait_all();
    next();
  }
}

}  // namespace commlab
