// ps_sim's flags: what a run is asked to do, validated against the job's
// ranks, and what each rank will hold for it.
#pragma once
#include <string>
#include <vector>

#include "harness/program.hpp"
#include "training.hpp"

namespace commlab::ps {

struct Settings {
  Config cfg;
  std::vector<Shard> shards;  // the servers' parameters, one each (none without servers)
  bool check = true;
  std::string csv, loss_csv;
};

// argv against a job of `ranks` ranks, for rank `rank`; UsageError on bad input.
Parse<Settings> parse_settings(int argc, char** argv, int ranks, int rank);

}  // namespace commlab::ps
