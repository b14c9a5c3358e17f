#include <mpi.h>

#include <chrono>
#include <thread>

#include "core/errors.hpp"
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

Mode parse_mode(const std::string& s) {
  for (Mode m : {Mode::ps, Mode::colocated, Mode::ring, Mode::mpi})
    if (name(m) == s) return m;
  throw UsageError("--mode " + s + ": use ps, colocated, ring or mpi");
}

Consistency parse_consistency(const std::string& s) {
  for (Consistency c : {Consistency::bsp, Consistency::ssp, Consistency::async})
    if (name(c) == s) return c;
  throw UsageError("--consistency " + s + ": use bsp, ssp or async");
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

std::vector<float> train_serial(const Config& cfg) {
  const size_t n = cfg.shape.params();
  std::vector<Dataset> data;
  for (int w = 0; w < cfg.P; ++w)
    data.push_back(make_partition(cfg.shape, cfg.seed, w, cfg.samples));
  std::vector<float> weights(n, 0.0f), sum(n), grad(n);
  for (int t = 0; t < cfg.iters; ++t) {
    gradient(data[0], weights.data(), t, cfg.batch, sum.data());
    for (int w = 1; w < cfg.P; ++w) {
      gradient(data[w], weights.data(), t, cfg.batch, grad.data());
      accumulate(sum.data(), grad.data(), n);
    }
    sgd_step(weights.data(), sum.data(), n, cfg.step_scale());
  }
  return weights;
}

}  // namespace commlab::ps
