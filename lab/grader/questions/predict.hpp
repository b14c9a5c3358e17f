// Ask::predict: the alpha-beta model's time, in us.
#pragma once
#include <cstddef>
#include <utility>

#include "lab/grader/question.hpp"

namespace commlab::lab {

// The alpha-beta model's time; with `terms`, only alpha's (1, 0) or only the
// bytes' (0, 1). The crossover kind compares two of them.
double predicted_us(const Question& q, const char* algo_key, size_t count,
                    std::pair<double, double> terms = {1, 1});

// The time, right to 4 significant figures, with the slips of its terms and
// units; or a slip's own formula's (a x alpha + b x N x beta).
Expected predict(const Question& q);

}  // namespace commlab::lab
