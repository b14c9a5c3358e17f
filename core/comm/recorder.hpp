// What the harness learns of a run, beside its result: every rank's bytes and
// messages, each message with its step, chunk and phase (for --show, and for
// the bytes through the busiest node's port), and the watched buffer as each
// step begins (for --show --steps and the lab's grader). The harness attaches
// one to a Comm (Comm::attach) for the runs it checks; the algorithms never
// see it, and the timed runs go without.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "nodes.hpp"
#include "schedule.hpp"
#include "step.hpp"
#include "traffic.hpp"
#include "transport.hpp"

namespace commlab {

// One message, as --show lists it.
struct TraceEntry {
  int step, from, to, chunk;
  uint64_t bytes;
  Phase phase;
  bool read = false;      // recorded by its receiver, which read it from the sender's memory
  bool reduced = false;   // its receiver reduced it into its buffer (arrivals and reads)
  bool deferred = false;  // an arrival posted by irecv: what the algorithm does with it is its own
  int last_chunk = -1;    // a run of chunks, chunk .. last_chunk (core/comm/comm.hpp: Step)
};

// "chunk 2", "chunks 5..0" (a run, wrapping mod P), or "" for the whole
// buffer: how --show and lab_check name what a message carried.
std::string chunks_text(int chunk, int last_chunk);

// A rank's buffer as it stood after `after_step` (-1: before its first step).
struct Snapshot {
  int after_step;
  std::vector<char> bytes;
};

// A rank's state after `step`: its latest snapshot taken after a step up to
// it (a rank idle in a step keeps what it had); null if it has none.
const Snapshot* state_after(const std::vector<Snapshot>& snapshots, int step);

// What a Recorder keeps beside every rank's counts: each message too (the
// bytes through a node's port need them), and also the watched buffer's
// state after each step (--show --steps, the grader), which costs a copy of
// the buffer a step and is kept only when asked for.
enum class Keep { counts, messages, states };

class Recorder {
 public:
  explicit Recorder(Keep keep = Keep::counts) : keep_(keep) {}

  // Comm's side. Every message first says which step it belongs to (the
  // offset applied): a step not begun before snapshots the end of the last.
  void begin_step(int step, Memory& mem);
  void sent(const TraceEntry& message);
  // What a rank received, as its receiver saw it (`to` the receiver), kept
  // where messages are: whether it was reduced shows only here.
  void received(const TraceEntry& arrival) {
    mine_.recv_B += arrival.bytes;
    if (keep_ != Keep::counts) arrivals_.push_back(arrival);
  }
  // A read from a peer's memory (Comm::read): a message its sender never
  // saw, so it is always kept, and counted as the sender's when gathered.
  void read(const TraceEntry& message);
  // The transport's peer bytes and the memory's moved bytes as the
  // recording starts (Comm::attach), so that only this run's are counted.
  void start(PeerBytes peer, const Memory& mem) {
    peer_start_ = peer;
    mem_ = &mem;
    moved_start_B_ = mem.moved_B();
  }
  // Also keep the schedule, for --overlap to run it again (schedule.hpp).
  void keep_schedule(ScheduleLog& log) { schedule_ = &log; }
  ScheduleLog* schedule() const { return schedule_; }
  void watch(const void* buf, size_t bytes) {
    if (keep_ == Keep::states) watched_ = buf, watched_B_ = bytes;
  }
  // The watched buffer now, as the state after the latest step begun: Comm
  // takes one as each new step begins, the harness one at the end of a run.
  void snapshot(Memory& mem);

  // This rank's own bytes, so a caller can split them by role (ps_sim).
  uint64_t sent_B() const { return mine_.sent_B; }
  uint64_t recv_B() const { return mine_.recv_B; }
  const std::vector<Snapshot>& snapshots() const { return snapshots_; }

  // Collective over `transport`'s ranks: every rank's counts as one Traffic,
  // its port bytes from the trace for these nodes (0 when not tracing).
  Traffic gather_counts(Transport& transport, const Nodes& nodes) const;
  // The same, with the trace already gathered (--show prints it too).
  Traffic gather_counts(Transport& transport, const Nodes& nodes,
                        const std::vector<TraceEntry>& trace) const;
  // By step, then sender. `keep` false: take part in the collective, and
  // return nothing (sorting every rank's messages on each of P ranks costs
  // P times what the one rank that reads them needs: the in-process runs).
  std::vector<TraceEntry> gather_trace(Transport& transport, bool keep = true) const;
  std::vector<TraceEntry> gather_arrivals(Transport& transport, bool keep = true) const;
  // Every count from a gathered trace alone, the receivers' bytes included:
  // for messages a rank only saw leave (the library's, harness/library_monitor.hpp).
  static Traffic counts_of(const std::vector<TraceEntry>& trace, int P, const Nodes& nodes);
  std::vector<std::vector<Snapshot>> gather_snapshots(Transport& transport) const;

 private:
  struct Counts {  // one rank's, gathered as they are
    uint64_t sent_B = 0, recv_B = 0, msgs = 0;
    int64_t last_step = -1;
    PeerBytes peer;
    uint64_t moved_B = 0;
  };
  Keep keep_;
  Counts mine_;
  PeerBytes peer_start_;
  const Memory* mem_ = nullptr;
  uint64_t moved_start_B_ = 0;
  std::vector<TraceEntry> trace_, arrivals_;
  int step_now_ = -1;  // the latest step this rank has begun, for snapshots
  const void* watched_ = nullptr;
  size_t watched_B_ = 0;
  std::vector<Snapshot> snapshots_;
  ScheduleLog* schedule_ = nullptr;
};

}  // namespace commlab
