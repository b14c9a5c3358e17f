// What the question kinds (lab/grader/questions/, one file each) share:
// a question's parameters read with the question named in every mistake,
// the run with ranks as threads that the counted kinds ask about, and a
// number's right answer with the slips of its unit.
#pragma once
#include <fmt/format.h>

#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "core/vocabulary/usage_error.hpp"
#include "harness/inprocess.hpp"
#include "lab/grader/question.hpp"

namespace commlab::lab {

// A slip nearer the answer than this many tolerances cannot be told from a
// rounded right answer: the question's numbers must change until it shows.
constexpr double kSlipMargin = 3;

// "question ID: what", as every mistake in a question's parameters is told.
UsageError bad(const Question& q, const std::string& what);

template <class T>
T need(const Question& q, const char* key) {
  // toml++ reads true as 1: a number is never a boolean here.
  const bool boolean_for_number = q.spec[key].is_boolean() && !std::is_same_v<T, bool>;
  if (auto v = q.spec[key].value<T>(); v && !boolean_for_number) return *v;
  throw bad(q, fmt::format("'{}' is missing or not a {}", key,
                           std::is_same_v<T, std::string> ? "string" : "number"));
}
template <class T>
T optional(const Question& q, const char* key, T otherwise) {
  return q.spec.contains(key) ? need<T>(q, key) : otherwise;
}
// A whole number from lo to hi; `otherwise` where the key is left out.
int64_t need_within(const Question& q, const char* key, int64_t lo, int64_t hi,
                    std::optional<int64_t> otherwise = std::nullopt);
// A finite number, not below 0 (nor 0 itself unless `zero_allowed`).
double need_positive(const Question& q, const char* key, bool zero_allowed = true);

// The question's `operation` (allreduce where it names none), made once.
const Operation& operation(const Question& q);
// The operation's algorithm that the question names under `key`.
const CollectiveAlgorithm& algorithm(const Question& q, const Operation& op, const char* key);

// A question's network of nodes (`network`, as predict --topology names
// it), one rank a node; none: every rank on one node.
Nodes nodes_of(const Question& q, int P);
// One run with ranks as threads: P, count, root and the network from the question.
InProcessResult run(const Question& q, const char* algo_key, Fill fill, bool trace);

// One number in `unit`, with its unit slips (judge.cpp, number_slips).
Expected number(double v, std::string unit, const std::string& text);

// "rank 3", "ranks 1 and 2", "ranks 1, 2 and 3".
std::string ranks_text(const std::vector<int>& ranks);

}  // namespace commlab::lab
