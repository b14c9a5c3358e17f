// Rabenseifner's fold, for the all-reduce algorithms that need a power of two
// (Thakur, Rabenseifner and Gropp 2005, section 4; MPICH's allreduce does the
// same). With P = p2 + extra, p2 the largest power of two <= P, the first
// 2 x extra ranks pair up: rank 2i sends its whole buffer to rank 2i+1, which
// folds it into its own and stands for both. The p2 ranks left run the
// algorithm as virtual ranks 0 .. p2-1; at the end each rank 2i+1 sends the
// result back to rank 2i. Two steps and 2 x extra x N bytes more than a power
// of two; no rank is ever left out of the answer. P = 6 (p2 = 4, extra = 2):
//
//   rank          0    1    2    3    4    5
//   fold in       -> 1      -> 3
//   virtual            0         1    2    3
//   fold out      <- 1      <- 3
#include "algorithms.hpp"

namespace commlab {

PowerOfTwoFold::PowerOfTwoFold(int ranks) : P(ranks), p2(1) {
  while (p2 * 2 <= P) p2 *= 2;
  extra = P - p2;
}

int PowerOfTwoFold::virtual_rank(int r) const {
  if (r >= 2 * extra) return r - extra;
  return r % 2 ? r / 2 : -1;
}

int PowerOfTwoFold::real_rank(int v) const { return v < extra ? 2 * v + 1 : v + extra; }

void PowerOfTwoFold::fold_in(const CollectiveJob& job, char* data, size_t bytes) const {
  const int me = job.comm.rank();
  if (me >= 2 * extra) return;
  job.comm.begin_phase(Phase::fold);
  if (me % 2 == 0)
    job.comm.send(me + 1, data, bytes, {0});
  else
    job.comm.recv_reduce(me - 1, job.mem.scratch(bytes), data, bytes, job.red, {0});
}

void PowerOfTwoFold::fold_out(const CollectiveJob& job, char* data, size_t bytes, int step) const {
  const int me = job.comm.rank();
  if (me >= 2 * extra) return;
  job.comm.begin_phase(Phase::fold);
  if (me % 2)
    job.comm.send(me - 1, data, bytes, {step});
  else
    job.comm.recv(me + 1, data, bytes, {step});
}

void PowerOfTwoFold::tally_in(Tally& t, uint64_t bytes) const {
  for (int i = 0; i < extra; ++i) t.message(0, 2 * i, 2 * i + 1, bytes, Arrival::reduced);
}

void PowerOfTwoFold::tally_out(Tally& t, uint64_t bytes, int step) const {
  for (int i = 0; i < extra; ++i) t.message(step, 2 * i + 1, 2 * i, bytes);
}

int64_t PowerOfTwoFold::fold_ports(StepPorts& ports) const {
  for (int i = 0; i < extra; ++i) ports.message(2 * i, 2 * i + 1);
  return ports.end_step();
}

}  // namespace commlab
