// Ask::range: a figure no output records, any value from lo to hi.
#pragma once
#include "lab/grader/question.hpp"

namespace commlab::lab {

// The range, narrowed near the answer it is `like` (from `answers`, the student's).
Expected plausible(const Question& q, const toml::table* answers);

}  // namespace commlab::lab
