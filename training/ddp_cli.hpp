// ddp_step's flags: the model (layers of a dense network), the buckets, the
// all-reduces, the iterations and the output.
#pragma once
#include <string>
#include <vector>

#include "harness/program.hpp"

namespace commlab::ddp {

struct Settings {
  int layers = 8, hidden = 512, batch = 4;      // backward: 2 GEMMs a layer, 4 B H^2 flops
  std::vector<double> bucket_MiB{25};           // DDP's bucket_cap_mb
  std::vector<std::string> algorithms{"ring"};  // hand-written, replayed (-a; "none": MPI's alone)
  bool library = true;                          // MPI_Iallreduce's rows
  int iters = 10, warmup = 2;
  std::string csv;
  bool check = true;
};

Parse<Settings> parse_settings(int argc, char** argv, int P, int rank);

}  // namespace commlab::ddp
