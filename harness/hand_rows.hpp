// The hand-written rows of a collective program on one shape: each
// algorithm asked for, then auto (a row of its own, named auto, that runs
// the algorithm the time model predicts fastest), each checked against the
// exact answer and the library's result, its traffic against its model.
#pragma once
#include <string>
#include <vector>

#include "shape_data.hpp"

namespace commlab {

std::vector<Row> hand_rows(const std::vector<std::string>& algorithms, ShapeData& d);

}  // namespace commlab
