#include <mpi.h>

#include <chrono>
#include <thread>

#include "core/vocabulary/names.hpp"
#include "training.hpp"

namespace commlab::ps {

namespace {
const Names<Mode> kModes{
    {Mode::ps, "ps"}, {Mode::colocated, "colocated"}, {Mode::ring, "ring"}, {Mode::mpi, "mpi"}};
const Names<Consistency> kConsistencies{
    {Consistency::bsp, "bsp"}, {Consistency::ssp, "ssp"}, {Consistency::async, "async"}};
}  // namespace

std::string name(Mode m) { return name_in(kModes, m); }
std::string name(Consistency c) { return name_in(kConsistencies, c); }
Mode parse_mode(const std::string& s) { return parse_in(kModes, s, "--mode"); }
Consistency parse_consistency(const std::string& s) {
  return parse_in(kConsistencies, s, "--consistency");
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
