// Ask::taught: which counted figure the taught formula's T equals.
#pragma once
#include "lab/grader/question.hpp"

namespace commlab::lab {

// A field's name, or "none".
Expected taught(const Question& q);

}  // namespace commlab::lab
