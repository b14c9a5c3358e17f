// What the time model predicts of an operation's algorithms on one shape,
// and -a auto's choice among them (docs/time-model.md).
#pragma once
#include <cstddef>
#include <vector>

#include "core/comm/time_model.hpp"
#include "operation.hpp"

namespace commlab {

constexpr const char* kAuto = "auto";

// An algorithm's exact traffic on a shape, and the time model's time for it.
struct Predicted {
  Traffic model;
  double us = 0;
};
Predicted predict(const CollectiveAlgorithm& algo, const CostModel& cost, const JobShape& shape);
std::vector<Predicted> predict(const Operation& op, const CostModel& cost,
                               const JobShape& shape);  // every algorithm, in order
// -a auto: the index of the least predicted time (the first of equals),
// among what the transport can run: the algorithms that read peers' memory
// only where ranks map it (maps_peers).
size_t fastest(const Operation& op, const std::vector<Predicted>& predicted, bool maps_peers);

}  // namespace commlab
