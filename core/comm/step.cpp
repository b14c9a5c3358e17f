#include "step.hpp"

#include "core/vocabulary/names.hpp"

namespace commlab {

std::string name(Phase p) {
  static const Names<Phase> table = {{Phase::none, ""},
                                     {Phase::reduce_scatter, "reduce-scatter"},
                                     {Phase::all_gather, "all-gather"},
                                     {Phase::reduce, "reduce"},
                                     {Phase::broadcast, "broadcast"},
                                     {Phase::scatter, "scatter"},
                                     {Phase::exchange, "exchange"},
                                     {Phase::fold, "fold (the ranks past a power of two)"}};
  return name_in(table, p);
}

}  // namespace commlab
