// Master-worker all-reduce: every worker sends its whole buffer to the master,
// which reduces them one after another and sends the result back to each.
// The master's link carries everything, so it stops scaling as P grows: it
// receives (P-1)N and sends (P-1)N, where a worker sends and receives N.
//
//   steps 0 .. P-2      worker w sends its buffer to the master (w in rank order)
//   steps P-1 .. 2P-3   the master sends the result to worker w
//
// The workers are served in the order master+1, master+2, ... (mod P).
#include <algorithm>

#include "collectives/algorithm.hpp"

namespace commlab {

namespace {
int worker(int P, int master, int k) { return (master + 1 + k) % P; }

void allreduce_master_worker(const CollectiveJob& job) {
  Comm& comm = job.comm;
  const int P = comm.size(), me = comm.rank(), master = job.root;
  char* data = allreduce_buffer(job);
  const size_t bytes = job.count * job.esize();

  comm.begin_phase(Phase::reduce);
  if (me == master) {
    void* incoming = job.mem.scratch(bytes);
    for (int k = 0; k < P - 1; ++k)
      comm.recv_reduce(worker(P, master, k), incoming, data, bytes, job.red, {k});
    comm.begin_phase(Phase::broadcast);
    for (int k = 0; k < P - 1; ++k) comm.send(worker(P, master, k), data, bytes, {P - 1 + k});
  } else {
    const int k = (me - master - 1 + P) % P;
    comm.send(master, data, bytes, {k});
    comm.recv(master, data, bytes, {P - 1 + k});
  }
}

Traffic model_allreduce_master_worker(int P, size_t count, size_t esize, int root) {
  Tally t(P);
  for (int k = 0; k < P - 1; ++k)
    t.message(k, worker(P, root, k), root, count * esize, Arrival::reduced);
  for (int k = 0; k < P - 1; ++k) t.message(P - 1 + k, root, worker(P, root, k), count * esize);
  return t.traffic();
}

// At any scale, master 0: every worker's N crosses the master's link twice,
// but for the workers on the master's own node.
ScaledTraffic scaled_allreduce_master_worker(int P, double N, int ranks_per_node) {
  const int off_node = P - std::min(ranks_per_node, P);
  return {2.0 * (P - 1), 2.0 * off_node * N, (P - 1) * N};
}

}  // namespace

// The textbook's T: what the busiest rank sends.
CollectiveAlgorithm allreduce_master_worker_algorithm() {
  CollectiveAlgorithm a{"master_worker", allreduce_master_worker,
                        sized<model_allreduce_master_worker>};
  a.teach(taught::master_worker);
  a.at_scale = scaled_allreduce_master_worker;
  return a;
}

}  // namespace commlab
