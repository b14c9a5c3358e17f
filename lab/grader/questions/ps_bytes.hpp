// Ask::ps_bytes: ps_sim's exact bytes per iteration.
#pragma once
#include "lab/grader/question.hpp"

namespace commlab::lab {

// The busiest server's out, or a worker's.
Expected ps_bytes(const Question& q);

}  // namespace commlab::lab
