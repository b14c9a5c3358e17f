// One question of a lab and what a right answer to it is: the vocabulary
// every question kind (questions/*.cpp), the grader's judge and the reader
// of questions files share, apart from them, so that each kind needs only
// this and no kind's file reaches the others through the reader.
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

// The significant figures of a number as written: every digit from the
// first non-zero one when it has a decimal point (1.30: 3); -1 for an
// integer (2, 800: its trailing zeros may or may not count) and for a
// number with no non-zero digit (0.00), both taken as written.
int significant_figures(const std::string& typed);
// A number as the key and the hints print it: an integer as one, else 6 figures.
std::string format_number(double v);

}  // namespace commlab::lab
