// Ask::traffic: a counted figure of one run (sent_max_B, msgs, steps, ...).
#pragma once
#include "lab/grader/question.hpp"

namespace commlab::lab {

// The figure, with the slips the run's other figures and its messages show.
Expected traffic(const Question& q);

}  // namespace commlab::lab
