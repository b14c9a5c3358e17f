#include "predicted.hpp"

#include <limits>

namespace commlab {

Predicted predict(const CollectiveAlgorithm& algo, const CostModel& cost, const JobShape& shape) {
  Traffic model = algo.model(shape);
  const double us = cost.predict_us(model);
  return {std::move(model), us, {}};
}

std::vector<Predicted> predict(const Operation& op, const CostModel& cost, const JobShape& shape) {
  std::vector<Predicted> all;
  for (const CollectiveAlgorithm& a : op.algorithms) all.push_back(predict(a, cost, shape));
  return all;
}

std::vector<uint64_t> own_copied_B(const Operation& op, const CollectiveAlgorithm& algo,
                                   const JobShape& shape, bool in_place) {
  std::vector<uint64_t> copied(size_t(shape.P), 0);
  const uint64_t N_B = uint64_t(shape.count) * shape.esize;
  for (int r = 0; r < shape.P; ++r) {
    int copies = op.name == "allreduce" && !in_place ? 1 : 0;  // allreduce_buffer's
    if (algo.own_copies) copies = algo.own_copies(shape, r, in_place);
    copied[size_t(r)] = uint64_t(copies) * N_B;
  }
  return copied;
}

void add_memory_loads(std::vector<Predicted>& predicted, const Operation& op, const JobShape& shape,
                      bool in_place, bool direct) {
  for (size_t i = 0; i < predicted.size(); ++i) {
    const Traffic& t = predicted[i].model;
    if (t.messages.empty()) continue;  // not planned, or no message (P = 1)
    predicted[i].memory =
        memory_load(direct ? t.pulled() : t, own_copied_B(op, op.algorithms[i], shape, in_place));
  }
}

void price_by_memory(std::vector<Predicted>& predicted, const CostModel& cost,
                     const JobShape& shape) {
  const double N_B = double(shape.count) * double(shape.esize);
  for (Predicted& p : predicted)
    if (p.memory) p.us = cost.node_memory_us(p.model, *p.memory, N_B);
}

void price_own_copies(std::vector<Predicted>& predicted, const Operation& op, const CostModel& cost,
                      const JobShape& shape, bool in_place) {
  if (!cost.shared || cost.shared->GBps <= 0) return;
  for (size_t i = 0; i < predicted.size(); ++i) {
    if (predicted[i].model.messages.empty()) continue;  // not planned
    uint64_t copied_B = 0;
    for (uint64_t b : own_copied_B(op, op.algorithms[i], shape, in_place)) copied_B += b;
    predicted[i].us += 2.0 * double(copied_B) / (cost.shared->GBps * 1e3);
  }
}

size_t fastest(const Operation& op, const std::vector<Predicted>& predicted, bool maps_peers) {
  size_t best = 0;
  double best_us = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < predicted.size(); ++i)
    if ((maps_peers || !op.algorithms[i].reads_peers) && predicted[i].us < best_us)
      best = i, best_us = predicted[i].us;
  return best;
}

}  // namespace commlab

namespace commlab {

std::string near_fastest(const Operation& op, const std::vector<Predicted>& predicted,
                         bool maps_peers) {
  const size_t best = fastest(op, predicted, maps_peers);
  std::string near;
  for (size_t i = 0; i < predicted.size(); ++i)
    if (i != best && (maps_peers || !op.algorithms[i].reads_peers) &&
        predicted[i].us <= (1 + kNearFastest) * predicted[best].us)
      near += (near.empty() ? "" : ", ") + op.algorithms[i].name;
  return near;
}

}  // namespace commlab
