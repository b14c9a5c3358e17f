// The parameter server: ranks 0 .. S-1 are servers, each owning one shard of
// the model; ranks S .. S+P-1 are workers. Every iteration a worker
//   pulls its weights: one message from each server, that server's shard;
//   computes the gradient of its batch;
//   pushes it: one message to each server, the gradient of that shard.
// Server s so sends P x shard_s bytes and receives as many, per iteration:
// the fan-out and fan-in that make its links the bottleneck (docs/formulas.md).
//
// A server answers a push with the weights of the next pull; a worker posts
// that receive before it pushes, so a server's reply never waits on a worker
// that is itself blocked sending to another server.
//
// Consistency, decided by the server:
//   bsp   it takes every worker's push of iteration t, as they come, sums
//         them in worker order, steps once, and sends every worker the new
//         weights;
//   ssp   it applies each push as it comes, and lets worker w begin its next
//         iteration only when w is at most tau iterations ahead of the
//         slowest worker. tau = 0 is BSP, one gradient at a time;
//   async the same without a bound.
// A gradient's staleness: its iteration minus the number of iterations that
// every worker's gradients had reached in the weights it was computed on.
#include <mpi.h>

#include <algorithm>
#include <climits>

#include "training.hpp"

namespace commlab::ps {

namespace {

struct Server {
  Server(Comm& c, const Config& g, const Shard& shard, RankStats& s)
      : comm(c), cfg(g), st(s), weights(shard.count(), 0.0f), incoming(weights) {}

  Comm& comm;
  const Config& cfg;
  RankStats& st;
  std::vector<float> weights, incoming;
  std::vector<std::vector<float>> grads;  // bsp: one per worker, summed in worker order

  size_t bytes() const { return weights.size() * sizeof(float); }
  int rank_of(int worker) const { return cfg.S + worker; }

  void send_weights(int worker, int t) {
    comm.isend(rank_of(worker), weights.data(), bytes(), {t});
  }
  void send_weights_to_all(int t) {
    const double t0 = MPI_Wtime();
    for (int w = 0; w < cfg.P; ++w) send_weights(w, t);
    comm.wait_all();
    st.pull += MPI_Wtime() - t0;
  }

  void bsp() {
    grads.assign(cfg.P, weights);
    send_weights_to_all(0);
    for (int t = 0; t < cfg.iters; ++t) {
      // Take pushes as they come, so a straggler does not hold up the others'.
      for (int k = 0; k < cfg.P; ++k) {
        const double t0 = MPI_Wtime();
        const int w = comm.probe_any() - cfg.S;
        comm.recv(rank_of(w), grads[w].data(), bytes(), {t});
        st.idle += MPI_Wtime() - t0;
      }
      const double t0 = MPI_Wtime();
      std::vector<float>& sum = grads[0];
      for (int w = 1; w < cfg.P; ++w) accumulate(sum.data(), grads[w].data(), sum.size());
      sgd_step(weights.data(), sum.data(), sum.size(), cfg.step_scale());
      st.aggregate += MPI_Wtime() - t0;
      if (t + 1 < cfg.iters) send_weights_to_all(t + 1);
    }
  }

  void stale() {
    const int tau = cfg.consistency == Consistency::async ? INT_MAX : cfg.tau;
    std::vector<int> done(cfg.P, 0), read(cfg.P, 0);  // pushes taken; clock of the weights sent
    std::vector<bool> waiting(cfg.P, false);
    st.staleness.assign(cfg.iters, 0);
    send_weights_to_all(0);
    for (int k = 0; k < cfg.P * cfg.iters; ++k) {
      const double t0 = MPI_Wtime();
      const int w = comm.probe_any() - cfg.S;
      comm.recv(rank_of(w), incoming.data(), bytes(), {done[w]});
      const double t1 = MPI_Wtime();
      ++st.staleness[done[w] - read[w]];
      sgd_step(weights.data(), incoming.data(), weights.size(), cfg.step_scale());
      waiting[w] = ++done[w] < cfg.iters;
      st.idle += t1 - t0;
      st.aggregate += MPI_Wtime() - t1;
      // Release every waiting worker the slowest one no longer holds back.
      const double t2 = MPI_Wtime();
      const int slowest = *std::min_element(done.begin(), done.end());
      for (int v = 0; v < cfg.P; ++v) {
        if (!waiting[v] || done[v] - slowest > tau) continue;
        waiting[v] = false;
        read[v] = slowest;
        comm.send(rank_of(v), weights.data(), bytes(), {done[v]});
      }
      st.pull += MPI_Wtime() - t2;
    }
  }
};

void work(Comm& comm, const Config& cfg, const std::vector<Shard>& shards, Worker& me,
          RankStats& st) {
  std::vector<std::vector<float>> push(cfg.S), pull(cfg.S);
  for (int s = 0; s < cfg.S; ++s) push[s].resize(shards[s].count()), pull[s] = push[s];
  auto post_pull = [&](int t) {
    for (int s = 0; s < cfg.S; ++s)
      if (!pull[s].empty()) comm.irecv(s, pull[s].data(), pull[s].size() * sizeof(float), {t});
  };
  auto finish_pull = [&](double since) {
    comm.wait_all();
    for (int s = 0; s < cfg.S; ++s) shards[s].unpack(pull[s].data(), me.weights.data());
    st.wait += MPI_Wtime() - since;
  };

  post_pull(0);
  finish_pull(MPI_Wtime());
  for (int t = 0; t < cfg.iters; ++t) {
    me.compute(t, st);
    const double t0 = MPI_Wtime();
    if (t + 1 < cfg.iters) post_pull(t + 1);
    for (int s = 0; s < cfg.S; ++s) {
      if (push[s].empty()) continue;  // a server without parameters hears nothing
      shards[s].pack(me.grad.data(), push[s].data());
      comm.isend(s, push[s].data(), push[s].size() * sizeof(float), {t});
    }
    comm.wait_sends();
    const double t1 = MPI_Wtime();
    st.push += t1 - t0;
    if (t + 1 < cfg.iters) finish_pull(t1);
  }
}

}  // namespace

Packed train_parameter_server(Comm& comm, const Recorder& counted, const Config& cfg,
                              const std::vector<Shard>& shards, RankStats& st) {
  const int me = comm.rank();
  if (me >= cfg.S) {
    Worker worker(cfg, me - cfg.S);
    work(comm, cfg, shards, worker, st);
    st.bytes.worker_out = counted.sent_B();
    st.bytes.worker_in = counted.recv_B();
    return {};
  }
  Server server(comm, cfg, shards[me], st);
  if (server.weights.empty()) return {};  // no worker talks to it
  if (cfg.consistency == Consistency::bsp)
    server.bsp();
  else
    server.stale();
  st.bytes.server_out = counted.sent_B();
  st.bytes.server_in = counted.recv_B();
  return server.weights;
}

std::optional<RoleBytes> expected_bytes(const Config& c, const std::vector<Shard>& shards,
                                        int rank) {
  const uint64_t M = c.shape.bytes(), it = c.iters;
  RoleBytes b;  // each role receives as much as it sends
  if (c.mode == Mode::ps) {
    if (rank >= c.S)
      b.worker_in = b.worker_out = M * it;
    else
      b.server_in = b.server_out = shards[rank].count() * 4 * c.P * it;
    return b;
  }
  if (c.mode == Mode::colocated) {
    const uint64_t n = shards[rank].count() * 4;
    b.worker_in = b.worker_out = (M - n) * it;        // every shard but its own
    b.server_in = b.server_out = n * (c.P - 1) * it;  // its own, with each other rank
    return b;
  }
  return std::nullopt;
}

}  // namespace commlab::ps
