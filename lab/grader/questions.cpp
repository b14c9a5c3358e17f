#include "questions.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <regex>
#include <set>

#include "analysis/formulas.hpp"
#include "analysis/rows.hpp"
#include "core/comm/errors.hpp"
#include "core/comm/time_model.hpp"
#include "core/vocabulary/names.hpp"
#include "harness/inprocess.hpp"
#include "harness/overlap.hpp"
#include "ps_sim/training.hpp"

namespace commlab::lab {

namespace {

const Names<Ask> kAsks = {
    {Ask::traffic, "traffic"}, {Ask::buffer, "buffer"},       {Ask::taught, "taught"},
    {Ask::predict, "predict"}, {Ask::crossover, "crossover"}, {Ask::ps_bytes, "ps_bytes"},
    {Ask::range, "range"},     {Ask::measured, "measured"},   {Ask::overlap, "overlap"}};

// The counted figures a question may ask for, by their CSV names.
const std::pair<const char*, uint64_t Traffic::*> kFields[] = {
    {"sent_max_B", &Traffic::sent_max_rank_B},
    {"recv_max_B", &Traffic::recv_max_rank_B},
    {"sent_total_B", &Traffic::sent_total_B},
    {"msgs", &Traffic::msgs_total},
    {"steps", &Traffic::steps},
    {"link_critical_B", &Traffic::link_critical_B},
    {"hop_B", &Traffic::hop_B}};
// What each is, for a student who gave one where another was asked.
const std::pair<const char*, const char*> kFieldWords[] = {
    {"sent_max_B", "what the busiest sender sends"},
    {"recv_max_B", "what the busiest receiver receives"},
    {"sent_total_B", "what all ranks send together"},
    {"msgs", "the number of messages"},
    {"steps", "the number of steps"},
    {"link_critical_B", "the busiest link's bytes in each step, summed over the steps"},
    {"hop_B", "every message's bytes times the links it crosses"}};

// A computed answer asked to 4 significant figures is right within one unit
// of its fourth figure (a student's rounding, and one more in the last
// place): 6321.5 takes 6320.5 to 6322.5. A relative tolerance of 0.1%
// took up to ten units, so that one alpha more or less (5 us in 6322, 1.47
// in 8235) passed where the question asks the steps to be counted.
double four_figures(double answer) {
  const double size = std::fabs(answer);
  return size > 0 ? std::pow(10, std::floor(std::log10(size)) - 3) / size : 0;
}
// A slip nearer the answer than this many tolerances cannot be told from a
// rounded right answer: the question's numbers must change until it shows.
constexpr double kSlipMargin = 3;

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
                   "' (use sent_max_B, recv_max_B, sent_total_B, msgs, steps, link_critical_B "
                   "or hop_B)");
}

// A question's network of nodes (`network`, as predict --topology names
// it), one rank a node; none: every rank on one node.
Nodes nodes_of(const Question& q, int P) {
  if (!q.spec.contains("network")) return {};
  Nodes nodes = Nodes::blocks(P, 1);
  try {
    const Topology network = Topology::parse(need<std::string>(q, "network"));
    if (network.nodes() && network.nodes() < P)
      throw bad(q, fmt::format("P = {} needs {} nodes, and {} has {}", P, P, network.describe(),
                               network.nodes()));
    nodes.set_network(network, {});
  } catch (const UsageError& e) {
    throw bad(q, e.what());
  }
  return nodes;
}

// One run with ranks as threads: P, count, root and the network from the question.
InProcessResult run(const Question& q, const char* algo_key, Fill fill, bool trace) {
  const Operation& op = operation(q);
  const int P = int(need_within(q, "P", 1, 64));
  InProcessRun r{op, algorithm(q, op, algo_key), P, size_t(need_within(q, "count", 0, 1 << 22))};
  r.root = int(need_within(q, "root", 0, P - 1, 0));
  r.nodes = nodes_of(q, P);
  r.fill = fill;
  r.trace = trace;
  ThreadWorld world(P);
  InProcessResult result = run_in_process(world, r);
  const std::string wrong = result.verdict(r.algo.model(r.shape()));
  if (!wrong.empty()) throw std::logic_error(r.describe() + ": " + wrong);
  return result;
}

Expected number(double v, std::string unit, const std::string& text) {
  Expected e;
  e.numbers = {v};
  e.unit = std::move(unit);
  e.slips = number_slips(v, e.unit, text);
  return e;
}

// "rank 3", "ranks 1 and 2", "ranks 1, 2 and 3".
std::string ranks_text(const std::vector<int>& ranks) {
  if (ranks.size() > 3 && ranks.back() - ranks.front() + 1 == int(ranks.size()))
    return fmt::format("ranks {} to {}", ranks.front(), ranks.back());
  std::string s = ranks.size() == 1 ? "rank " : "ranks ";
  for (size_t i = 0; i < ranks.size(); ++i)
    s += (i == 0 ? "" : i + 1 == ranks.size() ? " and " : ", ") + std::to_string(ranks[i]);
  return s;
}
// A phase as a sentence names it: "fold", not "fold (the ranks past a power of two)".
std::string phase_word(Phase p) {
  const std::string n = name(p);
  return n.substr(0, n.find(" ("));
}

// What each rank sent, received and how many messages it sent, counting the
// messages of one phase only where `only` is given; and the steps they took.
struct PerRank {
  std::vector<uint64_t> sent, recv, msgs;
  uint64_t steps = 0;
  LinkLoad links;  // over the question's network, where it names one
  uint64_t figure(const std::string& field) const {
    if (field == "link_critical_B") return links.link_critical_B;
    if (field == "hop_B") return links.hop_B;
    if (field == "sent_max_B") return *std::max_element(sent.begin(), sent.end());
    if (field == "recv_max_B") return *std::max_element(recv.begin(), recv.end());
    if (field == "sent_total_B") return std::accumulate(sent.begin(), sent.end(), uint64_t(0));
    if (field == "msgs") return std::accumulate(msgs.begin(), msgs.end(), uint64_t(0));
    return steps;
  }
};
PerRank per_rank(const InProcessResult& r, std::optional<Phase> only, const Nodes& nodes) {
  const size_t P = r.outputs.size();
  PerRank t{std::vector<uint64_t>(P), std::vector<uint64_t>(P), std::vector<uint64_t>(P), 0, {}};
  std::set<int> steps;
  std::vector<Message> sent;
  for (const TraceEntry& m : r.sent) {
    if (only && m.phase != *only) continue;
    t.sent[size_t(m.from)] += m.bytes, t.recv[size_t(m.to)] += m.bytes, ++t.msgs[size_t(m.from)];
    steps.insert(m.step);
    sent.push_back({m.step, m.from, m.to, m.bytes});
  }
  t.steps = steps.size();
  if (!nodes.empty()) t.links = link_load(sent, nodes.on_network(), nodes.network());
  return t;
}

// One rank's figure where the busiest's, or all ranks', was asked: each
// value once, with the ranks that have it.
std::vector<Slip> one_rank_slips(const std::vector<uint64_t>& per, bool sends,
                                 const std::string& then) {
  std::map<uint64_t, std::vector<int>> ranks;
  for (size_t k = 0; k < per.size(); ++k) ranks[per[k]].push_back(int(k));
  std::vector<Slip> s;
  for (const auto& [v, who] : ranks)
    s.push_back({{double(v)},
                 "",
                 fmt::format("that is what {} {}{}: {}", ranks_text(who),
                             sends ? "send" : "receive", who.size() == 1 ? "s" : " each", then)});
  return s;
}

// One phase counted alone: each phase's figure, the phases that share one named together.
std::vector<Slip> phase_slips(const InProcessResult& r, const std::string& asked,
                              const Nodes& nodes) {
  std::set<Phase> phases;
  for (const TraceEntry& m : r.sent)
    if (m.phase != Phase::none) phases.insert(m.phase);
  if (phases.size() < 2) return {};
  std::map<uint64_t, std::vector<Phase>> alone;
  for (Phase p : phases) alone[per_rank(r, p, nodes).figure(asked)].push_back(p);
  auto names = [](const std::vector<Phase>& list, const char* joint) {
    std::string s;
    for (size_t i = 0; i < list.size(); ++i)
      s += (i == 0 ? "the " : i + 1 == list.size() ? joint : ", the ") + phase_word(list[i]);
    return s + (list.size() > 1 && std::string(joint) == " and the " ? " phases" : " phase");
  };
  std::vector<Slip> s;
  for (const auto& [v, these] : alone) {
    std::vector<Phase> others;
    for (Phase p : phases)
      if (std::find(these.begin(), these.end(), p) == these.end()) others.push_back(p);
    s.push_back({{double(v)},
                 "",
                 others.empty()
                     ? fmt::format("you counted one phase alone ({}): every phase counts",
                                   names(these, " or the "))
                     : fmt::format("you counted only {}: {} count{} too", names(these, " or the "),
                                   names(others, " and the "), others.size() > 1 ? "" : "s")});
  }
  return s;
}

// The slips of a counted figure that the messages themselves show: both
// directions counted, one rank's where another's is asked, one phase alone.
std::vector<Slip> message_slips(const InProcessResult& r, const std::string& asked,
                                const Nodes& nodes) {
  const PerRank all = per_rank(r, std::nullopt, nodes);
  std::vector<Slip> s;
  if (asked == "sent_max_B" || asked == "recv_max_B") {
    const bool sent = asked == "sent_max_B";
    uint64_t both = 0;
    for (size_t k = 0; k < all.sent.size(); ++k) both = std::max(both, all.sent[k] + all.recv[k]);
    s.push_back({{double(both)},
                 "",
                 sent ? "you counted what the rank receives as well as what it sends: the "
                        "question asks only what leaves it"
                      : "you counted what the rank sends as well as what it receives: the "
                        "question asks only what arrives at it"});
    auto mine =
        one_rank_slips(sent ? all.sent : all.recv, sent,
                       sent ? "which rank sends the most?" : "which rank receives the most?");
    s.insert(s.end(), mine.begin(), mine.end());
  } else if (asked == "sent_total_B" || asked == "msgs") {
    s.push_back({{2.0 * all.figure(asked)},
                 "",
                 "you counted every message twice, once where it leaves and once where it "
                 "arrives: count each where it leaves"});
    auto mine = one_rank_slips(asked == "msgs" ? all.msgs : all.sent, true,
                               "the question asks all ranks together");
    s.insert(s.end(), mine.begin(), mine.end());
  }
  const std::vector<Slip> phases = phase_slips(r, asked, nodes);
  s.insert(s.end(), phases.begin(), phases.end());
  return s;
}

// A counted figure: another field of the same run (received for sent, one
// rank for all), what the messages show, and the slips of the number.
Expected traffic(const Question& q) {
  const InProcessResult r = run(q, "algorithm", Fill::pattern, false);
  const std::string asked = need<std::string>(q, "field");
  const bool bytes = asked.size() > 2 && asked.substr(asked.size() - 2) == "_B";
  Expected e = number(double(field(q, r.counted)), bytes ? "B" : "", q.text);
  std::vector<Slip> first;
  // The links' figures are slips only where the question names a network:
  // elsewhere they are 0, and every rank on one node.
  const bool network = q.spec.contains("network");
  for (const auto& [name, member] : kFields)
    if (name != asked && (std::string(name).back() == 'B') == bytes &&
        (network || (std::string(name) != "link_critical_B" && std::string(name) != "hop_B")))
      first.push_back({{double(r.counted.*member)},
                       "",
                       fmt::format("that is {} ({}): the question asks {}", name, field_words(name),
                                   field_words(asked))});
  const std::vector<Slip> shown =
      message_slips(r, asked, nodes_of(q, int(need_within(q, "P", 1, 64))));
  first.insert(first.end(), shown.begin(), shown.end());
  if (q.spec.contains("network") && asked == "link_critical_B")
    first.push_back({{double(r.counted.port_critical_B)},
                     "",
                     "that is the busiest node's port, as on one switch: on this network a "
                     "message loads every link on its way, and links carry other nodes' messages "
                     "too"});
  e.slips.insert(e.slips.begin(), first.begin(), first.end());
  return e;
}

// The time model's overlap of the algorithm replayed non-blocking with
// `probes` test calls (harness/overlap.hpp, model_overlap_pct), in percent
// to a tenth: its rounds are its counted steps, one exchange each in the
// schedules the labs ask about (the ring, recursive doubling).
Expected overlap(const Question& q) {
  const InProcessResult r = run(q, "algorithm", Fill::pattern, false);
  const int probes = int(need_within(q, "probes", 0, 1000));
  Expected e = number(model_overlap_pct(int(r.counted.steps), probes), "", q.text);
  // To a tenth: 33.3 for a third; a slip within 0.3% of its figure (16.7 for 16.67).
  e.rel_tolerance = 0.003, e.abs_tolerance = 0.05;
  e.slips.push_back(
      {{e.numbers.front() / 100}, "", "that is a fraction: the question asks percent"});
  return e;
}

// Another rank's buffer (or result): the ranks that hold the same named together.
std::vector<Slip> rank_slips(const std::vector<std::vector<double>>& of_rank, int rank,
                             const char* what) {
  std::vector<Slip> s;
  std::vector<bool> said(of_rank.size());
  for (size_t other = 0; other < of_rank.size(); ++other) {
    if (int(other) == rank || said[other]) continue;
    std::vector<int> same;
    for (size_t k = other; k < of_rank.size(); ++k)
      if (int(k) != rank && of_rank[k] == of_rank[other]) same.push_back(int(k)), said[k] = true;
    s.push_back({of_rank[other], "",
                 fmt::format("that is the {} of {}: the question asks rank {}'s", what,
                             ranks_text(same), rank)});
  }
  return s;
}

// One rank's buffer after a step: another step's or another rank's, the
// buffer before the first step or the result after the last, say which.
Expected buffer(const Question& q) {
  const InProcessResult r = run(q, "algorithm", Fill::rank, true);
  const int P = int(r.outputs.size());
  const int rank = int(need_within(q, "rank", 0, P - 1));
  Expected e;
  e.list = true;
  auto after = [&](int who, int when) {
    const Snapshot* s = state_after(r.snapshots[who], when);
    return s ? values(DType::float32, *s) : std::vector<double>{};
  };
  const int steps = int(r.counted.steps);
  if (!q.spec.contains("step")) {
    e.numbers = r.outputs[rank];
    e.slips = rank_slips(r.outputs, rank, "result");
    return e;
  }
  const int step = int(need_within(q, "step", 0, steps - 1));
  e.numbers = after(rank, step);
  if (e.numbers.empty()) throw std::logic_error("no buffer state of rank " + std::to_string(rank));
  // The result first: a buffer that already holds it is better named so.
  std::vector<int> order = {steps - 1};
  for (int when = -1; when < steps - 1; ++when) order.push_back(when);
  for (int when : order)
    if (when != step)
      e.slips.push_back({after(rank, when), "",
                         when < 0 ? "that is the buffer before the first step: which step does the "
                                    "question ask?"
                         : when == steps - 1
                             ? "that is the result, after the last step: which step does the "
                               "question ask?"
                             : fmt::format("that is the buffer after step {}: which step does "
                                           "the question ask? (steps count from 0)",
                                           when)});
  std::vector<std::vector<double>> at_step;
  for (int other = 0; other < P; ++other) at_step.push_back(after(other, step));
  const std::vector<Slip> others = rank_slips(at_step, rank, "buffer");
  e.slips.insert(e.slips.end(), others.begin(), others.end());
  // The same buffer twice (a rank idle in a step): the earlier slip says it.
  for (size_t i = e.slips.size(); i-- > 0;)
    for (size_t j = 0; j < i; ++j)
      if (e.slips[j].numbers == e.slips[i].numbers) {
        e.slips.erase(e.slips.begin() + long(i));
        break;
      }
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
  const std::vector<Quantity> counted = {{"sent_max_B", double(c.sent_max_rank_B)},
                                         {"recv_max_B", double(c.recv_max_rank_B)},
                                         {"sent_total_B / P", double(c.sent_total_B) / P},
                                         {"sent_total_B", double(c.sent_total_B)},
                                         {"critical path", double(model.critical_path_B)},
                                         {"half the critical path", model.critical_path_B / 2.0}};
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

// The time's slips: a term left out, a unit taken for another.
std::vector<Slip> time_slips(const Question& q, double alpha_part, double bytes_part) {
  std::vector<Slip> s = {
      {{bytes_part}, "", "you left alpha out: every step costs alpha too, however large its bytes"},
      {{alpha_part}, "", "you left the bytes out: a step costs its bytes' time as well as alpha"},
      {{alpha_part + bytes_part * 1e9 / 1073741824.0},
       "",
       "you took 1 GB as 2^30 bytes: in GB/s, 1 GB is 10^9 bytes"},
      {{alpha_part + bytes_part * 1000},
       "",
       "you took beta as 1 over the GB/s in us per byte: 1 GB/s is 1000 bytes per us"}};
  if (q.text.find("KiB") != std::string::npos)
    s.push_back({{alpha_part + bytes_part * 1000 / 1024},
                 "",
                 "you took 1 KiB as 1000 bytes: a KiB is 1024 bytes"});
  if (q.text.find("MiB") != std::string::npos)
    s.push_back({{alpha_part + bytes_part * 1e6 / 1048576},
                 "",
                 "you took 1 MiB as 10^6 bytes: a MiB is 1048576 bytes"});
  return s;
}

Expected predict(const Question& q) {
  const size_t count = size_t(need_within(q, "count", 0, int64_t(1) << 40));
  const double alpha_part = predicted_us(q, "algorithm", count, {1, 0}),
               bytes_part = predicted_us(q, "algorithm", count, {0, 1});
  // A slip's own formula, a x alpha + b x N x beta (lab 04, Part 3).
  if (q.spec.contains("a") || q.spec.contains("b")) {
    const double beta = 1 / (1000 * need_positive(q, "GBps", false));
    return number(need<double>(q, "a") * need_positive(q, "alpha_us") +
                      need<double>(q, "b") * double(count) * 4 * beta,
                  "us", q.text);
  }
  Expected e = number(predicted_us(q, "algorithm", count), "us", q.text);
  e.rel_tolerance = four_figures(e.numbers.front());
  std::vector<Slip> terms = time_slips(q, alpha_part, bytes_part);
  // A step more or fewer: named where one alpha is more than a rounding.
  const double alpha = need_positive(q, "alpha_us");
  if (alpha > kSlipMargin * e.rel_tolerance * e.numbers.front())
    for (double sign : {1.0, -1.0}) {
      if (sign < 0 && alpha_part < 1.5 * alpha) continue;  // one step: "you left alpha out"
      terms.push_back({{e.numbers.front() + sign * alpha},
                       "",
                       fmt::format("that is one step {} than the schedule has (one alpha, {} us): "
                                   "list its steps again, each costs alpha",
                                   sign > 0 ? "more" : "fewer", alpha)});
    }
  e.slips.insert(e.slips.begin(), terms.begin(), terms.end());
  return e;
}

// The powers of two on either side of a crossover are the likely slips: a
// size where it is not below yet, or one past the smallest.
Expected crossing(const Question& q, double N) {
  const std::string a = need<std::string>(q, "algorithm"), v = need<std::string>(q, "versus");
  Expected e = number(N, "B", q.text);
  e.power_of_two = true;
  e.slips.insert(e.slips.begin(),
                 {{{N / 2},
                   "",
                   fmt::format("at that size {}'s predicted time is not below {}'s yet: compute "
                               "both there",
                               a, v)},
                  {{N * 2},
                   "",
                   fmt::format("{} is below {} there, and already at a smaller power of two: the "
                               "question asks the smallest",
                               a, v)}});
  return e;
}

Expected crossover(const Question& q) {
  const int64_t from_B = need_within(q, "from_B", 4, int64_t(1) << 40),
                to_B = need_within(q, "to_B", from_B, int64_t(1) << 40);
  for (int64_t N = from_B; N <= to_B; N *= 2)
    if (predicted_us(q, "algorithm", size_t(N / 4)) < predicted_us(q, "versus", size_t(N / 4)))
      return crossing(q, double(N));
  Expected e = number(0, "B", q.text);
  e.power_of_two = true;
  return e;
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
  return number(double(most), "B", q.text);
}

// A figure no output records: plausible from lo to hi; where it is `like`
// another answer (alpha like the smallest message's time; a bandwidth like
// the bytes over the largest one's time), within a factor `within` of that
// answer times `times` (or `times` over it, `inverse`), so that a unit slip shows.
Expected plausible(const Question& q, const toml::table* answers) {
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
  // Only slips far enough that their band misses the answer's (a unit's).
  for (Slip& slip : number_slips(center, e.unit))
    if (std::fabs(std::log(slip.numbers.front() / center)) > 1.5 * std::log(within)) {
      slip.says += fmt::format(" (compared with your {})", like);
      e.slips.push_back(slip);
    }
  return e;
}

// ---- A figure of the student's own run, read from the lab's outputs -------

// Rows of a CSV the lab's commands wrote, the named columns only.
struct Rows {
  std::vector<std::string> names;
  std::vector<std::vector<std::string>> cells;
  size_t at(const std::string& name) const {
    return size_t(std::find(names.begin(), names.end(), name) - names.begin());
  }
};

// Does a row hold every value of `select` (a column's text, or its number)?
bool matches(const Rows& rows, const std::vector<std::string>& row, const toml::table* select) {
  if (!select) return true;
  for (const auto& [key, want] : *select) {
    const std::string& cell = row[rows.at(std::string(key.str()))];
    if (auto s = want.value<std::string>()) {
      if (cell != *s) return false;
    } else if (auto v = want.value<double>()) {
      char* end = nullptr;
      const double got = std::strtod(cell.c_str(), &end);
      if (end == cell.c_str() || got != *v) return false;
    }
  }
  return true;
}
// "ring", "bytes 4": a selection as a message names it.
std::string describe(const toml::table* select) {
  std::string s;
  if (!select) return s;
  for (const auto& [key, want] : *select) {
    if (!s.empty()) s += ", ";
    if (auto w = want.value<std::string>())
      s += *w;
    else
      s += fmt::format("{} {}", key.str(), want.value_or(0.0));
  }
  return s;
}
double cell_number(const Rows& rows, const std::vector<std::string>& row, const std::string& name) {
  const std::string& cell = row[rows.at(name)];
  char* end = nullptr;
  const double v = std::strtod(cell.c_str(), &end);
  return end == cell.c_str() ? std::numeric_limits<double>::quiet_NaN() : v;
}

// What a measured figure needs: its file's rows, grouped by run (the `date`
// column: one per run), or why they are not there.
struct Source {
  std::string path, missing;
  Rows rows;
  std::map<std::string, std::vector<size_t>> runs;  // date -> rows of the file
};
Source read_source(const Question& q, const Context& c, const std::vector<std::string>& names) {
  Source s{c.outputs + "/" + need<std::string>(q, "file"), "", {}, {}};
  if (!std::ifstream(s.path)) {
    s.missing = s.path +
                " cannot be read: run the page's commands that write it, from the repository's "
                "root (or name the folder with --outputs)";
    return s;
  }
  s.rows.names = names;
  s.rows.names.push_back("date");
  try {
    s.rows.cells = read_columns(s.path, s.rows.names);
  } catch (const ReportError& e) {
    throw bad(q, e.what());
  }
  for (size_t i = 0; i < s.rows.cells.size(); ++i) s.runs[s.rows.cells[i].back()].push_back(i);
  return s;
}

// The columns a selection names.
void add_columns(const toml::table* select, std::vector<std::string>& names) {
  if (select)
    for (const auto& [key, _] : *select) names.emplace_back(key.str());
}

// The figures of a measurement, one per run (or per row), and what only
// this kind of figure can tell of a wrong answer.
struct Figures {
  std::vector<double> values;
  std::vector<Slip> slips;
  std::vector<double> sizes;  // the table's sizes (crossover)
};

// One row's cell; or one row's over another's of the same run (`same_run`,
// the default) or of any run (ratio).
Figures value_or_ratio(const Question& q, const Source& s, bool ratio) {
  const toml::table* where = q.spec["where"].as_table();
  const std::string column = need<std::string>(q, "column");
  Figures f;
  if (!ratio) {
    for (const auto& row : s.rows.cells)
      if (matches(s.rows, row, where)) f.values.push_back(cell_number(s.rows, row, column));
    return f;
  }
  const toml::table *top = q.spec["top"].as_table(), *over = q.spec["over"].as_table();
  const bool same_run = optional<bool>(q, "same_run", true);
  for (const auto& a : s.rows.cells)
    for (const auto& b : s.rows.cells)
      if (matches(s.rows, a, where) && matches(s.rows, a, top) && matches(s.rows, b, where) &&
          matches(s.rows, b, over) && (!same_run || a.back() == b.back()))
        f.values.push_back(cell_number(s.rows, a, column) / cell_number(s.rows, b, column));
  for (double v : f.values)
    f.slips.push_back({{1 / v},
                       "",
                       fmt::format("you divided the {} row's by the {} row's: the question asks "
                                   "the {} row's over the {} row's",
                                   describe(over), describe(top), describe(top), describe(over))});
  return f;
}

// Per run: the bandwidth by hand between two sizes, (to - from) / (t(to) -
// t(from)), or one size's bytes over its time (`rate`), in GB/s; or the
// least-squares fit on the relative error (lab 01's awk line): its alpha or
// its bandwidth.
Figures bandwidth_or_fit(const Question& q, const Source& s, const std::string& figure) {
  const toml::table* where = q.spec["where"].as_table();
  const std::string x = need<std::string>(q, "x"), y = need<std::string>(q, "column");
  Figures f;
  // Each run's; and a fit of all runs together, as the page's awk line fits
  // a file that holds several.
  std::vector<std::vector<size_t>> groups;
  for (const auto& run : s.runs) groups.push_back(run.second);
  if (s.runs.size() > 1 && figure.rfind("fit_", 0) == 0) {
    groups.emplace_back(s.rows.cells.size());
    std::iota(groups.back().begin(), groups.back().end(), size_t(0));
  }
  for (const auto& rows : groups) {
    std::map<double, double> t;  // size -> time, this run
    for (size_t i : rows)
      if (matches(s.rows, s.rows.cells[i], where))
        t[cell_number(s.rows, s.rows.cells[i], x)] = cell_number(s.rows, s.rows.cells[i], y);
    if (figure == "bandwidth" || figure == "rate") {
      const double from = need<double>(q, "from"), to = need<double>(q, "to");
      if (!t.count(to) || (figure == "bandwidth" && !t.count(from))) continue;
      f.values.push_back(figure == "rate" ? to / t[to] / 1000
                                          : (to - from) / (t[to] - t[from]) / 1000);
      continue;
    }
    double S = 0, X = 0, Y = 0, XX = 0, XY = 0;
    for (const auto& [n, us] : t) {
      const double w = 1 / (us * us);
      S += w, X += w * n, Y += w * us, XX += w * n * n, XY += w * n * us;
    }
    if (t.size() < 2) continue;
    const double b = (S * XY - X * Y) / (S * XX - X * X), a = (Y - b * X) / S;
    f.values.push_back(figure == "fit_alpha" ? a : 1 / b / 1000);
  }
  return f;
}

// Per run: the smallest size from which `top`'s time stays below `over`'s
// at every larger size (0: not below at the largest).
Figures crossover_measured(const Question& q, const Source& s) {
  const toml::table *where = q.spec["where"].as_table(), *top = q.spec["top"].as_table(),
                    *over = q.spec["over"].as_table();
  const std::string x = need<std::string>(q, "x"), y = need<std::string>(q, "column");
  Figures f;
  for (const auto& [date, rows] : s.runs) {
    std::map<double, std::pair<double, double>> t;  // size -> (top's, over's)
    for (size_t i : rows) {
      const auto& row = s.rows.cells[i];
      if (!matches(s.rows, row, where)) continue;
      const double n = cell_number(s.rows, row, x), us = cell_number(s.rows, row, y);
      if (matches(s.rows, row, top)) t[n].first = us;
      if (matches(s.rows, row, over)) t[n].second = us;
    }
    if (t.empty()) continue;
    double stays = 0, first = 0;
    for (auto it = t.rbegin(); it != t.rend() && it->second.first < it->second.second; ++it)
      stays = it->first;
    for (const auto& [n, both] : t) {
      f.sizes.push_back(n);
      if (first == 0 && both.first < both.second) first = n;
    }
    f.values.push_back(stays);
    if (first != stays)
      f.slips.push_back({{first},
                         "",
                         fmt::format("there the {} is below the {}, but not at every larger size: "
                                     "from which size on does it stay below?",
                                     describe(top), describe(over))});
  }
  return f;
}

// The '# time model: alpha A us, beta 1/B GB/s (1 MiB), gamma 1/G GB/s' lines
// a program printed (saved with tee): A, B or G of each.
Figures probe(const Question& q, const Context& c, const std::string& figure,
              std::string& missing) {
  const std::string path = c.outputs + "/" + need<std::string>(q, "file");
  std::ifstream in(path);
  if (!in) {
    missing = path +
              " cannot be read: run the page's commands that write it, from the repository's root "
              "(or name the folder with --outputs)";
    return {};
  }
  static const std::regex line(
      R"(# time model: alpha ([0-9.]+) us, beta 1/([0-9.]+) GB/s.*gamma 1/([0-9.]+) GB/s)");
  const int k = figure == "probe_alpha" ? 1 : figure == "probe_bandwidth" ? 2 : 3;
  Figures f;
  std::smatch m;
  for (std::string text; std::getline(in, text);)
    if (std::regex_search(text, m, line)) f.values.push_back(std::stod(m[size_t(k)].str()));
  if (f.values.empty()) missing = path + " holds no '# time model:' line: run the command again";
  return f;
}

// What a measured figure reads, and how near a right answer must be: as
// the page prints it (decimals), or a ratio worked out by hand (0.5%).
Expected measured(const Question& q, const Context& c) {
  const std::string figure = need<std::string>(q, "figure");
  Expected e;
  e.unit = optional<std::string>(q, "unit", "");
  e.any = true;
  Figures f;
  if (figure.rfind("probe_", 0) == 0) {
    f = probe(q, c, figure, e.unchecked);
  } else {
    std::vector<std::string> names;
    for (const char* key : {"where", "top", "over"}) add_columns(q.spec[key].as_table(), names);
    for (const char* key : {"x", "column"})
      if (q.spec.contains(key)) names.push_back(need<std::string>(q, key));
    const Source s = read_source(q, c, names);
    if (!s.missing.empty()) return e.unchecked = s.missing, e;
    if (figure == "value" || figure == "ratio")
      f = value_or_ratio(q, s, figure == "ratio");
    else if (figure == "crossover")
      f = crossover_measured(q, s);
    else if (figure == "bandwidth" || figure == "rate" || figure == "fit_alpha" ||
             figure == "fit_bandwidth")
      f = bandwidth_or_fit(q, s, figure);
    else
      throw bad(q, "unknown figure '" + figure +
                       "' (use value, ratio, bandwidth, rate, fit_alpha, fit_bandwidth, "
                       "crossover, probe_alpha, probe_bandwidth or probe_gamma)");
    if (f.values.empty())
      e.unchecked = fmt::format("{} has no row of {}: run the page's commands that write it again",
                                s.path, describe(q.spec["where"].as_table()));
  }
  f.values.erase(
      std::remove_if(f.values.begin(), f.values.end(), [](double v) { return !std::isfinite(v); }),
      f.values.end());
  if (e.unchecked.empty() && f.values.empty()) e.unchecked = "no figure could be read";
  e.numbers = f.values;
  e.sizes = f.sizes;
  const bool by_hand = figure == "ratio" || figure == "bandwidth";
  e.rel_tolerance = optional<double>(q, "tolerance", by_hand ? 0.005 : 0.001);
  if (!by_hand) e.abs_tolerance = 0.5 * std::pow(10, -double(optional<int64_t>(q, "decimals", 2)));
  e.slips = f.slips;
  for (double v : f.values)  // a measured size is in bytes already, not elements
    for (const Slip& u : number_slips(v, e.unit))
      if (u.says.find("float32") == std::string::npos) e.slips.push_back(u);
  return e;
}

// ---- Careless readings of a measurement that a right answer would hide ----

// The question asked again with `key` = `value`: its figures, none where
// the rows cannot give them (a column the file lacks).
std::vector<double> variant_figures(const Question& q, const Context& c, const std::string& key,
                                    const toml::node& value) {
  Question v = q;
  v.spec.erase("slip");
  if (key == "bytes") {
    toml::table where = q.spec["where"].as_table() ? *q.spec["where"].as_table() : toml::table{};
    where.insert_or_assign("bytes", value);
    v.spec.insert_or_assign("where", where);
  } else {
    v.spec.insert_or_assign(key, value);
  }
  try {
    const Expected e = measured(v, c);
    return e.unchecked.empty() ? e.numbers : std::vector<double>{};
  } catch (const UsageError&) {
    return {};
  }
}

std::vector<std::string> careless_readings(const Question& q, const Context& c) {
  if (q.ask != Ask::measured) return {};
  const std::string figure = need<std::string>(q, "figure");
  if (figure != "value" && figure != "ratio") return {};
  const Expected e = measured(q, c);
  if (!e.unchecked.empty()) return {};
  std::vector<std::pair<std::string, std::vector<double>>> readings;
  const std::string column = need<std::string>(q, "column");
  for (const char* other : {"t_max_us", "t_avg_us", "t_min_us", "t_median_us"})
    if (other != column)
      readings.emplace_back(other,
                            variant_figures(q, c, "column", toml::value<std::string>(other)));
  const toml::table* where = q.spec["where"].as_table();
  if (where && where->contains("bytes")) {
    const Source s = read_source(q, c, {"bytes"});
    std::set<int64_t> sizes;
    for (const auto& row : s.rows.cells) sizes.insert(int64_t(cell_number(s.rows, row, "bytes")));
    for (int64_t b : sizes)
      if (b != (*where)["bytes"].value_or(int64_t(0)))
        readings.emplace_back(fmt::format("bytes = {}", b),
                              variant_figures(q, c, "bytes", toml::value<int64_t>(b)));
  }
  std::vector<std::string> found;
  for (const auto& [what, values] : readings)
    [&, &what = what, &values = values] {  // each reading named once, at its first landing
      for (double v : values)
        for (double a : e.numbers)
          if (std::fabs(v - a) <= kSlipMargin * (e.rel_tolerance * std::fabs(a) + e.abs_tolerance))
            return found.push_back(
                fmt::format("{}: {} gives {:.6g}, within {} tolerances of the answer {:.6g}", q.id,
                            what, v, kSlipMargin, a));
    }();
  return found;
}

// ---- Slips a question declares ([[question.slip]]), and the check of all ---

Expected compute(const Question& q, const Context& c);

// Each is the question asked again with some parameters changed (another
// field, another algorithm, a x alpha + b x N x beta, another row), its
// result times `scale`; or a taught question's wrong `word`.
std::vector<Slip> declared_slips(const Question& q, const Context& c) {
  std::vector<Slip> slips;
  const toml::array* all = q.spec["slip"].as_array();
  if (!all) return slips;
  for (const toml::node& node : *all) {
    const toml::table* t = node.as_table();
    const auto says = t ? (*t)["says"].value<std::string>() : std::nullopt;
    if (!says) throw bad(q, "a [[question.slip]] without 'says'");
    if (auto word = (*t)["word"].value<std::string>()) {
      slips.push_back({{}, *word, *says});
      continue;
    }
    Question variant = q;
    variant.spec.erase("slip");
    for (const auto& [key, value] : *t)
      if (key.str() != "says" && key.str() != "scale") variant.spec.insert_or_assign(key, value);
    const Expected v = compute(variant, c);
    if (!v.unchecked.empty()) continue;
    const double scale = (*t)["scale"].value_or(1.0);
    if (v.list) {
      slips.push_back({v.numbers, "", *says});
      continue;
    }
    for (double n : v.numbers) slips.push_back({{n * scale}, "", *says});
  }
  return slips;
}

bool same_numbers(const std::vector<double>& a, const std::vector<double>& b) { return a == b; }

// The slips a judge can tell from a right answer, the question's own
// first: one of the number's that the question's declares too is dropped.
// A computed answer's slip that lands within kSlipMargin tolerances of it
// is refused: a student who made it would be marked right, or could not be
// told apart from one who rounded, so the question's numbers must change.
void settle(const Question& q, Expected& e, std::vector<Slip> declared) {
  std::vector<Slip> kept;
  auto too_near = [&](const Slip& s) {
    if (e.list || s.numbers.size() != 1) return same_numbers(s.numbers, e.numbers);
    for (double answer : e.numbers) {
      // A measurement's slip that a right answer would be taken for; a
      // computed one's that a rounded right answer could be told from.
      if (e.any ? e.near(s.numbers.front(), answer)
                : std::fabs(s.numbers.front() - answer) <=
                      std::max(kSlipMargin * e.rel_tolerance * std::fabs(answer), 1e-9))
        return true;
    }
    return false;
  };
  for (const Slip& s : declared) {
    if (!s.word.empty()) {
      if (std::find(e.words.begin(), e.words.end(), s.word) != e.words.end())
        throw bad(q, fmt::format("the slip word \"{}\" is a right answer: drop the slip", s.word));
      kept.push_back(s);
    } else if (too_near(s)) {
      if (!e.any)
        throw bad(q, fmt::format("the slip '{}' lands within {} times the tolerance of the "
                                 "answer: change the question's numbers, or drop the slip",
                                 s.says, kSlipMargin));
    } else {
      kept.push_back(s);
    }
  }
  for (const Slip& s : e.slips) {
    if (s.numbers.empty() || std::any_of(declared.begin(), declared.end(), [&](const Slip& d) {
          return same_numbers(d.numbers, s.numbers);
        }))
      continue;
    const bool equal = e.list ? same_numbers(s.numbers, e.numbers)
                              : std::find(e.numbers.begin(), e.numbers.end(), s.numbers.front()) !=
                                    e.numbers.end();
    if (equal || (e.any && too_near(s))) continue;  // the answer itself, or a run's figure
    if (too_near(s) && !e.range)
      throw bad(q, fmt::format("the slip '{}' lands within {} times the tolerance of the answer: "
                               "change the question's numbers until it shows",
                               s.says, kSlipMargin));
    if (std::none_of(kept.begin(), kept.end(), [&](const Slip& k) {
          return same_numbers(k.numbers, s.numbers) && k.says == s.says;
        }))
      kept.push_back(s);
  }
  e.slips = kept;
}

Expected compute(const Question& q, const Context& c) {
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
      return plausible(q, c.answers);
    case Ask::measured:
      return measured(q, c);
    case Ask::overlap:
      return overlap(q);
  }
  throw std::logic_error("an ask without a case");
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
  QuestionSet set{doc["title"].value_or(std::string(path)), 0, {}};
  const auto version = doc["version"].value<int64_t>();
  if (!version || doc["version"].is_boolean() || *version < 1)
    throw UsageError(path +
                     ": no version: write 'version = 1' at the top, and raise it whenever a "
                     "question's meaning changes");
  set.version = *version;
  const toml::array* all = doc["question"].as_array();
  if (!all || all->empty()) throw UsageError(path + ": no [[question]] tables");
  for (const toml::node& node : *all) {
    const toml::table* t = node.as_table();
    Question q{(*t)["id"].value_or(std::string()), (*t)["text"].value_or(std::string()),
               (*t)["hint"].value_or(std::string()), Ask::range, *t};
    if (q.id.empty()) throw UsageError(path + ": a question without an id");
    if (q.id == "version") throw UsageError(path + ": 'version' is not a question's id");
    try {
      q.ask = parse_in(kAsks, need<std::string>(q, "ask"), "ask");
    } catch (const UsageError& e) {
      throw UsageError(fmt::format("{}: question {}: {}", path, q.id, e.what()));
    }
    set.questions.push_back(std::move(q));
  }
  return set;
}

Expected expected(const Question& q, const Context& c) {
  Expected e = compute(q, c);
  std::smatch m;  // "... to 3 significant figures"
  if (std::regex_search(q.text, m, std::regex(R"(to (\d) significant figures)")))
    e.figures = m[1].str()[0] - '0';
  if (e.unchecked.empty()) settle(q, e, declared_slips(q, c));
  return e;
}

std::vector<std::string> escapes(const Question& q, const Context& c) {
  return careless_readings(q, c);
}

std::vector<Expected> expected_all(const QuestionSet& set, const Context& c) {
  std::vector<Expected> all;
  for (const Question& q : set.questions) all.push_back(expected(q, c));
  // An answer copied from another measurement's row.
  for (size_t i = 0; i < all.size(); ++i)
    for (size_t j = 0; j < all.size(); ++j) {
      const Question &qi = set.questions[i], &qj = set.questions[j];
      if (i == j || !all[i].any || !all[j].any || all[i].unit != all[j].unit ||
          qi.spec["column"].value_or(std::string()) != qj.spec["column"].value_or(std::string()))
        continue;
      for (double v : all[j].numbers) {
        Slip s{{v},
               "",
               fmt::format("that is the figure {} asks for: which one does this question "
                           "ask?",
                           set.questions[j].id)};
        const bool near_answer = std::any_of(all[i].numbers.begin(), all[i].numbers.end(),
                                             [&](double a) { return all[i].near(v, a); });
        const bool said = std::any_of(all[i].slips.begin(), all[i].slips.end(), [&](const Slip& o) {
          return o.numbers.size() == 1 && all[i].near(v, o.numbers.front());
        });
        if (!near_answer && !said) all[i].slips.push_back(s);
      }
    }
  return all;
}

bool Expected::near(double got, double want) const {
  return std::fabs(got - want) <= std::max({rel_tolerance * std::fabs(want), abs_tolerance, 1e-9});
}

bool Expected::accepts(const toml::node& answer) const {
  if (!words.empty()) {
    auto s = answer.value<std::string>();
    return s && std::find(words.begin(), words.end(), *s) != words.end();
  }
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
  return std::any_of(numbers.begin(), numbers.end(), [&](double n) { return near(*v, n); });
}

double Expected::key_number() const {
  if (!range) return numbers.empty() ? 0 : numbers.back();
  return range->first > 0 ? std::sqrt(range->first * range->second)
                          : (range->first + range->second) / 2;
}

std::string Expected::key_value() const {
  // As many figures as the question asks: 1.50, not 1.5 (judge's format slip).
  auto shown = [&](double v) {
    const std::string plain = format_number(v);
    const int has = significant_figures(plain);
    return has >= 0 && has < figures ? fmt::format("{:#.{}g}", v, figures) : plain;
  };
  if (!words.empty()) return fmt::format("\"{}\"", words.front());
  if (range)
    return fmt::format("{:.3g}  # plausible: any value from {} to {}", key_number(),
                       format_number(range->first), format_number(range->second));
  if (any) {
    std::string runs;
    for (double n : numbers) runs += (runs.empty() ? "" : ", ") + format_number(n);
    return fmt::format("{}  # measured: {}", shown(numbers.back()),
                       numbers.size() > 1 ? "any of the runs' " + runs : "your run's");
  }
  if (!list) return shown(numbers.front());
  std::string s = "[";
  for (size_t i = 0; i < numbers.size(); ++i) s += (i ? ", " : "") + format_number(numbers[i]);
  return s + "]";
}

}  // namespace commlab::lab
