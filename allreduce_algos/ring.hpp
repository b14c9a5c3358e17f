// The ring all-reduce (ring.cpp), by name, for those that name it apart
// from the all-reduce's table (ps_sim trains with it): including the whole
// list (algorithms.hpp) would rebuild them whenever a line is added to it.
#pragma once
#include "collectives/algorithm.hpp"

namespace commlab {

CollectiveAlgorithm allreduce_ring_algorithm();

}  // namespace commlab
