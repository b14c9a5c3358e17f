// What the time model predicts of an operation's algorithms on one shape,
// and -a auto's choice among them (docs/time-model.md).
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/comm/time_model.hpp"
#include "operation.hpp"

namespace commlab {

constexpr const char* kAuto = "auto";

// An algorithm's exact traffic on a shape, and the time model's time for it.
struct Predicted {
  Traffic model;
  double us = 0;
  std::optional<MemoryLoad> memory;  // on host buffers (add_memory_loads)
};
Predicted predict(const CollectiveAlgorithm& algo, const CostModel& cost, const JobShape& shape);
std::vector<Predicted> predict(const Operation& op, const CostModel& cost,
                               const JobShape& shape);  // every algorithm, in order
// Each rank's bytes copied between buffers of its own in a run of `algo`
// (CollectiveAlgorithm::own_copies), for memory_load.
std::vector<uint64_t> own_copied_B(const Operation& op, const CollectiveAlgorithm& algo,
                                   const JobShape& shape, bool in_place);
// Each planned algorithm's memory load on host buffers (memory_load); over
// direct access, of its schedule as it runs there (Traffic::pulled).
void add_memory_loads(std::vector<Predicted>& predicted, const Operation& op, const JobShape& shape,
                      bool in_place, bool direct);
// On one node over MPI: the time of each with a memory load priced by it
// (CostModel::node_memory_us), in place of the port's curves.
void price_by_memory(std::vector<Predicted>& predicted, const CostModel& cost,
                     const JobShape& shape);
// Ranks sharing one GPU (cost.shared): each planned algorithm's copies of a
// rank's own vector (own_copied_B) go through the GPU's memory too, every
// rank's at once: 2 x their bytes over its bandwidth, added.
void price_own_copies(std::vector<Predicted>& predicted, const Operation& op, const CostModel& cost,
                      const JobShape& shape, bool in_place);
// -a auto: the index of the least predicted time (the first of equals),
// among what the transport can run: the algorithms that read peers' memory
// only where ranks map it (maps_peers).
size_t fastest(const Operation& op, const std::vector<Predicted>& predicted, bool maps_peers);
// What auto chose between: the others it could run whose predicted time is
// within kNearFastest of the fastest's (the model's error on one node is
// about that), comma separated; "" where none is.
constexpr double kNearFastest = 0.10;
std::string near_fastest(const Operation& op, const std::vector<Predicted>& predicted,
                         bool maps_peers);

}  // namespace commlab
