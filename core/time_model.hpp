// The time model: a run's time from its schedule, in three machine figures
// (Hockney's alpha-beta model, with gamma for the reduction as in Thakur,
// Rabenseifner and Gropp 2005). For each step of the schedule,
//
//   alpha x the most messages any rank sends in it
//   + beta x the most bytes any rank sends or receives in it (its port)
//   + gamma x the most bytes any rank reduces in it, unless hidden behind
//     the next message (a pipeline)
//
// summed over the steps (Traffic's latency_msgs, port_path_B, reduce_path_B).
// -a auto runs the algorithm this predicts to be fastest, and the segmented
// ring cuts its chunks where it predicts the least time.
#pragma once
#include <cstddef>
#include <string>

#include "comm.hpp"
#include "reduce.hpp"
#include "traffic.hpp"

namespace commlab {

struct CostModel {
  double alpha_us = 0;       // per message
  double beta_us_per_B = 0;  // per byte through a rank's port
  double gamma_us_per_B = 0; // per byte reduced
  std::string source;        // where the figures come from, for the table's header

  double predict_us(const Traffic& t) const {
    return alpha_us * double(t.latency_msgs) + beta_us_per_B * double(t.port_path_B) +
           gamma_us_per_B * double(t.reduce_path_B);
  }
};

// Measures the three on this machine, the same on every rank (collective,
// some milliseconds): alpha and beta from a ping-pong between ranks 0 and 1
// of 8 B and of 1 MiB through `comm`, gamma from reducing 1 MiB of `red` in
// its memory. Counts on `comm` are reset after.
CostModel probe_cost(Comm& comm, const Reduction& red);

// "alpha 1.2 us, beta 0.2 ns/B (5.0 GB/s), gamma 0.3 ns/B (probe)"
std::string describe(const CostModel& m);

// The segment that minimises a pipelined step over a chunk of chunk_B bytes:
// k segments cost k x alpha + beta x chunk + gamma x chunk / k, least at
// chunk / k = sqrt(alpha x chunk / gamma); whole elements, at least one.
size_t best_segment_B(const CostModel& m, size_t chunk_B, size_t esize);

}  // namespace commlab
