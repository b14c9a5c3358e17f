// Ask::buffer: one rank's buffer after a step, or its result at the end.
#pragma once
#include "lab/grader/question.hpp"

namespace commlab::lab {

// The buffer, with the other steps' and the other ranks' as its slips.
Expected buffer(const Question& q);

}  // namespace commlab::lab
