#include "measured.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <numeric>
#include <regex>
#include <set>

#include "analysis/rows.hpp"
#include "common.hpp"
#include "lab/grader/judge.hpp"

namespace commlab::lab {

namespace {

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
// a program printed (saved with tee): A, B or G of each. The probe prints
// "beta -" (or "gamma -") where its larger message timed no slower than the
// smaller one, on a machine too busy to tell: that figure was not measured.
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
      R"(# time model: alpha ([0-9.]+) us, beta (?:1/([0-9.]+) GB/s|-).*gamma (?:1/([0-9.]+) GB/s|-))");
  const int k = figure == "probe_alpha" ? 1 : figure == "probe_bandwidth" ? 2 : 3;
  Figures f;
  int lines = 0;
  std::smatch m;
  for (std::string text; std::getline(in, text);) {
    if (!std::regex_search(text, m, line)) continue;
    ++lines;
    if (m[size_t(k)].matched) f.values.push_back(std::stod(m[size_t(k)].str()));
  }
  const char* name = k == 2 ? "beta" : "gamma";
  if (f.values.empty())
    missing = lines == 0 ? path + " holds no '# time model:' line: run the command again"
                         : fmt::format(
                               "{}'s '# time model:' line says '{} -': the probe could "
                               "not measure it (its larger message took no longer than "
                               "the smaller, on a machine too busy to tell): run the "
                               "command again",
                               path, name);
  return f;
}

}  // namespace

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

namespace {

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

}  // namespace

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

}  // namespace commlab::lab
