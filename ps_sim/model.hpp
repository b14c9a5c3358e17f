// The model ps_sim trains: softmax regression, C classes over D features,
// on synthetic data from a fixed seed. Small enough to read, and its size
// (C x (D+1) float32 parameters) is the knob that makes the traffic.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace commlab::ps {

struct ModelShape {
  int features = 0;  // D
  int classes = 0;   // C
  // Row c holds class c's D weights, then its bias: one row is one "key".
  size_t row() const { return size_t(features) + 1; }
  size_t params() const { return size_t(classes) * row(); }
  size_t bytes() const { return params() * sizeof(float); }
  // The shape of about `bytes` of float32 parameters in `classes` rows
  // (ps_sim -M, -C); the caller checks that a row holds at least two.
  static ModelShape of_bytes(size_t bytes, int classes) {
    const size_t row = bytes / sizeof(float) / size_t(classes);
    return {int(row) - 1, classes};
  }
};

// One worker's partition of the training data: `samples` examples, the same
// on every process that builds it (the serial reference included). Class y's
// examples sit around a +-pattern of its own, in uniform noise. Features are
// made when read, so a partition costs no memory at any model size.
struct Dataset {
  ModelShape shape;
  uint64_t base;
  int worker;
  std::vector<int> y;  // labels
  int samples() const { return static_cast<int>(y.size()); }
  void features(int k, float* x) const;  // example k's D features into x
};
Dataset make_partition(const ModelShape& shape, uint64_t seed, int worker, int samples);

// The gradient of the summed loss over the batch of iteration t (samples
// t*batch ... wrapping around the partition), written into `grad` (params).
// Returns the summed cross-entropy loss. Deterministic: the same bits on
// every process for the same weights.
double gradient(const Dataset& data, const float* weights, int t, int batch, float* grad);

// acc += in, element by element: the server's aggregation, in one order.
void accumulate(float* acc, const float* in, size_t n);
// w -= scale * g: the SGD step, scale = learning rate / examples summed in g.
void sgd_step(float* w, const float* g, size_t n, float scale);

}  // namespace commlab::ps
