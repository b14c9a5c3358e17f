#include "rules.hpp"

#include <fmt/format.h>

#include <climits>
#include <cmath>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

#include "harness/tuned.hpp"

namespace commlab {

namespace {

// A right row of one of Open MPI's library calls: the call, and the number
// of the algorithm it forced (0: none, Open MPI's own choice, as in its rules
// files, where 0 sends the call back to the fixed decision).
struct Library {
  const TunedCall* call = nullptr;
  int number = 0;
};
// The library a row ran on, from its mpi_version ("MPICH Version: 4.0.2").
MpiLibrary row_library(const Measurement& m) {
  return m.mpi_version.rfind("MPICH", 0) == 0 ? MpiLibrary::mpich : MpiLibrary::open_mpi;
}
Library library(const Measurement& m, MpiLibrary lib) {
  if (m.impl != Impl::mpi || m.check == Check::fail || row_library(m) != lib) return {};
  const size_t colon = m.algorithm.find(':');
  const TunedCall* call = tuned_call(m.algorithm.substr(0, colon), lib);
  if (!call) return {};
  if (colon == std::string::npos) return {call, 0};
  const int number = tuned_number(*call, m.algorithm.substr(colon + 1));
  return number ? Library{call, number} : Library{};
}

// Where the choice changes between two measured sizes a < b, the rule
// starts halfway between them on a log scale (and above a).
uint64_t boundary_B(uint64_t a, uint64_t b) {
  const auto mid = uint64_t(std::ceil(std::sqrt(double(a) * double(b))));
  return std::min(std::max(mid, a + 1), b);
}

// One algorithm at one call, P and size, over every launch that ran it: the
// least median, and the 95% interval of the median widened to hold every
// launch's (unknown where a row has none: an older file).
struct Interval {
  double median_us = INFINITY, lo_us = INFINITY, hi_us = 0;
  bool known = true;
  std::set<std::string> chose;  // what its launches' counted messages say ran
  void add(const Measurement& m) {
    median_us = std::min(median_us, m.t_median_us);
    chose.insert(m.chose);
    known = known && m.ci_lo_us && m.ci_hi_us;
    if (known) lo_us = std::min(lo_us, *m.ci_lo_us), hi_us = std::max(hi_us, *m.ci_hi_us);
  }
  std::string text() const {
    return known ? fmt::format("{:.1f} us [{:.1f}, {:.1f}]", median_us, lo_us, hi_us)
                 : fmt::format("{:.1f} us (no interval)", median_us);
  }
};
using Size = std::map<int, Interval>;  // algorithm number (0: the default) -> its interval
using Table = std::map<const TunedCall*, std::map<int, std::map<uint64_t, Size>>>;

// The algorithm a size's rule names, and why, for the comment beside it: the
// fastest forced one only where its whole interval is below the default's
// (the medians' intervals do not overlap), else Open MPI's own choice.
std::pair<int, std::string> choose(const TunedCall& call, const Size& size) {
  int best = 0;
  for (const auto& [number, t] : size)
    if (number && (!best || t.median_us < size.at(best).median_us)) best = number;
  const auto def = size.find(0);
  if (!best) return {0, "only the default measured"};
  const std::string name = call.algorithms.at(best - 1);
  const Interval& b = size.at(best);
  if (def == size.end())
    return {0, fmt::format("{} {}, the default not measured: kept", name, b.text())};
  const Interval& d = def->second;
  const std::string both = fmt::format("{} {} against the default {}", name, b.text(), d.text());
  // The default already runs it (the two moved the same messages, every
  // launch): a rule for it would change nothing but the noise.
  if (d.chose == b.chose && d.chose.size() == 1 && !d.chose.begin()->empty())
    return {0, both + ": the default already runs " + *d.chose.begin() + ", kept"};
  if (b.known && d.known && b.hi_us < d.lo_us) return {best, both + ": faster beyond the noise"};
  return {0, both + ": not faster beyond the noise, the default kept"};
}

std::string call_rules(const TunedCall& call, const std::map<int, std::map<uint64_t, Size>>& by_P) {
  std::string text = fmt::format("{}  # {} (coll_tuned_{}_algorithm)\n{}  # communicator sizes\n",
                                 call.rules_id, call.mpi_call, call.tuned, by_P.size());
  for (const auto& [P, by_size] : by_P) {
    std::string evidence;
    std::vector<std::pair<uint64_t, int>> rules;  // from bytes, algorithm
    uint64_t last_B = 0;
    for (const auto& [bytes, size] : by_size) {
      const auto [number, why] = choose(call, size);
      evidence += fmt::format("#   P = {}, {} B: {}\n", P, bytes, why);
      if (rules.empty())
        rules.emplace_back(0, number);
      else if (number != rules.back().second)
        rules.emplace_back(boundary_B(last_B, bytes), number);
      last_B = bytes;
    }
    text += evidence + fmt::format("{}  # P\n{}  # message sizes\n", P, rules.size());
    for (const auto& [from_B, number] : rules)
      text += fmt::format("{} {} 0 0  # from {} B: {}\n", from_B, number, from_B,
                          number ? call.algorithms.at(number - 1) : "Open MPI's own choice");
  }
  return text;
}

Table tabulate(const std::vector<Measurement>& rows, const std::string& source, MpiLibrary lib) {
  Table table;
  const Measurement* first = nullptr;  // a rules file knows only the call, P and bytes
  std::set<const TunedCall*> forced;
  for (const Measurement& m : rows) {
    const Library l = library(m, lib);
    if (!l.call) continue;
    if (!first) first = &m;
    if (std::tie(m.device, m.dtype, m.op) != std::tie(first->device, first->dtype, first->op))
      throw ReportError(fmt::format(
          "{}: rows of {} {} {} beside {} {} {}: a rules file picks by call, P and size alone, so "
          "give it the rows of one device, dtype and op",
          source, m.device, m.dtype, m.op, first->device, first->dtype, first->op));
    if (l.number) forced.insert(l.call);
    table[l.call][m.P][m.bytes][l.number].add(m);
  }
  if (forced.empty())
    throw ReportError(fmt::format("{}: no row forced one of {}'s algorithms (--mpi-algorithm)",
                                  source, name(lib)));
  for (auto it = table.begin(); it != table.end();)  // a call of default rows alone
    it = forced.count(it->first) ? std::next(it) : table.erase(it);
  return table;
}

}  // namespace

// What the rules rest on, for the file's head: the P whose rows ran more
// ranks than their nodes have cores (they took turns, and timed it).
std::string oversubscribed(const std::vector<Measurement>& rows, MpiLibrary lib) {
  std::set<int> Ps;
  for (const Measurement& m : rows)
    if (library(m, lib).call && m.oversubscribed()) Ps.insert(m.P);
  if (Ps.empty()) return "";
  std::string list;
  for (int P : Ps) list += fmt::format("{}{}", list.empty() ? "" : ", ", P);
  return "# more ranks than cores at P = " + list + ": those rows took turns on the cores\n";
}

std::string open_mpi_rules(const std::vector<Measurement>& rows, const std::string& source) {
  const Table table = tabulate(rows, source, MpiLibrary::open_mpi);
  std::string text = fmt::format(
      "# Open MPI's dynamic rules (coll_tuned_dynamic_rules_filename), written by report --rules\n"
      "# from {}: for each call, P and size measured, Open MPI's own choice (algorithm 0)\n"
      "# unless the fastest forced algorithm is faster beyond the noise: the 95% interval of\n"
      "# its median (over every launch) wholly below the default's. A rule starts halfway (on\n"
      "# a log scale) between two sizes where the choice changes. The evidence for each size is\n"
      "# above its P's rules. Each rule: message size in bytes, algorithm, fan-in/out and\n"
      "# segment size (0: Open MPI's). Where the default's counted messages show it already\n"
      "# runs the fastest forced algorithm, the default is kept.\n"
      "{}{}  # collectives\n",
      source, oversubscribed(rows, MpiLibrary::open_mpi), table.size());
  for (const auto& [call, by_P] : table) text += call_rules(*call, by_P);
  return text;
}

extern const char* const kMpichTuningJson;  // MPICH 4.0.2's own (harness/mpich_4.0.2_tuning.json)

namespace {

using Json = nlohmann::ordered_json;  // MPICH takes the first branch that holds: order matters

// One P's sizes as MPICH's branches: avg_msg_size up to the byte before the
// next rule starts, the last one any; a forced algorithm, with its evidence
// (MPICH reads only the key of an algorithm, not its value), or MPICH's own
// selection for the call, as compiled into it.
Json mpich_sizes(const TunedCall& call, int P, const std::map<uint64_t, Size>& by_size,
                 const Json& own, std::string& evidence) {
  std::vector<std::pair<uint64_t, int>> rules;  // from bytes, algorithm
  std::vector<std::vector<std::string>> why;    // each rule's sizes' evidence
  uint64_t last_B = 0;
  for (const auto& [bytes, size] : by_size) {
    const auto [number, reason] = choose(call, size);
    const std::string line = fmt::format("P = {}, {} B: {}", P, bytes, reason);
    evidence += fmt::format("# {} {}\n", call.mpi_call, line);
    if (rules.empty() || number != rules.back().second) {
      rules.emplace_back(rules.empty() ? 0 : boundary_B(last_B, bytes), number);
      why.emplace_back();
    }
    why.back().push_back(line);
    last_B = bytes;
  }
  Json sizes = Json::object();
  for (size_t i = 0; i < rules.size(); ++i) {
    const int number = rules[i].second;
    // MPICH reads the bound with atoi: past INT_MAX every size is below it.
    const std::string key =
        i + 1 < rules.size()
            ? fmt::format("avg_msg_size<={}",
                          std::min<uint64_t>(rules[i + 1].first - 1, uint64_t(INT32_MAX)))
            : "avg_msg_size=any";
    if (number)
      sizes[key] = {{"algorithm=" + mpich_container(call, call.algorithms.at(number - 1)),
                     {{"evidence", why[i]}}}};
    else
      sizes[key] = own;
  }
  return sizes;
}

}  // namespace

RulesText mpich_rules(const std::vector<Measurement>& rows, const std::string& source) {
  Table table = tabulate(rows, source, MpiLibrary::mpich);
  Json tree = Json::parse(kMpichTuningJson);
  std::string evidence = fmt::format(
      "# MPICH's tuning file (MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE), written by report "
      "--rules\n# from {}: MPICH 4.0.2's own selection, except where a forced algorithm is "
      "faster\n# beyond the noise (the 95% interval of its median wholly below the default's).\n",
      source);
  for (const auto& [call, by_P] : table) {
    if (!call->rules_id) {  // MPICH sizes it per rank's part, not as the row's bytes
      evidence +=
          fmt::format("# {}: left as MPICH's own (its sizes are not the rows')\n", call->mpi_call);
      continue;
    }
    Json& intra = tree.at("collective=" + call->tuned).at("comm_type=intra");
    const Json own = intra;
    Json by_comm = Json::object();
    for (auto it = by_P.begin(); it != by_P.end(); ++it) {
      // A P up to the next measured one takes this P's rules (as Open MPI's reader does).
      const auto next = std::next(it);
      const std::string key =
          next == by_P.end() ? "comm_size=any" : fmt::format("comm_size<{}", next->first);
      by_comm[key] = mpich_sizes(*call, it->first, it->second, own, evidence);
    }
    intra = by_comm;
  }
  return {tree.dump(1) + "\n", evidence};
}

std::string one_launch_warning(const std::vector<Measurement>& rows) {
  std::set<std::pair<std::string, std::string>> launches;  // a program's start: host, date
  for (const Measurement& m : rows)
    if (m.impl == Impl::mpi) launches.insert({m.host, m.date});
  return launches.size() == 1
             ? "warning: report --rules: every row comes from one launch, so launch-to-launch "
               "noise can pass for a faster algorithm: give the rows of three launches "
               "(bench/mpi_tuning.sh, RUNS=3)\n"
             : "";
}

RulesText library_rules(const std::vector<Measurement>& rows, const std::string& source) {
  std::set<MpiLibrary> libraries;
  for (const Measurement& m : rows)
    if (m.impl == Impl::mpi && m.algorithm.find(':') != std::string::npos)
      libraries.insert(row_library(m));
  if (libraries.size() > 1)
    throw ReportError(source + ": rows of Open MPI beside rows of MPICH: give one library's");
  if (libraries.count(MpiLibrary::mpich)) return mpich_rules(rows, source);
  return {open_mpi_rules(rows, source), ""};
}

}  // namespace commlab
