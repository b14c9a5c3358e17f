#include "ddp_step.hpp"

#include <cblas.h>

#include <algorithm>
#include <stdexcept>

#include "core/comm/recorder.hpp"
#include "operations/operation.hpp"
#include "operations/pattern.hpp"

namespace commlab::ddp {

double model_step_us(const std::vector<double>& layer_end_us, const Bucketing& b,
                     const std::vector<double>& comm_us) {
  double free_us = 0;
  for (size_t k = 0; k < b.buckets.size(); ++k)
    free_us = std::max(free_us, layer_end_us.at(b.ready_after[k])) + comm_us.at(k);
  return std::max(free_us, layer_end_us.empty() ? 0.0 : layer_end_us.back());
}

namespace {
// The gradient's exact values: the suite's pattern for a float sum over P ranks.
Pattern gradients(int P) { return {Fill::pattern, DType::float32, Op::sum, P}; }
const CollectiveAlgorithm& allreduce_algorithm(const std::string& name) {
  static const auto op = make_operation("allreduce");
  return op->algorithm(name);
}
}  // namespace

BucketedStep::BucketedStep(Comm& comm, const Nodes& nodes, const Settings& s, const Bucketing& b,
                           const std::string& algorithm)
    : comm_(comm), nodes_(nodes), s_(s), b_(b), algorithm_(algorithm) {
  const size_t H = size_t(s.hidden), B = size_t(s.batch);
  per_layer_ = H * H;
  const size_t N = per_layer_ * size_t(s.layers);
  grads_.resize(N);
  pattern_.resize(N);
  const Pattern p = gradients(comm.size());
  for (size_t i = 0; i < N; ++i) pattern_[i] = float(p.value(comm.rank(), i));
  x_.assign(B * H, 0.5f), dy_.assign(B * H, 0.25f), w_.assign(H * H, 0.125f);
  dw_.resize(H * H), dx_.resize(B * H);
  if (algorithm.empty()) {
    for (const Range& r : b.buckets)
      calls_.push_back(library_nonblocking([this, r](Requests& q) {
        MPI_Iallreduce(MPI_IN_PLACE, grads_.data() + r.offset, int(r.count), MPI_FLOAT, MPI_SUM,
                       comm_.mpi(), q.next());
      }));
    return;
  }
  record_schedules();
  for (const Schedule& sch : schedules_) {
    Executor& ex = executors_.emplace_back(comm_, sch);
    calls_.push_back({[&ex] { ex.start(); }, [&ex] { return ex.test(); }, [&ex] { ex.wait(); }});
  }
}

// Each bucket's all-reduce run once, in place on its slice, its schedule
// kept. A replay finds its buffers where they were recorded: the memory's
// scratch is grown first for the largest bucket, and recorded again should
// an algorithm still have asked it for more (which moves it).
void BucketedStep::record_schedules() {
  const CollectiveAlgorithm& algo = allreduce_algorithm(algorithm_);
  Memory& mem = comm_.memory();
  size_t largest = 0;
  for (const Range& r : b_.buckets) largest = std::max(largest, r.count);
  for (int attempt = 0; attempt < 2; ++attempt) {
    void* scratch = mem.scratch(2 * largest * sizeof(float));
    schedules_.clear();
    for (const Range& r : b_.buckets) {
      float* at = grads_.data() + r.offset;
      const CollectiveJob job{comm_, at,  at, r.count, {DType::float32, Op::sum},
                              0,     mem, 0,  &nodes_};
      schedules_.push_back(record_schedule(
          comm_, [&] { algo.run(job); }, algo.name));
    }
    if (mem.scratch(0) == scratch) return;
  }
  throw std::logic_error(algo.name + ": its scratch moved while its buckets were recorded");
}

void BucketedStep::compute_layer() {
  const int H = s_.hidden, B = s_.batch;
  // dW = X^T dY (H x H), then dX = dY W^T (B x H): the backward of Y = X W.
  cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, H, H, B, 1.0f, x_.data(), H, dy_.data(), H,
              0.0f, dw_.data(), H);
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, B, H, H, 1.0f, dy_.data(), H, w_.data(), H,
              0.0f, dx_.data(), H);
}

void BucketedStep::backward(std::vector<double>* ends_us) {
  const double t0 = MPI_Wtime();
  for (int l = 0; l < s_.layers; ++l) {
    compute_layer();
    const size_t at = size_t(l) * per_layer_;
    std::copy_n(pattern_.begin() + at, per_layer_, grads_.begin() + at);
    if (ends_us) ends_us->push_back((MPI_Wtime() - t0) * 1e6);
  }
}

void BucketedStep::communicate() {
  for (NonBlocking& call : calls_) {
    call.start();
    call.wait();
  }
}

void BucketedStep::pump() {
  if (in_flight_ && calls_[done_].test()) in_flight_ = false, ++done_;
  if (!in_flight_ && started_ < ready_) calls_[started_++].start(), in_flight_ = true;
}

void BucketedStep::step() {
  ready_ = started_ = done_ = 0;
  in_flight_ = false;
  for (int l = 0; l < s_.layers; ++l) {
    compute_layer();
    const size_t at = size_t(l) * per_layer_;
    std::copy_n(pattern_.begin() + at, per_layer_, grads_.begin() + at);
    while (ready_ < int(b_.buckets.size()) && b_.ready_after[ready_] == l) ++ready_;
    pump();
  }
  while (done_ < int(calls_.size())) {  // the step's end: every bucket, in order
    if (!in_flight_) calls_[started_++].start();
    calls_[done_++].wait();
    in_flight_ = false;
  }
}

uint64_t BucketedStep::wrong() const {
  const Pattern p = gradients(comm_.size());
  uint64_t wrong = 0;
  for (size_t i = 0; i < grads_.size(); ++i) wrong += grads_[i] != float(p.reduced(i));
  return wrong;
}

std::optional<BucketedStep::Counted> BucketedStep::count() {
  if (algorithm_.empty()) return std::nullopt;
  const CollectiveAlgorithm& algo = allreduce_algorithm(algorithm_);
  Counted c;
  for (size_t k = 0; k < calls_.size(); ++k) {
    Recorder recorder(Keep::messages);
    {
      Attached attached(comm_, recorder);
      calls_[k].start();
      calls_[k].wait();
    }
    const Traffic t = recorder.gather_counts(comm_.transport(), nodes_);
    const Traffic m = algo.model({comm_.size(), b_.buckets[k].count, sizeof(float), 0, nodes_});
    c.exact = c.exact && t.same_counts(m);
    c.counted.sent_max_rank_B += t.sent_max_rank_B, c.model.sent_max_rank_B += m.sent_max_rank_B;
    c.counted.msgs_total += t.msgs_total, c.model.msgs_total += m.msgs_total;
  }
  return c;
}

}  // namespace commlab::ddp
