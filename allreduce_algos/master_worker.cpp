// Master-worker all-reduce: every worker sends its whole buffer to the master,
// which reduces them one after another and sends the result back to each.
// The master's link carries everything, so it stops scaling as P grows.
//
//   steps 0 .. P-2      worker w sends its buffer to the master (w in rank order)
//   steps P-1 .. 2P-3   the master sends the result to worker w
#include "allreduce.hpp"

namespace commlab {

void allreduce_master_worker(const AllreduceJob& job) {
  Comm& comm = job.comm;
  const int P = comm.size(), me = comm.rank(), master = job.root;
  const size_t bytes = job.count * job.red.esize();
  // Workers in the order the master serves them: master+1, master+2, ... (mod P).
  auto worker = [&](int k) { return (master + 1 + k) % P; };

  if (me == master) {
    void* incoming = job.mem.scratch(bytes);
    for (int k = 0; k < P - 1; ++k) {
      comm.recv_reduce(worker(k), incoming, job.data, bytes, job.red, {k});
    }
    for (int k = 0; k < P - 1; ++k) comm.send(worker(k), job.data, bytes, {P - 1 + k});
  } else {
    int k = (me - master - 1 + P) % P;
    comm.send(master, job.data, bytes, {k});
    comm.recv(master, job.data, bytes, {P - 1 + k});
  }
}

Traffic model_master_worker(int P, size_t count, size_t esize) {
  const uint64_t N = count * esize, workers = P - 1;
  Traffic t;
  t.sent_max_rank_B = P > 1 ? workers * N : 0;  // the master; a worker sends N <= that
  t.recv_max_rank_B = workers * N;
  t.sent_total_B = 2 * workers * N;
  t.msgs_total = 2 * workers;
  t.steps = 2 * workers;
  t.critical_path_B = 2 * workers * N;  // the master handles one message at a time
  return t;
}

}  // namespace commlab
