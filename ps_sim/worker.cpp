#include <mpi.h>

#include <chrono>
#include <thread>

#include "training.hpp"

namespace commlab::ps {

std::string name(Mode m) {
  switch (m) {
    case Mode::ps:
      return "ps";
    case Mode::colocated:
      return "colocated";
    case Mode::ring:
      return "ring";
    case Mode::mpi:
      break;
  }
  return "mpi";
}

std::string name(Consistency c) {
  return c == Consistency::bsp ? "bsp" : c == Consistency::ssp ? "ssp" : "async";
}

Worker::Worker(const Config& c, int i)
    : cfg(c),
      index(i),
      data(make_partition(c.shape, c.seed, i, c.samples)),
      weights(c.shape.params(), 0.0f),
      grad(c.shape.params()) {}

void Worker::compute(int t, RankStats& st) {
  const double t0 = MPI_Wtime();
  st.loss.push_back(gradient(data, weights.data(), t, cfg.batch, grad.data()));
  if (index == cfg.straggler && cfg.slowdown > 1)
    std::this_thread::sleep_for(
        std::chrono::duration<double>((MPI_Wtime() - t0) * (cfg.slowdown - 1)));
  st.compute += MPI_Wtime() - t0;
}

std::vector<float> train_serial(const Config& job) {
  Config cfg = job;
  cfg.straggler = -1;  // the same arithmetic, without the sleep
  const size_t n = cfg.shape.params();
  std::vector<Worker> workers;
  for (int w = 0; w < cfg.P; ++w) workers.emplace_back(cfg, w);
  std::vector<float> weights(n, 0.0f), sum(n);
  RankStats unused;
  for (int t = 0; t < cfg.iters; ++t) {
    for (int w = 0; w < cfg.P; ++w) {
      workers[w].weights = weights;
      workers[w].compute(t, unused);
      if (w == 0)
        sum = workers[0].grad;
      else
        accumulate(sum.data(), workers[w].grad.data(), n);
    }
    sgd_step(weights.data(), sum.data(), n, cfg.step_scale());
  }
  return weights;
}

}  // namespace commlab::ps
