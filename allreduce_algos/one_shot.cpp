// One-shot all-reduce: possible only where ranks map each other's memory
// (--transport direct). Every rank reads every peer's whole buffer and
// reduces them all itself, in one step (vLLM's custom all-reduce and
// PyTorch's SymmetricMemory use it for small messages). P = 3, buffers a, b, c:
//
//   fence: every input is in place
//   step 0: rank 0 reads b, c   rank 1 reads a, c   rank 2 reads a, b
//           each reduces a + b + c, in rank order (every rank the same sum)
//   fence: nobody still reads an input
//
// One step instead of the ring's 2(P-1): the cost per step (a signal, a
// wait) is paid once. But every rank reads (P-1) x N, against the ring's
// 2(P-1)/P x N: the bytes grow with P, so it wins for small buffers and
// loses for large ones. The peers read a registered copy of a private
// input (the copy is part of the call). In place on registered memory, the
// sum is built in scratch and copied over the buffer after the second
// fence, since peers read it until then. Any count, even below P: nothing
// is cut.
#include <algorithm>

#include "collectives/algorithm.hpp"

namespace commlab {

namespace {

void allreduce_one_shot(const CollectiveJob& job) {
  Comm& comm = job.comm;
  const size_t bytes = job.count * job.esize();
  char* room = static_cast<char*>(job.mem.scratch(bytes));  // registered, as all scratch
  // Where the peers read this rank's input: the input itself if it is
  // registered, else a copy in scratch (the user's own memory is not mapped).
  const bool copied = !comm.registered(job.in);
  if (copied) job.mem.copy(room, job.in, bytes);
  const void* shared = copied ? room : job.in;
  // In place on registered memory, the sum cannot go where the peers still read.
  char* sum = job.in_place() && !copied ? room : static_cast<char*>(job.out);
  comm.begin_phase(Phase::reduce);
  comm.fence();
  comm.reduce_from_all(shared, shared, sum, bytes, job.red, {0});
  comm.fence();
  if (sum != job.out) job.mem.copy(job.out, sum, bytes);
}

Traffic model_allreduce_one_shot(int P, size_t count, size_t esize, int) {
  Tally t(P);
  for (int r = 0; r < P; ++r)
    for (int q = 0; q < P && count; ++q)
      if (q != r) t.message(0, q, r, count * esize, Arrival::read_reduced);
  return t.traffic();
}

// At any scale: one step, in which every rank on a node reads N from each
// rank on the others.
ScaledTraffic scaled_allreduce_one_shot(int P, double N, int ranks_per_node) {
  if (P == 1) return {};
  return {1, crossing_pairs(P, ranks_per_node) * N, (P - 1) * N};
}

}  // namespace

// The textbook's T: what the busiest rank reads (its peers' buffers).
CollectiveAlgorithm allreduce_one_shot_algorithm() {
  CollectiveAlgorithm a{"one_shot", allreduce_one_shot, sized<model_allreduce_one_shot>};
  a.reads_peers = true;
  // Its own copies: none counted, but at P = 1 the input copied into the
  // result (reduce_from_all of one term). A private input copied in is priced
  // apart (DirectCase::price_copies); in place on registered buffers the sum
  // is copied back, which own_copies cannot tell from the private case: left out.
  a.own_copies = [](const JobShape& s, int, bool) { return s.P == 1 ? 1 : 0; };
  a.teach(taught::master_worker);
  a.at_scale = scaled_allreduce_one_shot;
  return a;
}

}  // namespace commlab
