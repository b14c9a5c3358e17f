// An algorithm's schedule as it ran on this rank, kept so that it can run
// again without the algorithm: non-blocking, round by round, progressed by
// test calls (executor.hpp), the way libNBC runs MPI_Iallreduce. Every
// hand-written algorithm is written blocking; its recorded schedule is what
// --overlap runs, so the rounds that are counted and taught are the ones
// overlapped with compute.
//
// A Recorder keeps one when asked (Recorder::keep_schedule): Comm tells it
// each message posted and each wait, and the Memory each copy and reduction
// the algorithm asked for between them (MemoryLog). compile() cuts the list
// into rounds at every wait: a round posts its messages and runs its local
// work at once, in program order, then, once every message of it has landed,
// reduces what the blocking call reduced as it landed (its `finish`).
//
// Buffers are kept as the pointers the algorithm used: a schedule replays on
// the buffers it was recorded on (the harness's, and the Memory's scratch,
// which never moves unless asked for more). What cannot be replayed (reads
// of peers' memory, fences, a probe for any sender) is named instead.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "core/device/memory.hpp"
#include "step.hpp"

namespace commlab {

enum class Act {
  send,    // post a send of `bytes` at a to `peer`
  recv,    // post a receive of `bytes` from `peer` into dst
  copy,    // dst := a, `bytes`
  reduce,  // dst (op)= a, or with b: dst := a (op) b; `bytes` is the element count
  wait,    // every message posted so far has completed
  land,    // after a wait: what a blocking receive reduced as it landed (as reduce)
};

struct Action {
  Act act;
  int peer = -1;
  void* dst = nullptr;
  const void* a = nullptr;
  const void* b = nullptr;
  size_t bytes = 0;
  Reduction red{};
  Step step{0};  // its index with the Comm's step offset applied
  Phase phase = Phase::none;
};

struct Round {
  std::vector<Action> start;   // posts and local work, in program order
  std::vector<Action> finish;  // reductions of what landed, once it all has
  int posts = 0;
};

struct Schedule {
  std::vector<Round> rounds;
  std::string cannot_replay;  // why not, or ""
  bool replayable() const { return cannot_replay.empty(); }
};

class ScheduleLog : public MemoryLog {
 public:
  void add(const Action& a) { actions_.push_back(a); }
  void cannot_replay(const char* what) override {
    if (why_.empty()) why_ = what;
  }
  void copied(void* dst, const void* src, size_t bytes) override;
  void reduced(const Reduction& red, void* dst, const void* a, const void* b,
               size_t count) override;
  const std::vector<Action>& actions() const { return actions_; }
  Schedule compile() const;

 private:
  std::vector<Action> actions_;
  std::string why_;
};

// The rounds of `actions`: cut at every wait, a `land` joining the round
// its wait closed.
Schedule compile(const std::vector<Action>& actions);

}  // namespace commlab
