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

  // The counted transport cannot see the critical path; it is a model-only figure.
  bool same_counts(const Traffic& o) const {
    return sent_max_rank_B == o.sent_max_rank_B && recv_max_rank_B == o.recv_max_rank_B &&
           sent_total_B == o.sent_total_B && msgs_total == o.msgs_total && steps == o.steps;
  }
};

// A model written as the schedule's list of messages: who sends how many
// bytes to whom at which step. The critical path is taken as the sum, over
// steps, of each step's largest message: every step waits for its slowest.
class Tally {
 public:
  explicit Tally(int P) : sent_(P), recv_(P) {}
  void message(int step, int from, int to, uint64_t bytes) {
    sent_[from] += bytes;
    recv_[to] += bytes;
    ++msgs_;
    uint64_t& widest = step_max_[step];
    widest = std::max(widest, bytes);
  }
  Traffic traffic() const {
    Traffic t;
    for (size_t r = 0; r < sent_.size(); ++r) {
      t.sent_max_rank_B = std::max(t.sent_max_rank_B, sent_[r]);
      t.recv_max_rank_B = std::max(t.recv_max_rank_B, recv_[r]);
      t.sent_total_B += sent_[r];
    }
    t.msgs_total = msgs_;
    t.steps = step_max_.empty() ? 0 : uint64_t(step_max_.rbegin()->first) + 1;
    for (const auto& [step, widest] : step_max_) t.critical_path_B += widest;
    return t;
  }

 private:
  std::vector<uint64_t> sent_, recv_;
  uint64_t msgs_ = 0;
  std::map<int, uint64_t> step_max_;
};

}  // namespace commlab
