// What every message is labelled with: the schedule's step (and the chunk it
// carries) and the phase the schedule is in. Comm labels each message so
// (comm.hpp); a Recorder keeps the labels (recorder.hpp); --show prints them.
#pragma once
#include <string>

namespace commlab {

constexpr int kWholeBuffer = -1;

struct Step {
  int index;                 // round of the schedule, from 0
  int chunk = kWholeBuffer;  // which chunk the message carries, for --show
  // A run of chunks (a subtree's, a group's): chunk, chunk+1, ... last,
  // counting round past P-1 to 0 (--show: "chunks 3..1" at P = 4 is 3, 0, 1).
  int last = kWholeBuffer;
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

}  // namespace commlab
