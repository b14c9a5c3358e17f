// The lab's questions and their answers. An instructor writes questions in
// TOML (lab/*/questions.toml): what to ask, in words, and what the tool must
// compute to know the answer, never the answer itself. The answer key is
// computed here, by running the deterministic parts: counted bytes and steps
// (the algorithms run with ranks as threads), buffer contents after a step,
// the alpha-beta model, ps_sim's exact bytes. Timings are machine-dependent,
// so a question about one only checks that the answer is plausible.
#pragma once
#include <toml++/toml.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace commlab::lab {

enum class Ask {
  traffic,    // a counted figure of one run: sent_max_B, recv_max_B, sent_total_B, msgs, steps
  buffer,     // one rank's buffer after a step (or at the end), known vectors as --show fills them
  taught,     // which counted figure the taught formula's T equals: a field's name, or "none"
  predict,    // the alpha-beta model's time, in us (within 2%)
  crossover,  // the smallest power-of-two size at which one algorithm's model beats another's
  ps_bytes,   // ps_sim's exact bytes per iteration
  range,      // a measurement: any value from lo to hi is plausible
};

// A wrong answer a student is likely to give, and the mistake it most
// likely comes from, said without the formula (bits for bytes, both phases,
// N for N/P, received for sent, P for P-1, off by one, a unit slip).
struct Slip {
  std::vector<double> numbers;  // as Expected::numbers
  std::string says;
};

// What a right answer is.
struct Expected {
  std::vector<double> numbers;  // one, or a buffer's elements (list = true)
  bool list = false;
  std::vector<std::string> words;  // any of these (taught)
  double rel_tolerance = 0;
  std::optional<std::pair<double, double>> range;
  std::string unit;         // of a number: "B", "us", "GB/s", "" (a count)
  std::vector<Slip> slips;  // the first that matches says what went wrong

  bool accepts(const toml::node& answer) const;
  std::string key_value() const;  // as TOML, for the answer key
  double key_number() const;      // a number's, or the middle of a range
};

// How an answer is marked. A format problem (a string for a number, a
// field's name in the wrong case) is told apart from a wrong answer.
enum class Mark { right, wrong, format };
struct Marked {
  Mark mark;
  std::string why;  // wrong: a slip's words, or "" for the question's hint
};
Marked judge(const Expected& e, const toml::node& answer);
// The slips of a number W for P ranks (0: none), in `unit`.
std::vector<Slip> number_slips(double W, int P, const std::string& unit);

struct Question {
  std::string id, text, hint;
  Ask ask;
  toml::table spec;  // the ask's parameters
};

struct QuestionSet {
  std::string title;
  std::vector<Question> questions;
};

// A TOML file, or a UsageError naming it (and the line, with `hint` after
// a syntax error).
toml::table read_toml(const std::string& path, const std::string& hint = "");

// Reads a questions file; UsageError naming the file and question on a mistake.
QuestionSet read_questions(const std::string& path);
// Computes the right answer, with the likely slips; UsageError on a
// parameter it cannot use. A measurement relative to another answer
// (`like`) is judged against the student's `answers` where given.
Expected expected(const Question& q, const toml::table* answers = nullptr);

}  // namespace commlab::lab
