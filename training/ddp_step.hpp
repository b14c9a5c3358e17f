// A training step as PyTorch's DistributedDataParallel runs it (Li et al.,
// "PyTorch Distributed", VLDB 2020): backward goes through the layers from
// the last to the first, each layer's gradient joins a bucket, and a full
// bucket is all-reduced at once, non-blocking, while backward goes on; the
// step waits for every bucket at its end. What a trainer pays for the
// communication is what the compute could not hide.
//
// Here each layer is dense (H x H weights): its backward is two GEMMs from
// the system's BLAS (dW = X^T dY, dX = dY W^T), and its gradient is then
// written with the suite's exact pattern, so that the step's result can be
// checked exactly against one all-reduce of the whole vector. The buckets'
// all-reduces run one at a time, in order, as NCCL's stream runs them; a
// started one is tested after each layer (MPI has no progress of its own,
// docs/overlap.md), and the next ready bucket starts when it is done.
#pragma once
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "core/comm/comm.hpp"
#include "core/comm/executor.hpp"
#include "core/comm/nodes.hpp"
#include "core/comm/traffic.hpp"
#include "ddp_buckets.hpp"
#include "ddp_cli.hpp"
#include "harness/overlap.hpp"

namespace commlab::ddp {

// The time model's step: bucket b starts when it is ready (layer_end_us of
// its last layer) and the bucket before it has finished, and takes
// comm_us[b]; the step ends with the last bucket, or with the compute.
// Communication is taken to move beside the compute; on one node the ranks'
// own cores copy it, so this is the best a bucket size can give.
double model_step_us(const std::vector<double>& layer_end_us, const Bucketing& b,
                     const std::vector<double>& comm_us);

// One all-reduce implementation over every bucket of the gradient.
class BucketedStep {
 public:
  // algorithm "" for MPI_Iallreduce, else a hand-written one, replayed from
  // its schedule recorded on each bucket (core/comm/executor.hpp).
  BucketedStep(Comm& comm, const Nodes& nodes, const Settings& s, const Bucketing& b,
               const std::string& algorithm);

  // The gradient as backward leaves it, each layer's exact pattern: what
  // communicate() all-reduces (step() writes it layer by layer itself).
  void fill() { grads_ = pattern_; }
  // Backward alone; `ends_us`, if given, gets each layer's end from the start.
  void backward(std::vector<double>* ends_us = nullptr);
  void communicate();      // every bucket's all-reduce alone, one after another
  void step();             // backward with the buckets all-reduced as they fill
  uint64_t wrong() const;  // gradient elements unlike one all-reduce of the whole
  // Each bucket's all-reduce counted once, and its model (hand-written only).
  struct Counted {
    Traffic counted, model;
    bool exact = true;
  };
  std::optional<Counted> count();

 private:
  void compute_layer();
  void record_schedules();
  void pump();  // the bucket in flight done? then the next ready one

  Comm& comm_;
  const Nodes& nodes_;
  const Settings& s_;
  const Bucketing& b_;
  std::string algorithm_;
  size_t per_layer_;
  std::vector<float> grads_, pattern_, x_, dy_, w_, dw_, dx_;
  std::vector<Schedule> schedules_;
  std::deque<Executor> executors_;
  std::vector<NonBlocking> calls_;
  int ready_ = 0, started_ = 0, done_ = 0;
  bool in_flight_ = false;
};

}  // namespace commlab::ddp
