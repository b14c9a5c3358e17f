// Ring all-reduce: the bandwidth-optimal one (Patarasuk and Yuan 2009). It is
// the ring reduce-scatter followed by the ring all-gather (collectives/ring.cpp,
// which draws both step by step at P = 4):
//
//   reduce-scatter, steps s = 0 .. P-2: rank r sends chunk (r-s-1) mod P to
//     the right and folds chunk (r-s-2) mod P from the left into its own;
//     then rank r holds chunk r reduced over every rank
//   all-gather, steps P-1+s for s = 0 .. P-2: rank r sends chunk (r-s) mod P
//     to the right and stores chunk (r-s-1) mod P from the left
//
// Every rank sends 2(P-1) chunks: 2(P-1)/P of the buffer when P divides the
// count, whatever P is. With count < P the empty chunks travel as zero-byte
// messages. Send and receive go together (sendrecv), so no size can
// deadlock the ring.
#include "ring.hpp"

#include "collectives/algorithm.hpp"

namespace commlab {

namespace {

void allreduce_ring(const CollectiveJob& job) {
  const Chunks chunks{allreduce_buffer(job), job.parts(), job.esize()};
  const Ring ring(job.comm.size());
  ring_reduce_scatter(job.comm, ring, chunks, job.red, job.mem, 0);
  ring_allgather(job.comm, ring, chunks, ring.P - 1);
}

Traffic model_allreduce_ring(int P, size_t count, size_t esize, int) {
  Tally t(P);
  tally_ring_reduce_scatter(t, Ring(P), {count, P}, esize, 0);
  tally_ring_allgather(t, Ring(P), {count, P}, esize, P - 1);
  return t.traffic();
}

// At any scale: each node's link carries one chunk out and one in per step,
// the chunks that cross from its last rank to the next node's first.
ScaledTraffic scaled_allreduce_ring(int P, double N, int ranks_per_node) {
  const double steps = 2.0 * (P - 1), chunk = N / P;
  return {steps, ranks_per_node < P ? steps * chunk : 0, (P - 1) * chunk};
}

// On a network every step is alike (r sends a chunk to r+1): one step
// routed, times the steps.
ScaledTraffic ring_on_network(int P, double N, int ranks_per_node, const Topology& network) {
  StepPorts links(P, ranks_per_node, network);
  for (int r = 0; r < P; ++r) links.message(r, (r + 1) % P);
  const double steps = 2.0 * (P - 1), chunk = N / P;
  return {steps, steps * double(links.end_step()) * chunk, (P - 1) * chunk};
}

}  // namespace

// The textbook's T: what the busiest rank sends.
CollectiveAlgorithm allreduce_ring_algorithm() {
  CollectiveAlgorithm a{"ring", allreduce_ring, sized<model_allreduce_ring>};
  a.teach(taught::ring);
  a.at_scale = scaled_allreduce_ring;
  a.on_network = ring_on_network;
  return a;
}

}  // namespace commlab
