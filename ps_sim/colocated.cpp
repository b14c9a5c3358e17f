// Colocated parameter server: every rank is a worker and the server of one
// shard (S = P), sharding (docs/formulas.md) taken to its end.
// Every iteration, rank r
//   pushes: sends shard s of its gradient to rank s, for every s != r, and
//           takes the P-1 gradients of its own shard;
//   aggregates: sums the P gradients of its shard in worker order, steps;
//   pulls: sends its shard's new weights to every other rank, and takes
//          every other shard from its server.
// Rank r sends (M - shard_r) + (P-1) x shard_r bytes, 2(P-1)/P x M with even
// shards: the ring's traffic, in one step each way instead of P-1.
#include <mpi.h>

#include "training.hpp"

namespace commlab::ps {

Packed train_colocated(Comm& comm, const Recorder& counted, const Config& cfg,
                       const std::vector<Shard>& shards, RankStats& st) {
  const int P = cfg.P, me = comm.rank();
  const size_t n = shards[me].count();
  Worker worker(cfg, me);
  std::vector<std::vector<float>> parts(P);  // this rank's gradient, or later weights, per shard
  std::vector<std::vector<float>> incoming(P, std::vector<float>(n));  // gradients of my shard
  for (int s = 0; s < P; ++s) parts[s].resize(shards[s].count());
  std::vector<float> weights(n, 0.0f);
  auto bytes = [](const std::vector<float>& v) { return v.size() * sizeof(float); };

  for (int t = 0; t < cfg.iters; ++t) {
    worker.compute(t, st);

    double t0 = MPI_Wtime();
    uint64_t sent0 = counted.sent_B(), recv0 = counted.recv_B();
    for (int s = 0; s < P; ++s) {
      shards[s].pack(worker.grad.data(), s == me ? incoming[me].data() : parts[s].data());
      if (s == me) continue;
      if (n) comm.irecv(s, incoming[s].data(), bytes(incoming[s]), {2 * t});
      if (!parts[s].empty()) comm.isend(s, parts[s].data(), bytes(parts[s]), {2 * t});
    }
    comm.wait_sends();
    double t1 = MPI_Wtime();
    comm.wait_all();
    double t2 = MPI_Wtime();
    st.push += t1 - t0;
    st.idle += t2 - t1;
    st.bytes.worker_out += counted.sent_B() - sent0;
    st.bytes.server_in += counted.recv_B() - recv0;

    std::vector<float>& sum = incoming[0];
    for (int s = 1; s < P; ++s) accumulate(sum.data(), incoming[s].data(), n);
    sgd_step(weights.data(), sum.data(), n, cfg.step_scale());
    double t3 = MPI_Wtime();
    st.aggregate += t3 - t2;

    sent0 = counted.sent_B(), recv0 = counted.recv_B();
    for (int s = 0; s < P; ++s) {
      if (s == me) continue;
      if (!parts[s].empty()) comm.irecv(s, parts[s].data(), bytes(parts[s]), {2 * t + 1});
      if (n) comm.isend(s, weights.data(), n * sizeof(float), {2 * t + 1});
    }
    comm.wait_all();
    parts[me] = weights;
    for (int s = 0; s < P; ++s) shards[s].unpack(parts[s].data(), worker.weights.data());
    st.pull += MPI_Wtime() - t3;
    st.bytes.server_out += counted.sent_B() - sent0;
    st.bytes.worker_in += counted.recv_B() - recv0;
  }
  return weights;
}

}  // namespace commlab::ps
