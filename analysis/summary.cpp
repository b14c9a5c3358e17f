// The first screen of a report: do the formulas hold here? For each
// hand-written algorithm, the time model fitted to its rows (fit.hpp) and
// whether it predicts every row of kLargeMessage_B (1 MiB) or more within
// kWithin (15%), its 1/beta beside the link's measured bandwidth; then how the time grows with P,
// measured, modelled and as the taught formulas say, and the sentence a
// student should read where the taught formula misleads (a tree's root takes
// two children's N through one link; master-worker's root carries both
// phases, twice the taught (P-1)N).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <set>
#include <tuple>

#include "core/vocabulary/stats.hpp"
#include "fit.hpp"
#include "report.hpp"
#include "table.hpp"

namespace commlab {

namespace {

constexpr double kWithin = 0.15;  // a row the model predicts closer than this is one it holds for
constexpr double kBusy = 0.25;    // a machine this busy with other work at start is said to be

using Rows = std::vector<const Measurement*>;

// Where the model is meant to hold, and is fitted: the network decides
// (kLargeMessage_B or more) and, where some runs had one rank per node, those
// runs: ranks that share a node share its cores and its link's queue, which
// the model does not see. Else, where the cores are known, the runs with a core for each
// rank: more ranks than cores take turns, which no step count sees. The
// other rows are predicted all the same, and shown apart.
bool one_per_node(const Measurement& m) { return m.nodes && *m.nodes == m.P && m.P > 1; }
int ranks_on_a_node(const Measurement& m) {
  const int nodes = std::max(1, m.nodes.value_or(1));
  return (m.P + nodes - 1) / nodes;
}
struct Domain {
  bool by_node = false;  // some rows had one rank per node: fit only those
  int cores = 0;         // else, where known: fit the rows with a core per rank
  bool holds(const Measurement& m) const {
    if (m.bytes < kLargeMessage_B || m.noisy()) return false;
    const int c = m.cores_per_node.value_or(cores);
    return by_node ? one_per_node(m) : c == 0 || ranks_on_a_node(m) <= c;
  }
  const char* fitted() const {
    return by_node ? "(one rank per node, fitted)"
           : cores ? "(a core per rank, fitted)"
                   : "(fitted)";
  }
  const char* apart() const {
    return by_node ? "(ranks share nodes: not fitted)" : "(more ranks than cores: not fitted)";
  }
};
using Key = std::tuple<std::string, std::string, std::string,
                       std::string>;  // algorithm, program, fabric, dtype

// The hand-written all-reduce algorithms: the formulas the summary tests are theirs.
std::map<Key, Rows> hand_groups(const std::vector<Measurement>& rows) {
  std::map<Key, Rows> groups;
  for (const Measurement& m : rows)
    if (m.hand() && m.check == Check::ok && m.model_steps && m.t_median_us > 0 && m.P > 1 &&
        m.program.rfind("allreduce", 0) == 0)
      groups[{m.algorithm, m.program, m.fabric(), m.dtype}].push_back(&m);
  return groups;
}

// Gamma only where it holds (fit.hpp).
Fit fit_of(const Rows& ms) { return fit_time_model(ms); }

double off(const Fit& f, const Measurement& m) {
  return (f.predict(regressors(m)) - m.t_median_us) / m.t_median_us;
}

// "ring", "ring (allreduce)", "ring (allreduce) over direct".
std::string name_of(const Key& key) {
  const auto& [algorithm, program, fabric, dtype] = key;
  return (program == "allreduce_" + algorithm ? algorithm
                                              : fmt::format("{} ({})", algorithm, program)) +
         over_fabric(fabric);
}

std::string ps_of(const Rows& ms) {
  auto [lo, hi] =
      std::minmax_element(ms.begin(), ms.end(), [](auto* a, auto* b) { return a->P < b->P; });
  return (*lo)->P == (*hi)->P ? fmt::format("{}", (*lo)->P)
                              : fmt::format("{}-{}", (*lo)->P, (*hi)->P);
}

// How many links a byte crossed, on average, at the largest P of `ms`:
// hop_B over sent_total_B, counted (1: every message to a neighbour). Not a
// median over P: on a ring of 8, the ring at P = 4 wraps from node 3 to
// node 0 over 3 links, at P = 8 it crosses 1. Where the rows read the
// links' own counters, what they sent beside hop_B, at that P's largest size.
std::string links_a_byte_crossed(const Rows& ms) {
  const Measurement* top = nullptr;
  for (const Measurement* m : ms)
    if (m->hop_B && m->sent_total_B.value_or(0) > 0 && (!top || m->P > top->P)) top = m;
  if (!top) return "-";
  std::string s =
      fmt::format("{:.2f} (P = {})", double(*top->hop_B) / double(*top->sent_total_B), top->P);
  const Measurement* largest = nullptr;
  for (const Measurement* m : ms)
    if (m->P == top->P && m->links_sent_B && m->hop_B.value_or(0) > 0 &&
        (!largest || m->bytes > largest->bytes))
      largest = m;
  if (largest)
    s += fmt::format("; links sent {:.3f} x",
                     double(*largest->links_sent_B) / double(*largest->hop_B));
  return s;
}

// One row of the verdict table, for `ms` (rows of kLargeMessage_B or more):
// how many the model predicts within kWithin, the worst and the median miss,
// and on a network, how far its bytes went.
void verdict(MarkdownTable& table, const std::string& algorithm, const std::string& where,
             const Rows& ms, const Fit& f, bool conclusive, bool on_network) {
  if (ms.empty()) return;
  std::vector<double> misses;
  const Measurement* worst = nullptr;
  for (const Measurement* m : ms) {
    misses.push_back(std::abs(off(f, *m)));
    if (!worst || misses.back() > std::abs(off(f, *worst))) worst = m;
  }
  const auto within =
      std::count_if(misses.begin(), misses.end(), [](double x) { return x <= kWithin; });
  std::vector<std::string> cells{algorithm, ps_of(ms) + " " + where,
                                 fmt::format("{} ({} of {})",
                                             !conclusive                     ? "cannot tell"
                                             : within == long(misses.size()) ? "**yes**"
                                                                             : "no",
                                             within, misses.size()),
                                 fmt::format("{:+.0f}% at P = {}, {}", off(f, *worst) * 100,
                                             worst->P, human_bytes(worst->bytes)),
                                 fmt::format("{:.0f}%", median(misses) * 100)};
  if (on_network) cells.push_back(links_a_byte_crossed(ms));
  table.add_cells(cells);
}

// At the largest size swept at every P: each P's row, in P order.
Rows at_common_size(const Rows& ms) {
  std::map<int, std::map<uint64_t, const Measurement*>> by_P;
  for (const Measurement* m : ms)
    if (m->P >= 2) by_P[m->P][m->bytes] = m;
  uint64_t common = 0;
  for (const auto& [bytes, m] :
       by_P.empty() ? std::map<uint64_t, const Measurement*>{} : by_P.begin()->second) {
    bool everywhere = true;
    for (const auto& [P, sizes] : by_P) everywhere &= sizes.count(bytes) > 0;
    if (everywhere) common = bytes;
  }
  Rows out;
  for (const auto& [P, sizes] : by_P)
    if (sizes.count(common)) out.push_back(sizes.at(common));
  return out;
}

// How the time grows with P, beside the model and the formulas; then, where
// the taught formula's growth or size is off, the sentence that says so.
std::string growth(const Key& key, const Rows& ms, const Fit& f) {
  const Rows rows = at_common_size(ms);
  if (rows.size() < 2) return "";
  const Measurement& base = *rows.front();
  const int P0 = base.P;
  auto taught = [](const Measurement& m) { return m.taught_T_B.value_or(0); };
  auto ratio = [](double a, double b) {
    return b > 0 ? fmt::format("{:.2f}", a / b) : std::string("-");
  };
  MarkdownTable table(
      {"P", "measured", "model",
       fmt::format("taught T ({})", base.taught_formula.empty() ? "none" : base.taught_formula),
       "P-1", "2(P-1)/P", "log2 P"});
  for (const Measurement* m : rows) {
    const double P = m->P;
    table.add_row(m->P, ratio(m->t_median_us, base.t_median_us),
                  ratio(f.predict(regressors(*m)), f.predict(regressors(base))),
                  ratio(taught(*m), taught(base)), ratio(P - 1, P0 - 1),
                  ratio(2 * (P - 1) / P, 2.0 * (P0 - 1) / P0), ratio(std::log2(P), std::log2(P0)));
  }
  std::string s = fmt::format("\n**{}**, N = {}: time at P over time at P = {}\n\n{}", name_of(key),
                              human_bytes(base.bytes), P0, table.str());
  std::vector<int> crowded, noisy;
  for (const Measurement* m : rows) {
    if (m->oversubscribed()) crowded.push_back(m->P);
    if (m->noisy()) noisy.push_back(m->P);
  }
  if (!crowded.empty())
    s += fmt::format(
        "\nAt P = {} there were more ranks than cores: that growth is the cores', "
        "not only the algorithm's.",
        fmt::join(crowded, ", "));
  if (!noisy.empty())
    s += fmt::format("\nAt P = {} the row is too noisy to judge (docs/sweeps.md).",
                     fmt::join(noisy, ", "));
  const Measurement& top = *rows.back();
  const double measured = top.t_median_us / base.t_median_us,
               told = taught(base) > 0 ? taught(top) / taught(base) : 0;
  const uint64_t port = top.model_port_critical_B.value_or(0);
  if (told > 0 && std::abs(told / measured - 1) > kWithin)
    s += fmt::format("\nThe taught {} grows x{:.2f} from P = {} to {}, the measured time x{:.2f}.",
                     top.taught_formula, told, P0, top.P, measured);
  if (port > 0 && taught(top) > 0 && std::abs(port / taught(top) - 1) > kWithin)
    s += fmt::format(
        " At P = {} the taught T is {:.0f} B, but the busiest node's link carries {} B "
        "(x{:.2f}).",
        top.P, taught(top), port, port / taught(top));
  return s + "\n";
}

// One fit for all the algorithms on the same data: alpha, beta and gamma are
// the machine's, not an algorithm's (and within one algorithm its bytes and
// reduced bytes grow together, so one fit alone cannot tell beta from gamma).
using Data = std::pair<std::string, std::string>;  // fabric, dtype
struct Pooled {
  std::map<Key, Rows> groups;
  Domain domain;
  std::map<Data, Fit> fits;
  const Fit& of(const Key& key) const { return fits.at({std::get<2>(key), std::get<3>(key)}); }
};
Pooled pooled_fits(const std::vector<Measurement>& rows, const Machine& machine) {
  Pooled p;
  p.groups = hand_groups(rows);
  p.domain.cores = machine.cores;
  for (const auto& [key, ms] : p.groups)
    for (const Measurement* m : ms) p.domain.by_node |= one_per_node(*m);
  std::map<Data, Rows> fitted;
  for (const auto& [key, ms] : p.groups) {
    Rows& mine = fitted[{std::get<2>(key), std::get<3>(key)}];
    std::copy_if(ms.begin(), ms.end(), std::back_inserter(mine),
                 [&](auto* m) { return p.domain.holds(*m); });
  }
  for (const auto& [data, ms] : fitted) p.fits[data] = fit_of(ms);
  return p;
}

// The fabrics and dtypes whose groups' rows are of a kind (their first row's).
std::set<Data> data_where(const std::map<Key, Rows>& groups, bool (Measurement::*kind)() const) {
  std::set<Data> out;
  for (const auto& [key, ms] : groups)
    if (!ms.empty() && (ms.front()->*kind)()) out.insert({std::get<2>(key), std::get<3>(key)});
  return out;
}

// What the first screen's fit is, what it is fitted to, and what it is asked.
std::string summary_prose(bool gpu_memory, bool node_memory, const std::string& network) {
  const std::string large = human_bytes(kLargeMessage_B);
  return fmt::format(
      "One time model for every hand-written all-reduce algorithm on the same data, t = alpha x "
      "steps + "
      "beta x bytes through the busiest port (on one node, along the critical path, where the "
      "rows have no memory columns) + gamma x reduced bytes, fitted to all their rows of "
      "{0} or more at once (non-negative least "
      "squares; where some runs had one rank per node, to those runs alone; else to the runs with "
      "a core "
      "for each rank, where machine.md gives the cores): does it predict "
      "each algorithm's rows of {0} or more within {1}? A row's time is its median call (an "
      "emulated link's stalls make some calls slower; the mean, with busbw, is in the tables "
      "below). Rows outside the fit are predicted "
      "too, and shown apart. A miss is (model - measured) / measured: +20% is a model 20% "
      "slower than the run, -20% one 20% faster; the worst is the largest either way. The fitted "
      "1/beta is beside the links' measured ping-pong "
      "bandwidth, where the sweep measured one (machine.md). Gamma is kept only where it predicts "
      "left-out rows better and a byte reduced costs less than a byte sent: for the ring and "
      "master-worker, reduced bytes are half the port bytes, and a fit cannot tell the two "
      "apart.{2}{3}{4}\n\n",
      large, percent(kWithin),
      gpu_memory
          ? " Where the ranks shared one GPU over direct access the resource is its "
            "memory, not a port: t = a call's cost + a step's cost x steps + every rank's bytes "
            "moved in memory (memory_moved_B) / the memory's bandwidth, beside the GPU's "
            "copy bandwidth (machine.md)."
          : "",
      node_memory
          ? " Where the ranks ran on one node on host buffers the resource is the node's "
            "memory, not a port: t = alpha x steps + each step's busiest rank's bytes moved in "
            "memory (read and written: a message copied once by its receiver, one received "
            "then reduced five times its bytes; model_memory_rank_B) / one rate + every "
            "rank's bytes moved (model_memory_node_B) / another, both fitted. The reductions "
            "are in those bytes: no gamma of its own (docs/time-model.md, \"Memory as the "
            "resource\")."
          : "",
      network.empty() ? ""
                      : fmt::format(" The nodes were on {} (the rows' network): the bytes "
                                    "charged are its busiest link's, step by step, in place "
                                    "of the port's (docs/time-model.md).",
                                    network));
}

// A fit of ranks sharing a GPU's memory: a call's cost, a step's, the memory's bandwidth.
std::string gpu_memory_line(const Data& data, const Fit& f, std::optional<double> copy_GBps) {
  const std::string copy = copy_GBps ? fmt::format("{:.0f} GB/s", *copy_GBps) : "not measured";
  const std::string vs =
      copy_GBps && f.at(1) > 0
          ? fmt::format(", fitted {:+.0f}%", (1e-3 / f.at(1) / *copy_GBps - 1) * 100)
          : "";
  return fmt::format(
      "- **{} {}**: a call {:.1f} us and a step {:.1f} us, the GPU's memory {} (its copy: "
      "{}{}); R^2 {:.3f}; leave-one-out error {:.0f}% at most, {:.0f}% median; {} rows.\n",
      data.first, data.second, f.at(3), f.at(0),
      f.at(1) > 0 ? fmt::format("{:.3g} GB/s", 1e-3 / f.at(1)) : std::string("-"), copy, vs, f.r2,
      f.loo_max * 100, f.loo_median * 100, f.n);
}

// A fit of one node's memory: a step's cost, and what a byte moved costs on
// the busiest rank and over the node; a byte one rank moves alone costs both.
std::string node_memory_line(const Data& data, const Fit& f) {
  auto rate = [](double per_B) {
    return per_B > 0 ? fmt::format("{:.3g} GB/s", 1e-3 / per_B) : std::string("free");
  };
  const std::string tier =
      f.tier_from_B
          ? fmt::format(", from {} on at {} (the caches no longer hold the buffers)",
                        human_bytes(uint64_t(*f.tier_from_B)), rate(f.at(1) + f.at(kTierKey)))
          : "";
  return fmt::format(
      "- **{} {}**: alpha {:.1f} us; the busiest rank's bytes moved at {}{}, the node's at {} "
      "(one rank moving memory alone: {}; the probe's copy is in copy_alone_GBps); R^2 {:.3f}; "
      "leave-one-out error {:.0f}% at most, {:.0f}% median; {} rows.\n",
      data.first, data.second, f.at(0), rate(f.at(1)), tier, rate(f.at(2)), rate(f.at(1) + f.at(2)),
      f.r2, f.loo_max * 100, f.loo_median * 100, f.n);
}

// One line per fabric and dtype: the fitted alpha, 1/beta beside the links'
// ping-pong, 1/gamma, and how well the fit predicts.
std::string fitted_lines(const std::map<Data, Fit>& fits, const std::set<Data>& gpu_memory,
                         const std::set<Data>& node_memory, const Machine& machine) {
  const std::optional<double> link_GBps = machine.link_GBps;
  auto rate = [](double per_B) {
    return per_B > 0 ? fmt::format("{:.3g} GB/s", 1e-3 / per_B) : std::string("-");
  };
  const std::string measured = link_GBps ? fmt::format("{:.3g} GB/s", *link_GBps) : "not measured";
  std::string s;
  for (const auto& [data, f] : fits) {
    if (f.n == 0) {
      s += fmt::format(
          "- **{} {}**: no rows of {} or more, so nothing to fit (the links' "
          "ping-pong: {}).\n",
          data.first, data.second, human_bytes(kLargeMessage_B), measured);
      continue;
    }
    if (gpu_memory.count(data) || node_memory.count(data)) {
      s += gpu_memory.count(data) ? gpu_memory_line(data, f, machine.gpu_copy_GBps)
                                  : node_memory_line(data, f);
      continue;
    }
    std::string link = measured;
    if (link_GBps && f.at(1) > 0)
      link += fmt::format(", fitted {:+.0f}%", (1e-3 / f.at(1) / *link_GBps - 1) * 100);
    s += fmt::format(
        "- **{} {}**: alpha {:.1f} us, 1/beta {} (the links' ping-pong: {}), 1/gamma {}; "
        "R^2 {:.3f}; leave-one-out error {:.0f}% at most, {:.0f}% median; {} rows.\n",
        data.first, data.second, f.at(0), rate(f.at(1)), link,
        f.at(2) > 0 ? rate(f.at(2)) : "left out (see above)", f.r2, f.loo_max * 100,
        f.loo_median * 100, f.n);
  }
  return s;
}

}  // namespace

namespace {

// What the first screen says before any verdict: the rows it left out as
// noise, and what the machine was doing (busy with other work at start,
// more ranks than cores): a verdict from such rows would be the machine's,
// not the formula's.
// What the first screen says about the run's conditions, and whether the
// verdicts may conclude: not from a machine busy with other work, nor when
// more than half the large rows were too noisy to judge.
struct Conditions {
  std::string text;
  bool conclusive = true;
};

Conditions conditions(const std::vector<Measurement>& rows, const Rows& large, const Rows& noisy) {
  std::string s;
  double busy = 0;
  std::set<int> crowded;
  for (const Measurement& m : rows) {
    busy = std::max(busy, m.busy_at_start.value_or(0));
    if (m.oversubscribed()) crowded.insert(m.P);
  }
  const bool busy_machine = busy > kBusy;
  if (busy_machine)
    s += fmt::format(
        "\n**The machine was busy with other work** when a run started: {:.0f}% of its CPUs "
        "(over {:.0f}% makes every time the machine's as much as the algorithm's). **Cannot "
        "conclude**: the verdicts below say `cannot tell`; run again on a quiet machine.\n",
        busy * 100, kBusy * 100);
  if (!crowded.empty())
    s += fmt::format(
        "\n**More ranks than cores** at P = {}: ranks took turns on the cores; rows of one rank "
        "per node are fitted where there are any, else those with a core each.\n",
        fmt::join(crowded, ", "));
  if (noisy.empty()) return {s, !busy_machine};
  s += fmt::format(
      "\n**{} of the {} rows of {} or more were too noisy to judge** (their median's 95% "
      "interval spans more than {:.0f}% of it, so a {} miss cannot be told from noise): left "
      "out of the fit and the verdicts.",
      noisy.size(), large.size(), human_bytes(kLargeMessage_B), Measurement::kNoisyWidth * 100,
      percent(kWithin));
  const bool too_noisy = noisy.size() * 2 > large.size();
  if (too_noisy)
    s += " **Too noisy to conclude**: more than half the rows are; the verdicts below say "
         "`cannot tell`; run again on a quiet machine.";
  return {s + "\n", !busy_machine && !too_noisy};
}

}  // namespace

std::vector<std::pair<const Measurement*, double>> fitted_times(
    const std::vector<Measurement>& rows, const Machine& machine) {
  const Pooled p = pooled_fits(rows, machine);
  std::vector<std::pair<const Measurement*, double>> out;
  for (const auto& [key, ms] : p.groups)
    for (const Measurement* m : ms) out.push_back({m, p.of(key).predict(regressors(*m))});
  return out;
}

std::map<std::pair<std::string, std::string>, Fit> formulas_fits(
    const std::vector<Measurement>& rows, const Machine& machine) {
  return pooled_fits(rows, machine).fits;
}

std::string formulas_summary(const std::vector<Measurement>& rows, const Machine& machine) {
  const Pooled p = pooled_fits(rows, machine);
  const auto& [groups, domain, fits] = p;
  if (groups.empty()) return "";
  auto fit_for = [&](const Key& key) -> const Fit& { return p.of(key); };
  const std::set<Data> gpu_memory = data_where(groups, &Measurement::shares_gpu_memory),
                       node_memory = data_where(groups, &Measurement::on_one_node_memory);
  std::string network;  // the first network not the switch the hand-written rows ran on
  for (const auto& [key, ms] : groups)
    for (const Measurement* m : ms)
      if (network.empty() && m->on_network()) network = m->network;
  std::string s = "## Do the formulas hold?\n\n" +
                  summary_prose(!gpu_memory.empty(), !node_memory.empty(), network) +
                  fitted_lines(fits, gpu_memory, node_memory, machine);
  const std::string large = human_bytes(kLargeMessage_B);
  std::vector<std::string> headings{
      "algorithm", "P", fmt::format("model within {}, N >= {}", percent(kWithin), large),
      "worst miss (model - measured)", "median miss"};
  if (!network.empty()) headings.push_back("links a byte crossed");
  MarkdownTable table(headings);
  Rows noisy, big;
  for (const auto& [key, ms] : groups)
    for (const Measurement* m : ms)
      if (m->bytes >= kLargeMessage_B) {
        big.push_back(m);
        if (m->noisy()) noisy.push_back(m);
      }
  const Conditions said = conditions(rows, big, noisy);
  for (const auto& [key, ms] : groups) {
    Rows in, out;
    for (const Measurement* m : ms)
      if (m->bytes >= kLargeMessage_B && !m->noisy()) (domain.holds(*m) ? in : out).push_back(m);
    verdict(table, name_of(key), domain.fitted(), in, fit_for(key), said.conclusive,
            !network.empty());
    verdict(table, name_of(key), domain.apart(), out, fit_for(key), said.conclusive,
            !network.empty());
  }
  s += said.text;
  s += "\n" + table.str();
  if (!network.empty()) {
    const bool counters = std::any_of(
        rows.begin(), rows.end(), [](const Measurement& m) { return m.links_sent_B.has_value(); });
    s += "\nThe last column is how many links a byte crossed on its way, on average, at the "
         "largest P (hop_B / sent_total_B; 1: every message went to a neighbour)";
    if (counters)
      s += ", and what the links' own counters say they sent over hop_B, at that P's largest "
           "size: TCP/IP's headers and acknowledgements and MPI's control messages on top";
    s += ". The model charges each step's busiest link as if the step's messages began together "
         "and shared every link evenly; docs/algorithms.md says what an emulated ring's links did "
         "where the model missed.\n";
  }
  std::string grown;
  for (const auto& [key, ms] : groups) grown += growth(key, ms, fit_for(key));
  if (!grown.empty())
    s += "\nHow the time grows with P, at the largest size swept at every P: measured, the "
         "fitted model, the algorithm's taught formula, and the three growths the formulas are "
         "made of.\n" +
         grown;
  return s + "\n";
}

}  // namespace commlab
