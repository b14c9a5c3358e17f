// Ask::measured: a figure of the student's own run, read from the lab's
// outputs (lab-out/).
#pragma once
#include <string>
#include <vector>

#include "lab/grader/question.hpp"

namespace commlab::lab {

// Every run's figure, any one of them right; `unchecked` says why none
// could be read.
Expected measured(const Question& q, const Context& c);

// The careless readings of a measured value or ratio (another time column,
// another size's rows) that land within kSlipMargin tolerances of the
// answer: one line each (escapes, questions.hpp).
std::vector<std::string> careless_readings(const Question& q, const Context& c);

}  // namespace commlab::lab
