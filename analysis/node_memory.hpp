// predict on one node: the all-reduces priced by the node's memory, as the
// report's fit prices them there (docs/time-model.md, "Memory as the
// resource"):
//
//   t = alpha x steps + the busiest rank's bytes moved in memory / its rate
//       (+ those bytes again / a slower rate from the tier's size on)
//       + every rank's bytes moved / the node's rate
//
// each algorithm's steps and bytes from its exact schedule and the copies it
// makes of its own buffers (memory_load, core/comm/time_model.hpp), for
// ranks with a core each on host buffers over MPI. The rates come from a
// one-node results folder's fit (--fit) or by hand (--one-node).
#pragma once
#include <cstddef>
#include <optional>
#include <string>

#include "collectives/algorithm.hpp"
#include "fit.hpp"

namespace commlab {

struct NodeMemory {
  std::string name;  // "fit:FOLDER" or "by-hand"
  std::string what;  // where its figures come from
  // The report's one-node fit: alpha (us a step), us a byte of the busiest
  // rank's, us a byte of the node's, and past tier_from_B us more a byte of
  // the busiest rank's (fit.hpp, fit_with_tier).
  Fit fit;
};

// By hand: a step's us, one rank's rate moving memory (bytes read plus
// written, GB/s), and the node's for all ranks at once (none: unlimited).
NodeMemory node_by_hand(double alpha_us, double rank_GBps, std::optional<double> node_GBps);
// Fitted to a results folder's rows, every run on one node on host buffers
// (the report's "Do the formulas hold?" fit); node_GBps, where given,
// replaces the node's fitted rate.
NodeMemory fitted_node(const std::string& folder, std::optional<double> node_GBps);
// Whether every row of a folder's rows.csv ran on one node (false where
// there is none).
bool on_one_node(const std::string& folder);
// "fit:run1: alpha 13.5 us, a rank's bytes at 12.8 GB/s (10.2 GB/s from
// 16 MiB on), the node's free (...)"
std::string describe(const NodeMemory& n);

// An all-reduce of N_B bytes at P ranks on one node, not in place.
struct NodeLoad {
  double steps = 0, rank_B = 0, node_B = 0;
};
NodeLoad node_load(const CollectiveAlgorithm& a, int P, size_t N_B);
double node_time_us(const NodeMemory& n, const NodeLoad& load, size_t N_B);

}  // namespace commlab
