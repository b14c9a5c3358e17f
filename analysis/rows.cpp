#include "rows.hpp"

#include <algorithm>
#include <array>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <tuple>
#include <utility>

#include "core/usage_error.hpp"

// clang-format off
#include <limits>  // before csv.h, which uses std::numeric_limits without including it
#include <libfccp/csv.h>
// clang-format on
#include <fmt/format.h>

#include "core/numbers.hpp"

namespace commlab {

namespace {

// Traffic columns are empty on library rows: read them as text.
std::optional<uint64_t> optional_count(const std::string& text, const char* column,
                                       const std::string& where) {
  if (text.empty()) return std::nullopt;
  if (auto v = whole_number(text)) return v;
  throw ReportError(fmt::format("{}: column {} holds '{}', not a count", where, column, text));
}

std::optional<double> optional_number(const std::string& text, const char* column,
                                      const std::string& where) {
  if (text.empty()) return std::nullopt;
  if (auto v = finite_number(text)) return v;
  throw ReportError(
      fmt::format("{}: column {} holds '{}', not a finite number", where, column, text));
}

// Columns every row has: an empty one is refused, not read as 0, so that a
// fit never sees a time that was not measured; times and rates are 0 or more.
template <class T>
T required(std::optional<T> v, const char* column, const std::string& where) {
  if (!v) throw ReportError(fmt::format("{}: column {} is empty", where, column));
  if (*v < T{0})
    throw ReportError(fmt::format("{}: column {} holds {}, below 0", where, column, *v));
  return *v;
}

// The columns read, in to_measurement's order; the last ones are newer than
// the rest, so a file without them still reads.
constexpr std::array<const char*, 36> kColumns{"program",
                                               "algorithm",
                                               "impl",
                                               "device",
                                               "dtype",
                                               "op",
                                               "P",
                                               "count",
                                               "bytes",
                                               "t_avg_us",
                                               "t_median_us",
                                               "busbw_GBps",
                                               "sent_max_rank_B",
                                               "recv_max_rank_B",
                                               "sent_total_B",
                                               "msgs_total",
                                               "steps",
                                               "model_steps",
                                               "model_critical_path_B",
                                               "taught_formula",
                                               "taught_T_B",
                                               "check",
                                               "note",
                                               "host",
                                               "date",
                                               "t_model_us",
                                               "chose",
                                               "nodes",
                                               "link_GBps",
                                               "port_critical_B",
                                               "model_port_critical_B",
                                               "model_reduced_max_rank_B",
                                               "traffic",
                                               "transport",
                                               "run_transport",
                                               "buffers"};
constexpr size_t kNewer = 11;
constexpr const char* kRunTransportUnknown = "?";        // until name_fabrics finds it
using Cells = std::array<std::string, kColumns.size()>;  // one row, as text

// A cell that names a value (impl, check), read back into the value.
template <class Parse>
auto word(Parse parse, const std::string& cell, const std::string& where) {
  try {
    return parse(cell);
  } catch (const UsageError& e) {
    throw ReportError(where + ": " + e.what());
  }
}

Measurement to_measurement(const Cells& c, const std::string& where) {
  Measurement m;
  m.program = c[0], m.algorithm = c[1], m.device = c[3], m.dtype = c[4], m.op = c[5];
  m.impl = word(parse_impl, c[2], where);
  const uint64_t P = required(optional_count(c[6], "P", where), "P", where);
  if (P < 1 || P > uint64_t(std::numeric_limits<int>::max()))
    throw ReportError(where + ": P must be at least 1");
  m.P = int(P);
  m.count = required(optional_count(c[7], "count", where), "count", where);
  m.bytes = required(optional_count(c[8], "bytes", where), "bytes", where);
  m.t_avg_us = required(optional_number(c[9], "t_avg_us", where), "t_avg_us", where);
  m.t_median_us = required(optional_number(c[10], "t_median_us", where), "t_median_us", where);
  m.busbw_GBps = required(optional_number(c[11], "busbw_GBps", where), "busbw_GBps", where);
  m.sent_max_B = optional_count(c[12], "sent_max_rank_B", where);
  m.recv_max_B = optional_count(c[13], "recv_max_rank_B", where);
  m.sent_total_B = optional_count(c[14], "sent_total_B", where);
  m.msgs = optional_count(c[15], "msgs_total", where);
  m.steps = optional_count(c[16], "steps", where);
  m.model_steps = optional_count(c[17], "model_steps", where);
  m.model_critical_path_B = optional_count(c[18], "model_critical_path_B", where);
  m.taught_formula = c[19];
  m.taught_T_B = optional_number(c[20], "taught_T_B", where);
  m.check = word(parse_check, c[21], where);
  m.note = c[22], m.host = c[23], m.date = c[24];
  m.t_model_us = optional_number(c[25], "t_model_us", where);
  m.chose = c[26];
  if (auto nodes = optional_count(c[27], "nodes", where))
    m.nodes = int(std::min<uint64_t>(*nodes, m.P));
  m.link_GBps = optional_number(c[28], "link_GBps", where);
  m.port_critical_B = optional_count(c[29], "port_critical_B", where);
  m.model_port_critical_B = optional_count(c[30], "model_port_critical_B", where);
  m.model_reduced_max_B = optional_count(c[31], "model_reduced_max_rank_B", where);
  m.traffic = word(parse_traffic_check, c[32], where);
  // The run's transport; in files older than its column, a hand-written
  // row's own is its run's, and a library row's is found by name_fabrics.
  m.run_transport = !c[34].empty() ? c[34] : m.hand() ? c[33] : kRunTransportUnknown;
  m.registered = c[35] == "registered";
  return m;
}

// A library row of a file older than the run_transport column takes the
// transport of the hand-written rows of its run: the same host, start date
// (to the second), program and P; and every row of a run whose hand-written
// rows ran on registered buffers is marked so (the library's own are always
// private). Then the device's usual MPI path is named by the device alone.
void name_fabrics(std::vector<Measurement>& rows) {
  using Run = std::tuple<std::string, std::string, std::string, int>;
  std::map<Run, std::pair<std::string, bool>> runs;  // transport, registered
  for (const Measurement& m : rows)
    if (m.hand()) runs[{m.host, m.date, m.program, m.P}] = {m.run_transport, m.registered};
  for (Measurement& m : rows) {
    std::string& t = m.run_transport;
    auto it = runs.find({m.host, m.date, m.program, m.P});
    if (t == kRunTransportUnknown) t = it == runs.end() ? "" : it->second.first;
    if (it != runs.end()) m.registered = it->second.second;
    if (t == "host" || t == "nccl" || (m.device == "cuda" && t == "staged")) t.clear();
  }
}

void require_columns(const std::string& name, const std::function<bool(const char*)>& has) {
  for (size_t i = 0; i + kNewer < kColumns.size(); ++i)
    if (!has(kColumns[i]))
      throw ReportError(
          fmt::format("{}: no column {} (not a commlab results file?)", name, kColumns[i]));
}

// CSV from a file (streamed, block by block: a results file may be large) or
// from text in memory; fccp's reader takes either.
template <class... Source>
std::vector<Measurement> read_csv(const std::string& name, Source&&... source) {
  std::vector<Measurement> rows;
  try {
    io::CSVReader<kColumns.size(), io::trim_chars<>, io::double_quote_escape<',', '"'>> in(
        std::forward<Source>(source)...);
    std::apply(
        [&](auto... names) {
          in.read_header(io::ignore_extra_column | io::ignore_missing_column, names...);
        },
        kColumns);
    require_columns(name, [&](const char* c) { return in.has_column(c); });
    Cells cells;
    while (std::apply([&](auto&... cell) { return in.read_row(cell...); }, cells)) {
      const int line = static_cast<int>(in.get_file_line());
      rows.push_back(to_measurement(cells, fmt::format("{} line {}", name, line)));
      rows.back().line = line;
    }
  } catch (const io::error::base& e) {
    throw ReportError(e.what());
  }
  name_fabrics(rows);
  return rows;
}

// JSON Lines (--json): one object per line, the same fields; null where the
// CSV cell is empty.
std::vector<Measurement> read_json_lines(const std::string& name, std::istream& in) {
  std::vector<Measurement> rows;
  std::string text;
  for (int line = 1; std::getline(in, text); ++line) {
    if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = fmt::format("{} line {}", name, line);
    nlohmann::json row;
    try {
      row = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
      throw ReportError(fmt::format("{}: not JSON ({})", where, e.what()));
    }
    if (!row.is_object()) throw ReportError(where + ": not a JSON object");
    require_columns(where, [&](const char* c) { return row.contains(c); });
    Cells cells;
    for (size_t i = 0; i < kColumns.size(); ++i) {
      const auto v = row.find(kColumns[i]);
      cells[i] = v == row.end() || v->is_null() ? ""
                 : v->is_string()               ? v->get<std::string>()
                                                : v->dump();
    }
    rows.push_back(to_measurement(cells, where));
    rows.back().line = line;
  }
  name_fabrics(rows);
  return rows;
}

bool looks_like_json(std::istream& in) {
  char first = 0;
  return (in >> std::ws).get(first) && (in.unget(), first == '{');
}

}  // namespace

std::vector<Measurement> read_rows(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ReportError(path + ": cannot be read");
  if (looks_like_json(in)) return read_json_lines(path, in);
  return read_csv(path, path);
}

std::vector<std::vector<std::string>> read_columns(const std::string& path,
                                                   const std::vector<std::string>& names) {
  if (!std::ifstream(path)) throw ReportError(path + ": cannot be read");
  std::vector<std::vector<std::string>> rows;
  // fccp's reader takes its columns at compile time: one pass per column.
  for (size_t k = 0; k < names.size(); ++k) {
    try {
      io::CSVReader<1, io::trim_chars<>, io::double_quote_escape<',', '"'>> in(path);
      in.read_header(io::ignore_extra_column | io::ignore_missing_column, names[k]);
      if (!in.has_column(names[k])) throw ReportError(path + ": no column " + names[k]);
      std::string cell;
      for (size_t r = 0; in.read_row(cell); ++r) {
        if (k == 0) rows.emplace_back(names.size());
        if (r >= rows.size())  // the file grew between two passes
          throw ReportError(path + ": changed while it was read; read it again");
        rows[r][k] = cell;
      }
    } catch (const io::error::base& e) {
      throw ReportError(e.what());
    }
  }
  return rows;
}

std::vector<Measurement> read_rows(const std::string& name, const std::string& text) {
  std::istringstream in(text);
  if (looks_like_json(in)) return read_json_lines(name, in);
  return read_csv(name, name, text.data(), text.data() + text.size());
}

}  // namespace commlab
