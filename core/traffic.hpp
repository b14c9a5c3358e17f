// What goes over the wire in one run of an algorithm, counted or modelled.
#pragma once
#include <cstdint>

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

}  // namespace commlab
