// What goes over the wire in one run of an algorithm, counted or modelled.
#pragma once
#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

namespace commlab {

struct Traffic {
  uint64_t sent_max_rank_B = 0;  // bytes sent by the busiest sender
  uint64_t recv_max_rank_B = 0;  // bytes received by the busiest receiver
  uint64_t sent_total_B = 0;     // bytes sent, summed over all ranks
  uint64_t msgs_total = 0;       // messages sent, summed over all ranks
  uint64_t steps = 0;            // communication rounds in the schedule
  uint64_t critical_path_B = 0;  // bytes along the longest chain of dependent messages
  // The time model's inputs, summed over the steps; like the critical path,
  // model-only (time.hpp turns them into microseconds):
  uint64_t latency_msgs = 0;   // the most messages any rank sends in the step
  uint64_t port_path_B = 0;    // the most bytes any rank sends, or receives, in the step
  uint64_t reduce_path_B = 0;  // the most bytes any rank reduces in the step, not hidden

  // The counted transport cannot see the critical path; it is a model-only figure.
  bool same_counts(const Traffic& o) const {
    return sent_max_rank_B == o.sent_max_rank_B && recv_max_rank_B == o.recv_max_rank_B &&
           sent_total_B == o.sent_total_B && msgs_total == o.msgs_total && steps == o.steps;
  }
};

// What the receiver does with a message before its step can end: stores it,
// reduces it into its own buffer, or reduces it while the next message of
// the step is already in flight (a pipeline: only the last one's reduction
// shows in the time).
enum class Arrival { stored, reduced, reduced_in_flight };

// A model written as the schedule's list of messages: who sends how many
// bytes to whom at which step. The critical path is taken as the sum, over
// steps, of each step's largest message: every step waits for its slowest.
class Tally {
 public:
  explicit Tally(int P) : P_(P), sent_(P), recv_(P) {}
  void message(int step, int from, int to, uint64_t bytes, Arrival arrival = Arrival::stored) {
    sent_[from] += bytes;
    recv_[to] += bytes;
    ++msgs_;
    StepLoad& load = steps_.try_emplace(step, P_).first->second;
    load.widest = std::max(load.widest, bytes);
    ++load.msgs[from];
    load.sent_B[from] += bytes;
    load.recv_B[to] += bytes;
    if (arrival == Arrival::reduced) load.reduced_B[to] += bytes;
  }
  Traffic traffic() const {
    Traffic t;
    for (size_t r = 0; r < sent_.size(); ++r) {
      t.sent_max_rank_B = std::max(t.sent_max_rank_B, sent_[r]);
      t.recv_max_rank_B = std::max(t.recv_max_rank_B, recv_[r]);
      t.sent_total_B += sent_[r];
    }
    t.msgs_total = msgs_;
    t.steps = steps_.empty() ? 0 : uint64_t(steps_.rbegin()->first) + 1;
    for (const auto& [step, load] : steps_) {
      t.critical_path_B += load.widest;
      t.latency_msgs += most(load.msgs);
      t.port_path_B += std::max(most(load.sent_B), most(load.recv_B));
      t.reduce_path_B += most(load.reduced_B);
    }
    return t;
  }

 private:
  struct StepLoad {  // one step, per rank
    explicit StepLoad(int P) : msgs(P), sent_B(P), recv_B(P), reduced_B(P) {}
    std::vector<uint64_t> msgs, sent_B, recv_B, reduced_B;
    uint64_t widest = 0;
  };
  static uint64_t most(const std::vector<uint64_t>& v) {
    return v.empty() ? 0 : *std::max_element(v.begin(), v.end());
  }
  int P_;
  std::vector<uint64_t> sent_, recv_;
  uint64_t msgs_ = 0;
  std::map<int, StepLoad> steps_;
};

}  // namespace commlab
