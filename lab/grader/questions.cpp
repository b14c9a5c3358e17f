#include "questions.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <memory>

#include "analysis/formulas.hpp"
#include "core/errors.hpp"
#include "core/names.hpp"
#include "core/time_model.hpp"
#include "harness/inprocess.hpp"
#include "ps_sim/training.hpp"

namespace commlab::lab {

namespace {

const Names<Ask> kAsks = {{Ask::traffic, "traffic"},     {Ask::buffer, "buffer"},
                          {Ask::taught, "taught"},       {Ask::predict, "predict"},
                          {Ask::crossover, "crossover"}, {Ask::ps_bytes, "ps_bytes"},
                          {Ask::range, "range"}};

// The counted figures a question may ask for, by their CSV names.
const std::pair<const char*, uint64_t Traffic::*> kFields[] = {
    {"sent_max_B", &Traffic::sent_max_rank_B},
    {"recv_max_B", &Traffic::recv_max_rank_B},
    {"sent_total_B", &Traffic::sent_total_B},
    {"msgs", &Traffic::msgs_total},
    {"steps", &Traffic::steps}};
// What each is, for a student who gave one where another was asked.
const std::pair<const char*, const char*> kFieldWords[] = {
    {"sent_max_B", "what the busiest sender sends"},
    {"recv_max_B", "what the busiest receiver receives"},
    {"sent_total_B", "what all ranks send together"},
    {"msgs", "the number of messages"},
    {"steps", "the number of steps"}};

UsageError bad(const Question& q, const std::string& what) {
  return UsageError(fmt::format("question {}: {}", q.id, what));
}

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
int64_t need_within(const Question& q, const char* key, int64_t lo, int64_t hi,
                    std::optional<int64_t> otherwise = std::nullopt) {
  const int64_t v = otherwise && !q.spec.contains(key) ? *otherwise : need<int64_t>(q, key);
  if (v < lo || v > hi) throw bad(q, fmt::format("'{}' must be from {} to {}", key, lo, hi));
  return v;
}
double need_positive(const Question& q, const char* key, bool zero_allowed = true) {
  const double v = need<double>(q, key);
  if (!std::isfinite(v) || v < 0 || (!zero_allowed && v == 0))
    throw bad(q, fmt::format("'{}' must be a finite number {} 0", key, zero_allowed ? ">=" : ">"));
  return v;
}

const Operation& operation(const Question& q) {
  static std::map<std::string, std::unique_ptr<Operation>> made;
  const std::string name = optional<std::string>(q, "operation", "allreduce");
  auto& op = made[name];
  if (!op) op = make_operation(name);
  return *op;
}
const CollectiveAlgorithm& algorithm(const Question& q, const Operation& op, const char* key) {
  const std::string wanted = need<std::string>(q, key);
  for (const auto& a : op.algorithms)
    if (a.name == wanted) return a;
  throw bad(q, fmt::format("{} has no algorithm '{}'", op.name, wanted));
}
const char* field_words(const std::string& name) {
  for (const auto& [field, words] : kFieldWords)
    if (name == field) return words;
  return "";
}
uint64_t field(const Question& q, const Traffic& t) {
  const std::string wanted = need<std::string>(q, "field");
  for (const auto& [name, member] : kFields)
    if (wanted == name) return t.*member;
  throw bad(q, "unknown field '" + wanted +
                   "' (use sent_max_B, recv_max_B, sent_total_B, msgs or steps)");
}

// One run with ranks as threads: P, count and root from the question.
InProcessResult run(const Question& q, const char* algo_key, Fill fill, bool trace) {
  const Operation& op = operation(q);
  const int P = int(need_within(q, "P", 1, 64));
  InProcessRun r{op, algorithm(q, op, algo_key), P, size_t(need_within(q, "count", 0, 1 << 22))};
  r.root = int(need_within(q, "root", 0, P - 1, 0));
  r.fill = fill;
  r.trace = trace;
  ThreadWorld world(P);
  InProcessResult result = run_in_process(world, r);
  const std::string wrong = result.verdict(r.algo.model(r.shape()));
  if (!wrong.empty()) throw std::logic_error(r.describe() + ": " + wrong);
  return result;
}

Expected number(double v, std::string unit = "B", int P = 0) {
  Expected e;
  e.numbers = {v};
  e.unit = std::move(unit);
  e.slips = number_slips(v, P, e.unit);
  return e;
}

// A counted figure: another field of the same run first (received for
// sent, one rank for all), then the slips of the number.
Expected traffic(const Question& q) {
  const InProcessResult r = run(q, "algorithm", Fill::pattern, false);
  const std::string asked = need<std::string>(q, "field");
  const bool bytes = asked.size() > 2 && asked.substr(asked.size() - 2) == "_B";
  std::vector<Slip> others;
  for (const auto& [name, member] : kFields)
    if (name != asked && (std::string(name).back() == 'B') == bytes)
      others.push_back({{double(r.counted.*member)},
                        fmt::format("that is {} ({}): the question asks {}", name,
                                    field_words(name), field_words(asked))});
  Expected e = number(double(field(q, r.counted)), bytes ? "B" : "", int(r.outputs.size()));
  others.erase(std::remove_if(others.begin(), others.end(),
                              [&](const Slip& o) { return o.numbers == e.numbers; }),
               others.end());
  e.slips.insert(e.slips.begin(), others.begin(), others.end());
  return e;
}

Expected buffer(const Question& q) {
  const InProcessResult r = run(q, "algorithm", Fill::rank, true);
  const int rank = int(need_within(q, "rank", 0, int64_t(r.outputs.size()) - 1));
  Expected e;
  e.list = true;
  if (!q.spec.contains("step")) return e.numbers = r.outputs[rank], e;
  const int step = int(need_within(q, "step", 0, int64_t(r.counted.steps) - 1));
  auto after = [&](int who, int when) {
    const Snapshot* s = state_after(r.snapshots[who], when);
    return s ? values(DType::float32, *s) : std::vector<double>{};
  };
  e.numbers = after(rank, step);
  if (e.numbers.empty()) throw std::logic_error("no buffer state of rank " + std::to_string(rank));
  // A step early or late, or another rank's buffer: which one it is says where to look.
  for (int when : {step - 1, step + 1})
    if (when >= 0 && after(rank, when) != e.numbers)
      e.slips.push_back({after(rank, when), fmt::format("that is the buffer after step {}: "
                                                        "which step does the question ask?",
                                                        when)});
  for (int other = 0; other < int(r.snapshots.size()); ++other)
    if (other != rank && after(other, step) != e.numbers)
      e.slips.push_back({after(other, step), fmt::format("that is rank {}'s buffer", other)});
  return e;
}

// In the report's wording (analysis/formulas.hpp): the counted figures by
// their names, whole-element chunks allowed their element each.
Expected taught(const Question& q) {
  const CollectiveAlgorithm& a = algorithm(q, operation(q), "algorithm");
  if (!a.taught_T) throw bad(q, a.name + " has no taught formula");
  const InProcessResult r = run(q, "algorithm", Fill::pattern, false);
  const int P = int(r.outputs.size());
  const double T = a.taught_T(P, double(need<int64_t>(q, "count") * 4));
  const Traffic& c = r.counted;
  const Traffic model = a.model({P, size_t(need<int64_t>(q, "count")), 4, 0});
  const std::vector<Quantity> counted = {
      {"sent_max_B", double(c.sent_max_rank_B)},
      {"recv_max_B", double(c.recv_max_rank_B)},
      {"sent_total_B / P", double(c.sent_total_B) / P},
      {"sent_total_B", double(c.sent_total_B)},
      {"critical path", double(model.critical_path_B)},
      {"one phase's critical path (half)", model.critical_path_B / 2.0}};
  Expected e;
  e.words = taught_is(T, counted, P, 4).matches;
  if (e.words.empty()) e.words = {"none"};
  return e;
}

// The alpha-beta model's time; with `terms`, only alpha's (1, 0) or only the bytes' (0, 1).
double predicted_us(const Question& q, const char* algo_key, size_t count,
                    std::pair<double, double> terms = {1, 1}) {
  const Operation& op = operation(q);
  const int P = int(need_within(q, "P", 1, 1 << 20));
  const Traffic t = algorithm(q, op, algo_key).model({P, count, 4, 0});
  const double GBps = need_positive(q, "GBps", false);  // a time over 0 GB/s is no answer
  return alpha_beta(terms.first * need_positive(q, "alpha_us"),
                    terms.second > 0 ? GBps : std::numeric_limits<double>::infinity())
      .predict_us(t);
}

Expected predict(const Question& q) {
  const size_t count = size_t(need_within(q, "count", 0, int64_t(1) << 40));
  Expected e =
      number(predicted_us(q, "algorithm", count), "us", int(need_within(q, "P", 1, 1 << 20)));
  e.rel_tolerance = 0.02;
  e.slips.insert(e.slips.begin(), {{{predicted_us(q, "algorithm", count, {0, 1})},
                                    "the bytes' time alone: every step also costs alpha"},
                                   {{predicted_us(q, "algorithm", count, {1, 0})},
                                    "alpha's time alone: the bytes cost time too"}});
  return e;
}

// A crossover one power of two off is the likely slip, and says which way.
Expected crossing(double N) {
  Expected e = number(N, "B");
  e.slips.insert(e.slips.begin(),
                 {{{N / 2}, "one size too small: at that size is it below yet?"},
                  {{N * 2}, "one size too large: it is already below at a smaller one"}});
  return e;
}

Expected crossover(const Question& q) {
  const int64_t from_B = need_within(q, "from_B", 4, int64_t(1) << 40),
                to_B = need_within(q, "to_B", from_B, int64_t(1) << 40);
  for (int64_t N = from_B; N <= to_B; N *= 2)
    if (predicted_us(q, "algorithm", size_t(N / 4)) < predicted_us(q, "versus", size_t(N / 4)))
      return crossing(double(N));
  return number(0);
}

// ps_sim's exact bytes per iteration: the busiest server's out, or a worker's.
Expected ps_bytes(const Question& q) {
  ps::Config c;
  c.mode = need<std::string>(q, "mode") == "colocated" ? ps::Mode::colocated : ps::Mode::ps;
  const int ranks = int(need_within(q, "ranks", 2, 4096));
  c.S = c.mode == ps::Mode::ps ? int(need_within(q, "servers", 1, ranks - 1)) : ranks;
  c.P = c.mode == ps::Mode::ps ? ranks - c.S : ranks;
  const int classes = int(need_within(q, "classes", 2, 1 << 20, 16));
  const int64_t model_B = need_within(q, "model_B", 8 * classes, int64_t(1) << 32);
  c.shape = ps::ModelShape::of_bytes(size_t(model_B), classes);
  c.placement = ps::parse_placement(optional<std::string>(q, "placement", "even"));
  c.iters = 1;
  const auto shards = ps::place(c.placement, c.shape.params(), c.shape.row(), c.S);
  const bool server = need<std::string>(q, "role") == "server";
  uint64_t most = 0;
  for (int r = 0; r < ranks; ++r)
    if (auto b = ps::expected_bytes(c, shards, r))
      most = std::max(most, server ? b->server_out : b->worker_out);
  return number(double(most), "B", c.P);
}

// A measurement: plausible from lo to hi; where it is `like` another answer
// (alpha like the smallest message's time; a bandwidth like the bytes over
// the largest one's time), within a factor `within` of that answer times
// `times` (or `times` over it, `inverse`), so that a unit slip shows.
Expected measured(const Question& q, const toml::table* answers) {
  Expected e;
  e.unit = optional<std::string>(q, "unit", "");
  e.range = {need_positive(q, "lo"), need_positive(q, "hi")};
  const std::string like = optional<std::string>(q, "like", "");
  if (like.empty() || !answers) return e;
  const auto other = (*answers)[like].value<double>();
  if (!other || !std::isfinite(*other) || *other <= 0) return e;
  const double times = optional<double>(q, "times", 1.0),
               within = optional<double>(q, "within", 3.0);
  if (!(times > 0) || !(within > 1)) throw bad(q, "'times' must be above 0 and 'within' above 1");
  const double center = optional<bool>(q, "inverse", false) ? times / *other : times * *other;
  const std::pair<double, double> near_other{std::max(e.range->first, center / within),
                                             std::min(e.range->second, center * within)};
  if (near_other.first > near_other.second) return e;  // the other answer is implausible itself
  e.range = near_other;
  e.rel_tolerance = 1 - 1 / within;  // a slip matches within sqrt(within) (judge.cpp)
  // Only slips far enough that their band misses the answer's (a unit's, not twice).
  for (Slip& slip : number_slips(center, 0, e.unit))
    if (std::fabs(std::log(slip.numbers.front() / center)) > 1.5 * std::log(within)) {
      slip.says += fmt::format(" (compared with your {})", like);
      e.slips.push_back(slip);
    }
  return e;
}

std::string format_number(double v) {
  if (v == std::floor(v) && std::fabs(v) < 9e15) return fmt::format("{}", int64_t(v));
  return fmt::format("{:.6g}", v);
}

}  // namespace

toml::table read_toml(const std::string& path, const std::string& hint) {
  if (!std::ifstream(path)) throw UsageError(path + ": cannot be read");
  try {
    return toml::parse_file(path);
  } catch (const toml::parse_error& e) {
    throw UsageError(fmt::format("{}:{}: {}{}", path, e.source().begin.line, e.description(),
                                 hint.empty() ? "" : " (" + hint + ")"));
  }
}

QuestionSet read_questions(const std::string& path) {
  const toml::table doc = read_toml(path);
  QuestionSet set{doc["title"].value_or(std::string(path)), {}};
  const toml::array* all = doc["question"].as_array();
  if (!all || all->empty()) throw UsageError(path + ": no [[question]] tables");
  for (const toml::node& node : *all) {
    const toml::table* t = node.as_table();
    Question q{(*t)["id"].value_or(std::string()), (*t)["text"].value_or(std::string()),
               (*t)["hint"].value_or(std::string()), Ask::range, *t};
    if (q.id.empty()) throw UsageError(path + ": a question without an id");
    try {
      q.ask = parse_in(kAsks, need<std::string>(q, "ask"), "ask");
    } catch (const UsageError& e) {
      throw UsageError(fmt::format("{}: question {}: {}", path, q.id, e.what()));
    }
    set.questions.push_back(std::move(q));
  }
  return set;
}

Expected expected(const Question& q, const toml::table* answers) {
  switch (q.ask) {
    case Ask::traffic:
      return traffic(q);
    case Ask::buffer:
      return buffer(q);
    case Ask::taught:
      return taught(q);
    case Ask::predict:
      return predict(q);
    case Ask::crossover:
      return crossover(q);
    case Ask::ps_bytes:
      return ps_bytes(q);
    case Ask::range:
      return measured(q, answers);
  }
  throw std::logic_error("an ask without a case");
}

bool Expected::accepts(const toml::node& answer) const {
  if (!words.empty()) {
    auto s = answer.value<std::string>();
    return s && std::find(words.begin(), words.end(), *s) != words.end();
  }
  auto near = [&](double got, double want) {
    return std::fabs(got - want) <= std::max(rel_tolerance * std::fabs(want), 1e-9);
  };
  if (list) {
    const toml::array* a = answer.as_array();
    if (!a || a->size() != numbers.size()) return false;
    for (size_t i = 0; i < numbers.size(); ++i) {
      auto v = (*a)[i].value<double>();
      if (!v || !near(*v, numbers[i])) return false;
    }
    return true;
  }
  auto v = answer.value<double>();
  if (!v || !std::isfinite(*v)) return false;
  if (range) return *v >= range->first && *v <= range->second;
  return near(*v, numbers.front());
}

double Expected::key_number() const {
  if (!range) return numbers.empty() ? 0 : numbers.front();
  return range->first > 0 ? std::sqrt(range->first * range->second)
                          : (range->first + range->second) / 2;
}

std::string Expected::key_value() const {
  if (!words.empty()) return fmt::format("\"{}\"", words.front());
  if (range)
    return fmt::format("{:.3g}  # a measurement: any value from {} to {}", key_number(),
                       format_number(range->first), format_number(range->second));
  if (!list) return format_number(numbers.front());
  std::string s = "[";
  for (size_t i = 0; i < numbers.size(); ++i) s += (i ? ", " : "") + format_number(numbers[i]);
  return s + "]";
}

}  // namespace commlab::lab
