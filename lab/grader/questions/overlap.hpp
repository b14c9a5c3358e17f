// Ask::overlap: the time model's overlap of a schedule replayed with test calls.
#pragma once
#include "lab/grader/question.hpp"

namespace commlab::lab {

// In percent, to a tenth.
Expected overlap(const Question& q);

}  // namespace commlab::lab
