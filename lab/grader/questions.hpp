// The lab's questions and their answers. An instructor writes questions in
// TOML (lab/*/questions.toml): what to ask, in words, and what the tool must
// compute to know the answer, never the answer itself. The answer key is
// computed here, by running the deterministic parts: counted bytes and steps
// (the algorithms run with ranks as threads), buffer contents after a step,
// the alpha-beta model, ps_sim's exact bytes. A figure the student measured
// is read from what the lab's own commands wrote (lab-out/), by column name,
// so that it is checked against the student's run, not against a range.
#pragma once
#include <toml++/toml.h>

#include <string>
#include <vector>

#include "judge.hpp"
#include "question.hpp"

namespace commlab::lab {

// A TOML file, or a UsageError naming it (and the line, with `hint` after
// a syntax error).
toml::table read_toml(const std::string& path, const std::string& hint = "");

// Reads a questions file; UsageError naming the file and question on a mistake.
QuestionSet read_questions(const std::string& path);
// Computes the right answer, with the slips; UsageError on a parameter it
// cannot use, or on a slip that lands too near the answer to be told from
// it (then the question's numbers must change).
Expected expected(const Question& q, const Context& c = {});
// Every question's, and for a measurement, the other measurements' figures
// among its slips (an answer copied from the wrong row).
std::vector<Expected> expected_all(const QuestionSet& set, const Context& c);
// A measured figure read carelessly (the worst call's, the mean's or the
// fastest call's column for the one asked; the rows of another size) that
// lands within a few tolerances of the answer, so that a student who read
// it would be marked right: one line each, for the rows in c.outputs.
std::vector<std::string> escapes(const Question& q, const Context& c);

}  // namespace commlab::lab
