// One training run on every rank: timed, its bytes checked against the
// exact counts, and what each rank measured brought to rank 0.
#pragma once
#include <cstdint>
#include <vector>

#include "core/comm/comm.hpp"
#include "core/vocabulary/outcome.hpp"
#include "training.hpp"

namespace commlab::ps {

// One rank's figures, gathered to rank 0 as doubles: roles as 0 or 1,
// seconds over the run, bytes over the run.
struct Measured {
  double is_worker, is_server, compute_s, push_s, wait_s, idle_s, aggregate_s, pull_s;
  double worker_in_B, worker_out_B, server_in_B, server_out_B;
};

// What every rank measured, on rank 0 (elsewhere only `elapsed_s` and `traffic`).
struct Measurement {
  double elapsed_s = 0;                       // the slowest rank's
  TrafficCheck traffic = TrafficCheck::none;  // none: not counted (mpi)
  std::vector<Measured> ranks;
  std::vector<double> loss;         // per iteration, summed over the workers
  std::vector<uint64_t> staleness;  // histogram, summed over the servers
  std::vector<float> weights;       // the final model
};

// Collective: trains in every rank's role and gathers the figures.
Measurement measure(Comm& comm, const Config& c, const std::vector<Shard>& shards);

}  // namespace commlab::ps
