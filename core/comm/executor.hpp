// A recorded schedule (schedule.hpp) run non-blocking: libNBC's state
// machine of rounds. start() begins the first round; each test() completes
// the rounds whose messages have all landed (reducing what they reduce) and
// begins the next, so a schedule moves only when tested, as libNBC's does
// inside MPI_Test; wait() runs it to the end. Messages go through the Comm,
// labelled with their recorded steps, so a Recorder counts a replay as it
// counts the blocking run.
#pragma once
#include <cstddef>
#include <functional>
#include <string>

#include "comm.hpp"
#include "schedule.hpp"

namespace commlab {

// The schedule of one call of `run` on `comm` (a Recorder keeping it for
// the call's length, the memory synced at its end); `name` says in the
// logic_error what cannot be replayed, where something cannot.
Schedule record_schedule(Comm& comm, const std::function<void()>& run, const std::string& name);

class Executor {
 public:
  Executor(Comm& comm, const Schedule& schedule) : comm_(comm), s_(schedule) {}

  void start();
  bool test();  // true once every round has completed
  void wait();
  bool done() const { return round_ == s_.rounds.size(); }
  size_t rounds() const { return s_.rounds.size(); }
  size_t rounds_done() const { return round_; }

 private:
  void begin(const Round& round);
  void finish(const Round& round);
  void next();  // the current round has landed: finish it, begin the next

  Comm& comm_;
  const Schedule& s_;
  size_t round_ = 0;
};

}  // namespace commlab
