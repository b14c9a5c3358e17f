// Ask::crossover: the smallest power-of-two size at which one algorithm's
// model beats another's.
#pragma once
#include "lab/grader/question.hpp"

namespace commlab::lab {

// The size in bytes (0: not below at to_B), with the powers of two either side as its slips.
Expected crossover(const Question& q);

}  // namespace commlab::lab
