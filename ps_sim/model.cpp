#include "model.hpp"

#include <algorithm>
#include <cmath>

namespace commlab::ps {

namespace {
uint64_t splitmix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
float uniform(uint64_t h) { return float(h >> 40) / float(1 << 24) * 2 - 1; }  // [-1, 1)

uint64_t example_id(const Dataset& d, int k) {
  return splitmix(d.base ^ (uint64_t(d.worker) << 32 | uint64_t(k)));
}

}  // namespace

Dataset make_partition(const ModelShape& shape, uint64_t seed, int worker, int samples) {
  Dataset d{shape, splitmix(seed), worker, std::vector<int>(samples)};
  for (int k = 0; k < samples; ++k)
    d.y[k] = static_cast<int>(example_id(d, k) % uint64_t(shape.classes));
  return d;
}

void Dataset::features(int k, float* x) const {
  // The class signal shrinks as 1/sqrt(D), so the task is as hard at every
  // model size: loss falls over tens of iterations, not in one. And every
  // example has the norm it has at D = 16384 (a 1 MiB model), so one
  // learning rate suits every size.
  const int D = shape.features;
  const float signal = 12.0f / std::sqrt(float(D)), norm = std::sqrt(16384.0f / float(D));
  const uint64_t id = example_id(*this, k), pattern = base + uint64_t(y[k]) * 1000003u;
  for (int j = 0; j < D; ++j)
    x[j] = norm * ((splitmix(pattern + j) & 1 ? signal : -signal) + uniform(splitmix(id + j)));
}

double gradient(const Dataset& data, const float* weights, int t, int batch, float* grad) {
  const int D = data.shape.features, C = data.shape.classes;
  const size_t row = data.shape.row();
  std::fill(grad, grad + data.shape.params(), 0.0f);
  std::vector<float> p(C), features(D);
  double loss = 0;
  for (int b = 0; b < batch; ++b) {
    const int k = static_cast<int>((size_t(t) * batch + b) % data.samples());
    data.features(k, features.data());
    const float* x = features.data();
    const int y = data.y[k];
    for (int c = 0; c < C; ++c) {  // logits
      const float* w = weights + c * row;
      float z = w[D];
      for (int j = 0; j < D; ++j) z += w[j] * x[j];
      p[c] = z;
    }
    const float top = *std::max_element(p.begin(), p.end()), zy = p[y] - top;
    float norm = 0;
    for (float& z : p) norm += (z = std::exp(z - top));
    loss += std::log(norm) - zy;
    for (int c = 0; c < C; ++c) {  // d loss / d logit = softmax - one-hot
      const float g = p[c] / norm - (c == y ? 1.0f : 0.0f);
      float* gw = grad + c * row;
      for (int j = 0; j < D; ++j) gw[j] += g * x[j];
      gw[D] += g;
    }
  }
  return loss;
}

void accumulate(float* acc, const float* in, size_t n) {
  for (size_t i = 0; i < n; ++i) acc[i] += in[i];
}

void sgd_step(float* w, const float* g, size_t n, float scale) {
  for (size_t i = 0; i < n; ++i) w[i] -= scale * g[i];
}

}  // namespace commlab::ps
