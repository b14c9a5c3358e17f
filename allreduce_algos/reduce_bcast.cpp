// Reduce, then broadcast, both down binomial trees: the textbook tree
// all-reduce (the pair MPICH's and Open MPI's "basic" all-reduce is made of).
// Ranks are counted from the root (-r): v = (r - root) mod P. It is the
// binomial reduce (collectives/reduce_binomial.cpp) and the binomial
// broadcast (collectives/bcast_binomial.cpp) one after the other:
//
//   steps 0 .. L-1        reduce: in round k (d = 2^k) a rank with v mod 2d == d
//                         sends its partial sum to v - d and is done
//   steps L .. 2L-1       broadcast: in round k every rank with v < d sends
//                         the result to v + d
//
// with L = ceil(log2 P). P = 4, root 0, ranks holding a, b, c, d:
//
//   step 0   1 -> 0: a+b          3 -> 2: c+d
//   step 1   2 -> 0: a+b+c+d
//   step 2   0 -> 1
//   step 3   0 -> 2               1 -> 3
//
// 2 ceil(log2 P) steps, every message the whole buffer: the root receives
// and sends ceil(log2 P) x N, the busiest rank's traffic. Any P: a round's
// missing partner is skipped. Counts below P change nothing. The reduce
// starts from each rank's input, not from a copy of it in the result: a
// leaf sends its input as it is; the root copies it into its result (not in
// place), and a rank with a child into scratch, to add into.
#include <cmath>

#include "collectives/algorithms.hpp"  // reduce_binomial, bcast_binomial

namespace commlab {

namespace {

void allreduce_reduce_bcast(const CollectiveJob& job) {
  job.comm.begin_phase(Phase::reduce);
  reduce_binomial(job);  // the root's sum lands in its result; the others' results wait
  job.comm.set_step_offset(binomial_rounds(job.comm.size()));
  job.comm.begin_phase(Phase::broadcast);
  job.comm.watch(job.out, job.count * job.esize());  // off the root the reduce left it alone
  bcast_binomial(job);
  job.comm.set_step_offset(0);
}

Traffic model_allreduce_reduce_bcast(int P, size_t count, size_t esize, int root) {
  Tally t(P);
  tally_reduce_binomial(t, P, count, esize, root, 0);
  tally_bcast_binomial(t, P, count, esize, root, binomial_rounds(P));
  return t.traffic();
}

// At any scale, root 0: round k (d = 2^k) of the reduce sends N from v = d,
// 3d, 5d, ... to v - d; round k of the broadcast from every v < d to v + d.
// The root reduces one N per round.
ScaledTraffic scaled_allreduce_reduce_bcast(int P, double N, int ranks_per_node) {
  const int rounds = binomial_rounds(P);
  StepPorts ports(P, ranks_per_node);
  double crossing = 0;
  for (int64_t d = 1; d < P; d *= 2) {
    for (int64_t v = d; v < P; v += 2 * d) ports.message(v, v - d);
    crossing += double(ports.end_step());
    for (int64_t v = 0; v < d && v + d < P; ++v) ports.message(v, v + d);
    crossing += double(ports.end_step());
  }
  return {2.0 * rounds, crossing * N, rounds * N};
}

}  // namespace

// The textbook's T: what the root sends, for a power of two.
CollectiveAlgorithm allreduce_reduce_bcast_algorithm() {
  CollectiveAlgorithm a{"reduce_bcast", allreduce_reduce_bcast,
                        sized<model_allreduce_reduce_bcast>};
  a.teach(taught::tree);
  a.at_scale = scaled_allreduce_reduce_bcast;
  a.own_copies = [](const JobShape& s, int rank, bool in_place) {
    return reduce_binomial_own_copies(s.P, s.root, rank, in_place);
  };
  return a;
}

}  // namespace commlab
