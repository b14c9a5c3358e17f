// The all-to-all of a mixture-of-experts layer: each rank sends each other
// rank a different number of elements (its tokens routed to that rank's
// experts), as MPI_Alltoallv and NCCL's grouped send/receive move them.
// The counts come from a traffic matrix, a file or a generator; three
// hand-written schedules move them (linear, pairwise, by load), each
// counted against its exact model; the time model charges the busiest
// rank's sends and receives. Docs: docs/alltoallv.md.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/comm/comm.hpp"
#include "core/comm/nodes.hpp"
#include "core/comm/time_model.hpp"
#include "core/comm/traffic.hpp"

namespace commlab::moe {

// counts[i][j]: the elements rank i sends rank j.
using Matrix = std::vector<std::vector<uint64_t>>;

// --matrix FILE: P lines of P counts (spaces or commas; '#' starts a
// comment). UsageError naming the line where it is not that.
Matrix read_matrix(const std::string& path, int P);
// --skew: "uniform", each rank's `tokens` split evenly over the ranks; or
// "zipf:S", each rank's tokens routed to the ranks' experts by a Zipf law
// (rank j's share 1/(j+1)^S, normalised; the remainder to the largest
// shares first), so rank 0 is the hottest expert. UsageError on another.
Matrix generate(const std::string& skew, int P, uint64_t tokens);

// Rank r's send and receive layout: the blocks for (from) each rank, in rank order.
struct Blocks {
  std::vector<uint64_t> count, offset;
  uint64_t total = 0;
};
Blocks sends_of(const Matrix& m, int r);
Blocks receives_of(const Matrix& m, int r);

// What each element carries: its sender, its receiver and its place.
int32_t token(int from, int to, uint64_t k);

struct AlltoallvJob {
  Comm& comm;
  const Matrix& m;
  const int32_t* in;
  int32_t* out;
};

// An algorithm: the messages (step, from, to, elements) it sends, in the
// order every rank walks them, and the algorithm that sends them.
struct Message {
  int step, from, to;
  uint64_t count;
};
struct Algorithm {
  std::string name;
  std::vector<Message> (*messages)(const Matrix& m);
};
// linear: every message in one step, all posted at once;
// pairwise: P - 1 steps, in step k rank r sends rank r + k, receives from r - k;
// by_load: pairwise's steps, the heaviest shift (most bytes over all ranks) first.
const std::vector<Algorithm>& algorithms();
void run(const Algorithm& s, const AlltoallvJob& job);

// The exact traffic of a schedule (the messages of 0 elements are not sent).
Traffic model(const Algorithm& s, const Matrix& m, const Nodes& nodes);
// The time model: each rank's sends go one after another, as do its
// receives, each message costing the exchange curve at its size; the call
// lasts as long as the busiest rank's larger side.
double model_us(const Matrix& m, const CostModel& cost);

}  // namespace commlab::moe
