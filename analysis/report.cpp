#include "report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <tuple>

#include "fit.hpp"
#include "formulas.hpp"
#include "table.hpp"

namespace commlab {

namespace {

constexpr double kMissBy = 0.2;  // a model prediction off by more than this is called a miss

// Rows that belong together: one program's implementation on one kind of data.
struct Group {
  std::string program, algorithm;
  Impl impl;
  std::string fabric, dtype, op;
  auto key() const { return std::tie(program, algorithm, impl, fabric, dtype, op); }
  bool operator<(const Group& o) const { return key() < o.key(); }
};
Group group_of(const Measurement& m) {
  return {m.program, m.algorithm, m.impl, m.fabric(), m.dtype, m.op};
}

std::vector<Quantity> quantities(const Measurement& m) {
  std::vector<Quantity> q;
  // Named as the tables' columns and the lab's answers name them.
  if (m.sent_max_B) q.push_back({"sent_max_B", double(*m.sent_max_B)});
  if (m.recv_max_B) q.push_back({"recv_max_B", double(*m.recv_max_B)});
  if (m.sent_total_B) {
    q.push_back({"sent_total_B / P", double(*m.sent_total_B) / m.P});
    q.push_back({"sent_total_B", double(*m.sent_total_B)});
  }
  if (m.model_critical_path_B) {
    q.push_back({"critical path", double(*m.model_critical_path_B)});
    q.push_back({"half the critical path", *m.model_critical_path_B / 2.0});
  }
  return q;
}

std::string checks(const std::vector<Measurement>& rows) {
  size_t ok = std::count_if(rows.begin(), rows.end(), [](auto& m) { return m.check == Check::ok; });
  std::string s = fmt::format("{} rows; {} checked ok", rows.size(), ok);
  size_t off =
      std::count_if(rows.begin(), rows.end(), [](auto& m) { return m.check == Check::off; });
  if (off) s += fmt::format(", {} not checked (-c off)", off);
  s += ".\n";
  for (const Measurement& m : rows)
    if (m.check == Check::fail)
      s += fmt::format("\n- **FAIL** {} {} ({}) P={} N={}: {}", m.program, m.algorithm,
                       name(m.impl), m.P, human_bytes(m.bytes),
                       m.note.empty() ? "see the program's output" : m.note);
  return s + "\n";
}

std::string failed(const std::vector<std::string>& cells) {
  if (cells.empty()) return "";
  std::string s = fmt::format("\n{} sweep cells failed (cells.tsv; their output is in cells/):\n\n",
                              cells.size());
  for (const auto& c : cells) s += "- " + c + "\n";
  return s;
}

// Each counted algorithm at each P, at the largest size swept there: the
// hand-written ones, and the library's where Open MPI's monitoring counted it.
std::string traffic(const std::vector<Measurement>& rows) {
  std::map<std::tuple<Group, int>, const Measurement*> largest;
  for (const Measurement& m : rows) {
    if (!m.sent_max_B) continue;
    auto& top = largest[{group_of(m), m.P}];
    if (!top || m.bytes > top->bytes) top = &m;
  }
  std::string s =
      "Counted bytes of one call at the largest size swept, per algorithm and P (hand-written, "
      "and the library's where Open MPI's monitoring counted them; "
      "critical path: from the model; busiest port: the bytes through the busiest node's link, "
      "step by step, counted and from the model, when the files record it). T is the formula as "
      "taught (docs/formulas.md); the last column says which counted quantity it is, in the "
      "words of the lab's answer key, or how far it is from the nearest.\n\n";
  MarkdownTable table({"program", "algorithm", "P", "N", "sent_max_B", "sent_total_B / P",
                       "sent_total_B", "critical path", "busiest port, counted / model", "taught T",
                       "T is"});
  for (const auto& [key, m] : largest) {
    std::string T = "-", is = "-";
    if (m->taught_T_B && !m->taught_formula.empty()) {
      T = fmt::format("{} = {:.0f}", m->taught_formula, *m->taught_T_B);
      auto q = quantities(*m);
      is = taught_is(*m->taught_T_B, q, m->P, m->count ? double(m->bytes) / m->count : 0)
               .describe(*m->taught_T_B, q);
    }
    auto count = [](const std::optional<uint64_t>& v) {
      return v ? fmt::format("{}", *v) : std::string("-");
    };
    table.add_row(m->program, m->algorithm + over_fabric(m->fabric()), m->P, m->bytes,
                  *m->sent_max_B, fmt::format("{:.0f}", double(m->sent_total_B.value_or(0)) / m->P),
                  m->sent_total_B.value_or(0), count(m->model_critical_path_B),
                  count(m->port_critical_B) + " / " + count(m->model_port_critical_B) +
                      (m->on_network()
                           ? "; busiest link of " + m->network + ": " + count(m->link_critical_B) +
                                 " / " + count(m->model_link_critical_B)
                           : ""),
                  T, is);
  }
  return s + table.str();
}

std::string sizes_list(std::vector<uint64_t> sizes) {
  std::sort(sizes.begin(), sizes.end());
  std::string s;
  for (uint64_t b : sizes) s += (s.empty() ? "" : ", ") + human_bytes(b);
  return s;
}

// Fits `ms` and counts the rows it predicts within kMissBy; `missed` gets the others.
struct Assessed {
  Fit fit;
  int within = 0;
};
Assessed assess(const std::vector<const Measurement*>& ms,
                std::map<int, std::vector<uint64_t>>* missed = nullptr) {
  Assessed a{fit_time_model(ms)};
  for (size_t i = 0; i < ms.size(); ++i) {
    const double t = ms[i]->t_median_us, predicted = a.fit.predict(regressors(*ms[i]));
    if (t > 0 && std::abs(predicted - t) <= kMissBy * t)
      ++a.within;
    else if (missed)
      (*missed)[ms[i]->P].push_back(ms[i]->bytes);
  }
  return a;
}

// A fitted time per byte as a rate, GB/s; "-" where the fit found it free.
std::string per_byte(const Fit& f, size_t j) {
  return f.at(j) > 0 ? fmt::format("{:.3g}", 1e-3 / f.at(j)) : "-";
}

// Per program, at the largest P: each hand-written algorithm's measured time,
// its fit's prediction and how far off that is.
std::string predicted_beside_measured(
    const std::map<std::string, std::vector<std::pair<const Group*, Fit>>>& programs,
    const std::map<Group, std::vector<const Measurement*>>& groups) {
  std::string s;
  for (const auto& [title, fits] : programs) {
    int P = 0;
    for (const auto& [g, f] : fits)
      for (const Measurement* m : groups.at(*g)) P = std::max(P, m->P);
    // N, then measured, predicted and off for each algorithm.
    std::map<uint64_t, std::vector<std::string>> by_size;
    for (size_t k = 0; k < fits.size(); ++k)
      for (const Measurement* m : groups.at(*fits[k].first)) {
        if (m->P != P) continue;
        auto& cells = by_size[m->bytes];
        cells.resize(1 + 3 * fits.size(), "-");
        cells[0] = human_bytes(m->bytes);
        double p = fits[k].second.predict(regressors(*m));
        double off = m->t_median_us > 0 ? (p - m->t_median_us) / m->t_median_us : 0;
        const char* bold = std::abs(off) > kMissBy ? "**" : "";
        cells[1 + 3 * k] = fmt::format("{:.1f}", m->t_median_us);
        cells[2 + 3 * k] = fmt::format("{:.1f}", p);
        cells[3 + 3 * k] = fmt::format("{}{:+.0f}%{}", bold, off * 100, bold);
      }
    std::vector<std::string> headings{"N"};
    for (const auto& [g, f] : fits)
      headings.insert(headings.end(), {g->algorithm, "predicted", "off"});
    MarkdownTable table(headings);
    for (const auto& [bytes, cells] : by_size) table.add_cells(cells);
    s += fmt::format("\n### {}, P = {}: measured and predicted time (us)\n\n{}", title, P,
                     table.str());
  }
  return s.empty()
             ? ""
             : fmt::format(
                   "\nThe fits against the rows of the largest P, off by more than {} in bold:\n",
                   percent(kMissBy)) +
                   s;
}

// What the alpha-beta table shows, and what counts as a miss.
std::string timing_prose() {
  return fmt::format(
      "One fit per algorithm over every P and size: t = alpha x steps + beta x bytes + gamma x "
      "reduced bytes for the hand-written ones (their schedule is known; the bytes are those "
      "through the busiest node's port when the ranks ran on several nodes, else those along "
      "the critical path; the reduced bytes are the busiest reducer's), t = alpha + beta x N for "
      "the library's, fitted to each row's median time. Least squares on the relative error, "
      "every coefficient 0 or more. R^2 is "
      "the usual one, on the times; leave-one-out predicts each row from a fit of the others "
      "(largest and median error). A row is a miss when the model is off by more than {}. The "
      "last column fits each P on its own: where those fit and the one across P does not, "
      "alpha and beta themselves change with P (ranks sharing cores do that).\n\n",
      percent(kMissBy));
}

std::string timing(const std::vector<Measurement>& rows) {
  std::map<Group, std::vector<const Measurement*>> groups;
  for (const Measurement& m : rows)
    if (m.check != Check::fail) groups[group_of(m)].push_back(&m);
  const std::string within = "within " + percent(kMissBy);
  MarkdownTable table({"program", "algorithm", "impl", "dtype", "sizes", "alpha (us)",
                       "1/beta (GB/s)", "1/gamma (GB/s)", "R^2", "leave-one-out max, median",
                       "rows " + within, "each P alone: alpha us, 1/beta GB/s, " + within});
  std::string misses;
  // Predicted beside measured: each hand-written algorithm at its largest P, by program.
  std::map<std::string, std::vector<std::pair<const Group*, Fit>>> predicted;
  for (const auto& [g, ms] : groups) {
    std::map<int, std::vector<uint64_t>> missed;  // sizes, by P
    Assessed all = assess(ms, &missed);
    if (g.impl == Impl::hand)
      predicted[fmt::format("{}, {} {}{}", g.program, g.fabric, g.dtype,
                            g.op == "none" ? "" : " " + g.op)]
          .push_back({&g, all.fit});
    std::map<int, std::vector<const Measurement*>> by_P;
    for (const Measurement* m : ms) by_P[m->P].push_back(m);
    std::string each;
    for (const auto& [P, pms] : by_P) {
      Assessed a = assess(pms);
      each += fmt::format("{}P={}: {:.1f}, {}, {}/{}", each.empty() ? "" : "; ", P, a.fit.at(0),
                          per_byte(a.fit, 1), a.within, pms.size());
    }
    const auto [low, high] = std::minmax_element(
        ms.begin(), ms.end(), [](auto* a, auto* b) { return a->bytes < b->bytes; });
    table.add_row(g.program, g.algorithm + over_fabric(g.fabric), name(g.impl), g.dtype,
                  human_bytes((*low)->bytes) + " to " + human_bytes((*high)->bytes),
                  fmt::format("{:.2f}", all.fit.at(0)), per_byte(all.fit, 1), per_byte(all.fit, 2),
                  fmt::format("{:.3f}", all.fit.r2),
                  fmt::format("{:.0f}%, {:.0f}%", all.fit.loo_max * 100, all.fit.loo_median * 100),
                  fmt::format("{} of {}", all.within, ms.size()), each);
    if (missed.empty()) continue;
    misses +=
        fmt::format("- {} {}{} ({}):", g.program, g.algorithm, over_fabric(g.fabric), name(g.impl));
    for (const auto& [P, sizes] : missed) misses += fmt::format(" P={}: {};", P, sizes_list(sizes));
    misses.back() = '\n';
  }
  std::string s = timing_prose() + table.str();
  if (!misses.empty())
    s += fmt::format("\nWhere the model misses by more than {}:\n\n", percent(kMissBy)) + misses;
  return s + predicted_beside_measured(predicted, groups);
}

// sendrecv has two library calls; each hand-written pattern has its own.
const Measurement* library_for(const std::string& algorithm,
                               const std::vector<const Measurement*>& libs) {
  for (const Measurement* l : libs)
    if (algorithm == "exchange" && l->algorithm == "MPI_Isend/MPI_Irecv") return l;
  return libs.front();
}

// One operation at one P: per size, the library's time and busbw (NCCL's
// too, where it ran), then each hand-written algorithm's time over it, its
// busbw and its link bandwidth.
std::string library_table(const std::map<uint64_t, std::vector<const Measurement*>>& by_size,
                          const std::vector<std::string>& hand, bool with_nccl) {
  auto ratio = [](const Measurement* mine, const Measurement* lib) {
    return mine && lib ? median_ratio(*mine, *lib) : std::string("-");
  };
  std::vector<std::string> headings{"N", "library", "median us", "busbw"};
  if (with_nccl) headings.insert(headings.end(), {"NCCL us", "NCCL busbw"});
  for (const auto& h : hand) {
    headings.push_back(h + " / lib");
    if (with_nccl) headings.push_back(h + " / NCCL");
    headings.insert(headings.end(), {h + " busbw", h + " link"});
  }
  MarkdownTable table(headings);
  for (const auto& [bytes, ms] : by_size) {
    std::vector<const Measurement*> libs;  // MPI's own choice (not MPI_Allreduce:ring, forced)
    const Measurement* nccl = nullptr;
    for (const Measurement* m : ms)
      if (m->impl == Impl::nccl)
        nccl = m;
      else if (!m->hand() && m->algorithm.find(':') == std::string::npos)
        libs.push_back(m);
    if (libs.empty()) continue;
    std::vector<std::string> cells{human_bytes(bytes), libs[0]->algorithm,
                                   fmt::format("{:.1f}", libs[0]->t_median_us),
                                   fmt::format("{:.3f}", libs[0]->busbw_GBps)};
    if (with_nccl)
      cells.insert(cells.end(), {nccl ? fmt::format("{:.1f}", nccl->t_median_us) : "-",
                                 nccl ? fmt::format("{:.3f}", nccl->busbw_GBps) : "-"});
    for (const auto& h : hand) {
      auto it = std::find_if(ms.begin(), ms.end(),
                             [&](auto* m) { return m->hand() && m->algorithm == h; });
      const Measurement* mine = it == ms.end() ? nullptr : *it;
      cells.push_back(ratio(mine, library_for(h, libs)));
      if (with_nccl) cells.push_back(ratio(mine, nccl));
      cells.push_back(mine ? fmt::format("{:.3f}", mine->busbw_GBps) : "-");
      cells.push_back(mine && mine->link_GBps ? fmt::format("{:.3f}", *mine->link_GBps) : "-");
    }
    table.add_cells(cells);
  }
  return table.str();
}

std::string against_library(const std::vector<Measurement>& rows) {
  // (program, P, fabric, dtype, op) -> size -> rows
  std::map<std::tuple<std::string, int, std::string, std::string, std::string>,
           std::map<uint64_t, std::vector<const Measurement*>>>
      tables;
  for (const Measurement& m : rows)
    tables[{m.program, m.P, m.fabric(), m.dtype, m.op}][m.bytes].push_back(&m);
  std::string s =
      "Median time of each hand-written algorithm over the library call's on the same data in "
      "the same run (below 1: the hand-written one is faster), with the range the two medians' "
      "95% intervals allow and **noisy** where either interval spans more than 30% of its "
      "median (no interval: fewer than 6 iterations, or rows older than the interval); both bus "
      "bandwidths, and the hand-written one's link bandwidth: what its busiest rank sent or "
      "received, counted, over the time (GB/s, from the mean time, as nccl-tests "
      "defines busbw; busbw assumes the ring's traffic, link does not). On GPU buffers with one "
      "GPU per rank, over NCCL's too.";
  const bool over_others = std::any_of(tables.begin(), tables.end(), [](const auto& t) {
    return !over_fabric(std::get<2>(t.first)).empty();
  });
  if (over_others)
    s += " A heading that names a transport (direct) holds the runs over it; the library's rows "
         "there went through MPI as always, timed in the same runs.";
  s += "\n";
  for (const auto& [key, by_size] : tables) {
    const auto& [program, P, fabric, dtype, op] = key;
    std::vector<std::string> hand;
    bool with_nccl = false;
    int nodes = 0;  // 0: not recorded (files older than the column)
    for (const auto& [bytes, ms] : by_size)
      for (const Measurement* m : ms) {
        with_nccl |= m->impl == Impl::nccl;
        nodes = std::max(nodes, m->nodes.value_or(0));
        if (m->hand() && std::find(hand.begin(), hand.end(), m->algorithm) == hand.end())
          hand.push_back(m->algorithm);
      }
    if (hand.empty()) continue;
    const std::string on =
        nodes == 0 ? "" : fmt::format("; {} node{}", nodes, nodes == 1 ? "" : "s");
    s += fmt::format("\n### {}, P = {} ({}, {}{}{})\n\n{}", program, P, fabric, dtype,
                     op == "none" ? "" : " " + op, on, library_table(by_size, hand, with_nccl));
  }
  return s;
}

}  // namespace

std::vector<double> regressors(const Measurement& m) {
  if (!m.hand() || !m.model_steps || !m.model_critical_path_B) return {1.0, double(m.bytes)};
  // Ranks sharing one GPU over direct access share its memory: a step's
  // fixed cost, every rank's bytes moved in memory, no gamma of its own (the
  // reductions are among those bytes), and a call's own cost (a launch and
  // a host wait: time-model.md), last so that the columns mean what the
  // tables say they do.
  if (m.shares_gpu_memory()) return {double(*m.model_steps), double(*m.memory_moved_B), 0.0, 1.0};
  // Ranks of one node on host buffers share its memory: each step's busiest
  // rank's bytes moved, and every rank's (time-model.md).
  if (m.on_one_node_memory())
    return {double(*m.model_steps), double(*m.model_memory_rank_B), double(*m.model_memory_node_B),
            double(m.bytes)};  // the tier's key (fit_with_tier)
  // On a network of nodes its busiest link, step by step, in place of the
  // busiest port (time-model.md).
  if (m.on_network())
    return {double(*m.model_steps), double(*m.model_link_critical_B),
            double(m.model_reduced_max_B.value_or(0))};
  const bool across = m.nodes.value_or(1) > 1 && m.model_port_critical_B;
  return {double(*m.model_steps),
          double(across ? *m.model_port_critical_B : *m.model_critical_path_B),
          double(m.model_reduced_max_B.value_or(0))};
}

Fit fit_time_model(const std::vector<const Measurement*>& ms) {
  std::vector<std::vector<double>> x;
  std::vector<double> t;
  for (const Measurement* m : ms) x.push_back(regressors(*m)), t.push_back(m->t_median_us);
  // Rows of several widths (one node's beside several nodes', in one sweep
  // of several jobs): fitted at the narrowest, as one model must be, and
  // without the tier, whose key only one node's rows have.
  size_t width = x.empty() ? 0 : x.front().size();
  for (const auto& row : x) width = std::min(width, row.size());
  bool mixed = false;
  for (auto& row : x) mixed |= row.size() != width, row.resize(width);
  const Measurement* first = ms.empty() ? nullptr : ms.front();
  if (!mixed && first && first->on_one_node_memory()) return fit_with_tier(x, t);
  const bool gamma_last =
      first && first->hand() && !first->on_one_node_memory() && !first->shares_gpu_memory();
  return gamma_last ? fit_gamma_where_it_holds(x, t) : fit_nonnegative(x, t);
}

std::string percent(double share) { return fmt::format("{:.3g}%", share * 100); }

Machine read_machine(const std::string& folder) {
  namespace fs = std::filesystem;
  Machine m;
  // The links' ping-pong, when the sweep measured one (bench/sweep.sh):
  // bandwidth at its largest message.
  const fs::path links = fs::path(folder) / "links.csv";
  if (fs::exists(links))
    for (const Measurement& r : read_rows(links.string()))
      if (r.hand() && r.t_avg_us > 0) m.link_GBps = r.bytes / r.t_avg_us / 1e3;
  // bench/machine.sh's "- cpu: NAME, 2 cores".
  std::ifstream md(fs::path(folder) / "machine.md");
  for (std::string line; std::getline(md, line);) {
    const auto end = line.rfind(" cores"), comma = line.rfind(", ", end);
    if (line.rfind("- cpu: ", 0) == 0 && end != std::string::npos && comma != std::string::npos)
      m.cores = std::max(0, std::atoi(line.c_str() + comma + 2));
    // bench/gpu_sweep.sh's "- bandwidth (...), largest size: ... copy 4241.2 GB/s, ...".
    const auto copy = line.find(": copy ");
    if (line.rfind("- bandwidth", 0) == 0 && copy != std::string::npos)
      m.gpu_copy_GBps = std::atof(line.c_str() + copy + 7);
  }
  return m;
}

std::string make_report(const std::vector<Measurement>& rows, const std::string& title,
                        const std::vector<std::string>& failed_cells, const Machine& machine,
                        const Iterations& iterations) {
  const std::string spread = distributions(rows, iterations);
  std::set<std::string> hosts;
  for (const Measurement& m : rows) hosts.insert(m.host);
  std::string on;
  for (const auto& h : hosts) on += (on.empty() ? "" : ", ") + h;
  return fmt::format(
      "# commlab report: {}\n\nMeasured on {}.\n\n{}## Checks\n\n{}\n"
      "## Traffic against the taught formulas\n\n{}\n"
      "## Time: the alpha-beta model\n\n{}\n"
      "## Hand-written against the library\n\n{}\n"
      "## The fastest all-reduce at each size, and the time model's pick\n\n"
      "Each algorithm's time is the median over the runs of its median call; the model's pick "
      "is the least t_model_us (what -a auto chose by, where the rows are auto's).\n{}\n"
      "## -a auto against MPI_Allreduce\n\n"
      "auto's median time over the library's in the same run, with the range the two medians' "
      "95% intervals allow and **noisy** where either row is; the median of those over the runs, "
      "in bold only where every run had intervals (6 iterations or more) and none was "
      "noisy.\n{}{}{}",
      title, on.empty() ? "-" : on, formulas_summary(rows, machine),
      checks(rows) + failed(failed_cells), traffic(rows), timing(rows), against_library(rows),
      fastest_allreduce(rows), auto_against_library(rows), open_mpi_sections(rows),
      spread.empty() ? "" : "\n## Distributions of the timed iterations\n\n" + spread);
}

}  // namespace commlab
