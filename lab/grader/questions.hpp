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

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace commlab::lab {

enum class Ask {
  traffic,    // a counted figure of one run: sent_max_B, recv_max_B, sent_total_B, msgs, steps
  buffer,     // one rank's buffer after a step (or at the end), known vectors as --show fills them
  taught,     // which counted figure the taught formula's T equals: a field's name, or "none"
  predict,    // the alpha-beta model's time, in us (within 0.1%: 4 significant figures)
  crossover,  // the smallest power-of-two size at which one algorithm's model beats another's
  ps_bytes,   // ps_sim's exact bytes per iteration
  range,      // a figure no output records: any value from lo to hi is plausible
  measured,   // a figure of the student's own run, read from the lab's outputs (lab-out/)
  overlap,    // the time model's overlap of a schedule replayed with test calls, in percent
};

// A wrong answer a student is likely to give, and the mistake it comes
// from, in the question's own terms. Never by how far it is off: told
// "twice the answer", a student halves the number and learns nothing.
struct Slip {
  std::vector<double> numbers;  // as Expected::numbers (empty for a word)
  std::string word;             // a taught question's wrong word
  std::string says;
};

// What a right answer is.
struct Expected {
  std::vector<double> numbers;  // one, a buffer's elements (list), or one per run (any)
  bool list = false;
  bool any = false;                // measured: right when near any one run's figure
  std::vector<std::string> words;  // any of these (taught)
  double rel_tolerance = 0, abs_tolerance = 0;
  std::optional<std::pair<double, double>> range;
  std::vector<double> sizes;  // measured sizes: an answer must be one of them, or 0
  bool power_of_two = false;  // a crossover: an answer must be a power of two, or 0
  std::string unchecked;      // a measurement that cannot be checked here, and why
  std::string unit;           // of a number: "B", "us", "GB/s", "" (a count)
  std::vector<Slip> slips;    // what a wrong answer is, where the grader can tell
  int figures = 0;            // the significant figures the question asks for; 0: not said

  bool near(double got, double want) const;
  bool accepts(const toml::node& answer) const;
  std::string key_value() const;  // as TOML, for the answer key
  double key_number() const;      // a number's, or the middle of a range
};

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
// The significant figures of a number as written: every digit from the
// first non-zero one when it has a decimal point (1.30: 3); -1 for an
// integer (2, 800: its trailing zeros may or may not count) and for a
// number with no non-zero digit (0.00), both taken as written.
int significant_figures(const std::string& typed);
// The unit slips of a number W in `unit` (bits, MiB, ns, Gbit/s, ...);
// `text` is the question's: a size it gives in KiB or MiB may be taken as 10^3 or 10^6.
std::vector<Slip> number_slips(double W, const std::string& unit, const std::string& text = "");

struct Question {
  std::string id, text, hint;
  Ask ask;
  toml::table spec;  // the ask's parameters, and the question's own slips ([[question.slip]])
};

struct QuestionSet {
  std::string title;
  int64_t version = 0;  // raised whenever a question's meaning changes
  std::vector<Question> questions;
};

// Where a question's answer comes from besides the question itself.
struct Context {
  const toml::table* answers = nullptr;  // the student's, for a range `like` another answer
  std::string outputs = "lab-out";       // what the lab's commands wrote (measured)
};

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
