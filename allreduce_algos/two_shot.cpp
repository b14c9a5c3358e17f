// Two-shot all-reduce: possible only where ranks map each other's memory
// (--transport direct). The ring's two halves, each done in one step by
// reading instead of P-1 steps by passing on (vLLM's custom all-reduce and
// PyTorch's SymmetricMemory use it for large messages). Chunk c is part c
// of the buffer (Partition). P = 3, buffers a, b, c, chunks a0 a1 a2 ...:
//
//   fence: every input is in place
//   step 0 (reduce-scatter): rank r reads chunk r of every peer's input and
//           reduces it, in rank order: rank 1 makes a1 + b1 + c1
//   fence: every reduced chunk is in place
//   step 1 (all-gather): rank r reads rank q's reduced chunk q, for each q != r
//   fence: nobody still reads a reduced chunk
//
// Every rank reads (P-1) chunks in each step: 2(P-1)/P x N, the ring's bytes
// (the lower bound) in 2 steps instead of 2(P-1). The reduced chunks wait in
// scratch (registered), so the result may go straight to memory no peer
// maps (the user's own); of a private input, the P-1 chunks the peers read
// are copied to scratch first (the copy is part of the call). In place it works on the one buffer:
// a rank writes into it only in step 1, once nobody reads inputs any more. With count < P the empty
// chunks are not read at all.
#include <algorithm>

#include "collectives/algorithm.hpp"

namespace commlab {

namespace {

void allreduce_two_shot(const CollectiveJob& job) {
  Comm& comm = job.comm;
  const int P = comm.size(), me = comm.rank();
  const Partition parts = job.parts();
  const size_t es = job.esize();
  const Chunks in{const_cast<char*>(static_cast<const char*>(job.in)), parts, es},
      out{static_cast<char*>(job.out), parts, es};
  const size_t mine_B = in.bytes(me);
  // Scratch is registered. My chunk is summed there, where the others read
  // it in step 1: the result may be the user's own memory, which no peer
  // maps. And where the input is too, the chunks the peers read in step 0
  // are copied there after it (all but mine).
  const bool copied = !comm.registered(job.in);
  char* sum = static_cast<char*>(job.mem.scratch(in.largest_B() + (copied ? job.count * es : 0)));
  const Chunks shared = copied ? Chunks{sum + in.largest_B(), parts, es} : in;
  for (int q = 0; q < P && copied; ++q)
    if (q != me) job.mem.copy(shared.at(q), in.at(q), in.bytes(q));
  comm.fence();
  comm.begin_phase(Phase::reduce_scatter);
  comm.reduce_from_all(shared.at(me), in.at(me), sum, mine_B, job.red, {0, me});
  comm.fence();
  comm.begin_phase(Phase::all_gather);
  job.mem.copy(out.at(me), sum, mine_B);
  for (int q = 0; q < P; ++q)
    if (q != me && out.bytes(q)) comm.read(q, comm.peer(q, sum), out.at(q), out.bytes(q), {1, q});
  comm.fence();
}

Traffic model_allreduce_two_shot(int P, size_t count, size_t esize, int) {
  const Partition parts{count, P};
  Tally t(P);
  for (int r = 0; r < P; ++r)
    for (int q = 0; q < P; ++q)
      if (q != r && parts.size(r)) t.message(0, q, r, parts.size(r) * esize, Arrival::read_reduced);
  for (int r = 0; r < P; ++r)
    for (int q = 0; q < P; ++q)
      if (q != r && parts.size(q)) t.message(1, q, r, parts.size(q) * esize, Arrival::read);
  return t.traffic();
}

// At any scale: two steps, in each of which every rank on a node reads a
// chunk N/P from each rank on the others.
ScaledTraffic scaled_allreduce_two_shot(int P, double N, int ranks_per_node) {
  if (P == 1) return {};
  return {2, 2 * crossing_pairs(P, ranks_per_node) * N / P, (P - 1) * N / P};
}

}  // namespace

// The textbook's T: what the busiest rank reads, as the ring sends.
CollectiveAlgorithm allreduce_two_shot_algorithm() {
  CollectiveAlgorithm a{"two_shot", allreduce_two_shot, sized<model_allreduce_two_shot>};
  a.reads_peers = true;
  // Its own copies: none of the whole vector (its chunk, N/P, copied out of
  // scratch is left out; a private input copied in is priced apart), but at
  // P = 1 that chunk is the vector, summed into scratch and copied out: two.
  a.own_copies = [](const JobShape& s, int, bool) { return s.P == 1 ? 2 : 0; };
  a.teach(taught::ring);
  a.at_scale = scaled_allreduce_two_shot;
  return a;
}

}  // namespace commlab
