// One run of a hand-written algorithm with its ranks as threads of one
// process (core/transports/thread_transport.hpp): every rank's result checked exactly,
// the traffic counted. The in-process tests, the lab's grader and lab_check
// all run algorithms through this one function.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "buffer.hpp"
#include "core/comm/recorder.hpp"
#include "core/transports/direct_transport.hpp"
#include "core/transports/thread_transport.hpp"
#include "operations/operation.hpp"

namespace commlab {

struct InProcessRun {
  const Operation& op;
  const CollectiveAlgorithm& algo;
  int P;
  size_t N;
  DType dtype = DType::float32;
  Op op_kind = Op::sum;
  int root = 0;
  bool in_place = false;
  Nodes nodes = {};                 // where the ranks run (the hierarchical all-reduce looks)
  size_t segment_B = 0;             // the segmented ring's
  Signals signals = Signals::host;  // over direct access: who writes and polls the flags
  Fill fill = Fill::pattern;        // Fill::rank: the known vectors --show prints
  bool trace = false;               // keep each rank's buffer after every step
  // Over the direct transport (core/transports/direct_transport.hpp): buffers in each
  // rank's region, messages read from peers' memory; always for an
  // algorithm that reads peers' memory itself.
  bool direct = false;
  // There, an algorithm that reads peers' memory may be handed the user's
  // own buffers, outside the region (it copies what its peers read).
  bool private_buffers = false;
  // Run the algorithm once to record its schedule, then replay that
  // non-blocking (core/comm/executor.hpp): this many test calls, then a
  // wait; negative: test calls alone until it completes. What is checked and
  // counted is the replay.
  std::optional<int> replay_tests = std::nullopt;

  std::string describe() const;
  JobShape shape() const { return {P, N, element_size(dtype), root, nodes, segment_B}; }
};

// One message as a schedule's list names it, counted or modelled.
struct Sent {
  int step, from, to;
  uint64_t bytes;
  bool reduced;      // the receiver reduced it into its buffer
  int chunk = -1;    // counted only: the chunk its step named
  bool seen = true;  // counted: false where it arrived by irecv (or unseen), so reduced is unknown
  int last = -1;     // counted: a run of chunks, chunk .. last (core/comm/comm.hpp: Step)
};

// Where a counted schedule and a model first part, both listed by step, then
// sender, then receiver: the index, and each side's message there (none
// where that side's list has ended).
struct MessageDifference {
  size_t index, counted_msgs, model_msgs;
  std::optional<Sent> counted, model;
};

// "step 0: rank 0 -> rank 3, 4 B (chunk 1), reduced on arrival"
std::string describe(const Sent& m);

struct InProcessResult {
  bool direct = false;  // counted over the direct transport: the model's reads are its receives
  Traffic counted;
  // Every message as its sender counted it (with the reads), and as its
  // receiver did: by step, then sender.
  std::vector<TraceEntry> sent, arrived;
  std::vector<std::string> wrong;                // per rank: "" or its first wrong element
  std::vector<std::vector<Snapshot>> snapshots;  // per rank, when traced
  std::vector<std::vector<double>> outputs;      // per rank, the result buffer
  // Over the direct transport, per rank: messages received, the copies and
  // reductions (GPU launches) queued to receive them, and the syncs (host
  // round trips on the GPU) the run made.
  struct Costs {
    uint64_t received = 0, receive_ops = 0, waits = 0;
  };
  std::vector<Costs> costs;

  // "" when every rank's result is right and the counted traffic is the model's,
  // message by message (step, sender, receiver, bytes, reduced or not).
  std::string verdict(const Traffic& model) const;
  // The first message where what ran and the model differ; none when they
  // agree message by message (step, sender, receiver, bytes, reduced).
  std::optional<MessageDifference> first_difference(const Traffic& model) const;
};

// A snapshot's elements, as numbers.
std::vector<double> values(DType t, const Snapshot& s);

// Runs `run` on `world` (which has run.P ranks). Throws what a rank threw:
// a deadlock names the rank and what it waited for.
InProcessResult run_in_process(ThreadWorld& world, const InProcessRun& run);

}  // namespace commlab
