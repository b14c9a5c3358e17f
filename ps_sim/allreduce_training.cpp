// All-reduce training: no server. Every rank computes its gradient, the
// gradients are summed by an all-reduce (the hand-written ring of
// allreduce_algos, or MPI_Allreduce), and every rank takes the same step on
// its own copy of the weights. The ring sends 2(P-1)/P x M bytes per rank.
#include <mpi.h>

#include "allreduce_algos/ring.hpp"
#include "training.hpp"

namespace commlab::ps {

Packed train_allreduce(Comm& comm, const Recorder& counted, const Config& cfg, RankStats& st) {
  Worker worker(cfg, comm.rank());
  const CollectiveAlgorithm ring = allreduce_ring_algorithm();
  const size_t n = cfg.shape.params();
  for (int t = 0; t < cfg.iters; ++t) {
    worker.compute(t, st);
    const double t0 = MPI_Wtime();
    if (cfg.mode == Mode::ring)
      ring.run({comm, worker.grad.data(), worker.grad.data(), n, Reduction{DType::float32, Op::sum},
                0, comm.memory()});
    else  // counts are int: the model is refused above INT_MAX parameters
      MPI_Allreduce(MPI_IN_PLACE, worker.grad.data(), static_cast<int>(n), MPI_FLOAT, MPI_SUM,
                    comm.mpi());
    const double t1 = MPI_Wtime();
    sgd_step(worker.weights.data(), worker.grad.data(), n, cfg.step_scale());
    st.push += t1 - t0;
    st.aggregate += MPI_Wtime() - t1;
  }
  st.bytes.worker_out = counted.sent_B();
  st.bytes.worker_in = counted.recv_B();
  if (comm.rank() != 0) return {};
  return worker.weights;
}

}  // namespace commlab::ps
