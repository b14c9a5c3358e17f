// How a student's answer is marked against what is right (question.hpp).
#pragma once
#include <toml++/toml.h>

#include <string>
#include <vector>

#include "question.hpp"

namespace commlab::lab {

// How an answer is marked. A format problem (a string for a number, a
// field's name in the wrong case) is told apart from a wrong answer; a
// measurement whose run is not there to read is told so.
enum class Mark { right, wrong, format, unchecked };
struct Marked {
  Mark mark;
  std::string why;  // wrong: a slip's words, or "" for the question's hint
};
// `typed`: the answer as the student wrote it (1.30, not 1.3), where known:
// a decimal with fewer significant figures than asked is a format slip.
Marked judge(const Expected& e, const toml::node& answer, const std::string& typed = "");
// The unit slips of a number W in `unit` (bits, MiB, ns, Gbit/s, ...);
// `text` is the question's: a size it gives in KiB or MiB may be taken as 10^3 or 10^6.
std::vector<Slip> number_slips(double W, const std::string& unit, const std::string& text = "");

}  // namespace commlab::lab
