// The all-reduce algorithms' entries, one per line of algorithms.def: for the
// all-reduce's table (operations/allreduce.cpp) and the few that name one
// (ps_sim trains with the ring; the unit tests). Only these files recompile
// when a line is added.
#pragma once
#include "collectives/algorithm.hpp"

namespace commlab {

#define COMMLAB_ALLREDUCE(name) CollectiveAlgorithm allreduce_##name##_algorithm();
#include "algorithms.def"
#undef COMMLAB_ALLREDUCE

}  // namespace commlab
