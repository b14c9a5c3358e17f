// Hierarchical all-reduce: one that knows nodes (Sergeev and Del Balso 2018,
// Horovod's hierarchical all-reduce; NCCL and MPICH's SMP-aware collectives).
// Ranks on one node share memory, so their messages never touch the
// network; only one rank per node, its leader (its lowest rank), talks to
// other nodes. Nodes come from MPI's shared-memory split (or --node-size).
//
//   1. reduce inside each node to its leader, a binomial tree: rounds
//      0 .. R-1 (R = ceil(log2 of the largest node's ranks))
//   2. ring all-reduce among the L leaders (ring.cpp): steps R .. R+2L-3
//   3. broadcast inside each node from its leader, the binomial tree
//      backwards: R rounds more
//
//   P = 6 on 3 nodes of 2 ranks (n0: 0 1, n1: 2 3, n2: 4 5), leaders 0 2 4:
//
//   step    messages                  then
//   0       1->0  3->2  5->4          each leader holds its node's sum
//   1 .. 4  the ring over 0, 2, 4     each leader holds the sum of all
//   5       0->1  2->3  4->5          every rank does
//
// Across nodes each leader sends 2(L-1)/L x N, the ring's figure for L
// ranks instead of P: the network carries what a ring of nodes needs, and
// ranks sharing a node no longer share its link. Inside a node the leader
// receives and sends N per round. With one node it is a reduce and a
// broadcast; with one rank per node, the ring. Nodes may differ in size.
#include <algorithm>
#include <optional>

#include "collectives/algorithm.hpp"

namespace commlab {

namespace {

Nodes placed(const JobShape& s) { return s.nodes.empty() ? Nodes::blocks(s.P, s.P) : s.nodes; }

int top_distance(int n) {  // the binomial tree's first distance: the largest power of two below n
  int d = 1;
  while (2 * d < n) d *= 2;
  return d;
}

void allreduce_hierarchical(const CollectiveJob& job) {
  Comm& comm = job.comm;
  std::optional<Nodes> one_node;  // where the job names no nodes
  if (!job.nodes || job.nodes->empty()) one_node = Nodes::blocks(comm.size(), comm.size());
  const Nodes& nodes = one_node ? *one_node : *job.nodes;
  const std::vector<int>& mine = nodes.ranks_on(nodes.of_rank()[comm.rank()]);
  const int n = int(mine.size()),
            i = int(std::find(mine.begin(), mine.end(), comm.rank()) - mine.begin());
  const int R = binomial_rounds(int(nodes.largest()));
  char* data = allreduce_buffer(job);
  const size_t bytes = job.count * job.esize();

  void* incoming = job.mem.scratch(bytes);
  comm.begin_phase(Phase::reduce);  // in each node
  for (int k = 0, d = 1; d < n; ++k, d *= 2) {
    if (i % (2 * d) == d) {
      comm.send(mine[i - d], data, bytes, {k});
      break;
    }
    if (i + d < n) comm.recv_reduce(mine[i + d], incoming, data, bytes, job.red, {k});
  }
  const Ring leaders(nodes.leaders());
  if (i == 0) {
    const Chunks chunks{data, {job.count, leaders.P}, job.esize()};
    ring_reduce_scatter(comm, leaders, chunks, job.red, job.mem, R);
    ring_allgather(comm, leaders, chunks, R + leaders.P - 1);
  }
  const int first = R + 2 * (leaders.P - 1);
  comm.begin_phase(Phase::broadcast);  // in each node
  for (int k = 0, d = top_distance(n); n > 1 && d >= 1; ++k, d /= 2) {
    if (i % (2 * d) == d) comm.recv(mine[i - d], data, bytes, {first + k});
    if (i % (2 * d) == 0 && i + d < n) comm.send(mine[i + d], data, bytes, {first + k});
  }
}

Traffic model_allreduce_hierarchical(const JobShape& s) {
  const Nodes nodes = placed(s);
  const int R = binomial_rounds(int(nodes.largest()));
  const Ring leaders(nodes.leaders());
  const uint64_t bytes = s.count * s.esize;
  const int first = R + 2 * (leaders.P - 1);
  Tally t(s.P);
  for (int node = 0; node < nodes.count(); ++node) {
    const std::vector<int>& mine = nodes.ranks_on(node);
    const int n = int(mine.size());
    for (int k = 0, d = 1; d < n; ++k, d *= 2)
      for (int i = d; i < n; i += 2 * d)
        t.message(k, mine[i], mine[i - d], bytes, Arrival::reduced);
    for (int k = 0, d = top_distance(n); n > 1 && d >= 1; ++k, d /= 2)
      for (int i = 0; i + d < n; i += 2 * d) t.message(first + k, mine[i], mine[i + d], bytes);
  }
  tally_ring_reduce_scatter(t, leaders, {s.count, leaders.P}, s.esize, R);
  tally_ring_allgather(t, leaders, {s.count, leaders.P}, s.esize, R + leaders.P - 1);
  return t.traffic();
}

// At any scale, nodes of k ranks in blocks (the last may be smaller): R
// binomial rounds in and R out inside the nodes, where no byte crosses a
// link, and between them the ring over the L leaders, one per node, each
// step N/L through each leader's link. Node 0's leader reduces the most:
// N from each of its R children, and the ring's (L-1) chunks.
ScaledTraffic scaled_allreduce_hierarchical(int P, double N, int ranks_per_node) {
  const int k = std::min(P, ranks_per_node), L = (P + k - 1) / k, R = binomial_rounds(k);
  return {2.0 * R + 2.0 * (L - 1), 2.0 * (L - 1) * N / L, R * N + (L - 1) * N / L};
}

}  // namespace

// The textbook's T: what a leader sends across nodes, with L = P (one rank per node).
CollectiveAlgorithm allreduce_hierarchical_algorithm() {
  CollectiveAlgorithm a{"hierarchical", allreduce_hierarchical, model_allreduce_hierarchical};
  a.teach(taught::ring);
  a.at_scale = scaled_allreduce_hierarchical;
  return a;
}

}  // namespace commlab
