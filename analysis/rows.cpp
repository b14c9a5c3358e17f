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

#include "core/vocabulary/usage_error.hpp"

// clang-format off
#include <limits>  // before csv.h, which uses std::numeric_limits without including it
#include <libfccp/csv.h>
// clang-format on
#include <fmt/format.h>

#include "core/vocabulary/columns.hpp"
#include "core/vocabulary/numbers.hpp"

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

// columns.def's names as a tuple, for fccp's reader, which takes them one argument each.
template <size_t... I>
auto names_of(std::index_sequence<I...>) {
  return std::make_tuple(kColumns[I].name...);
}
auto column_names() { return names_of(std::make_index_sequence<kColumnCount>{}); }

constexpr const char* kRunTransportUnknown = "?";     // until name_fabrics finds it
using Cells = std::array<std::string, kColumnCount>;  // one row, as text, in columns.def's order

// A cell that names a value (impl, check), read back into the value.
template <class Parse>
auto word(Parse parse, const std::string& cell, const std::string& where) {
  try {
    return parse(cell);
  } catch (const UsageError& e) {
    throw ReportError(where + ": " + e.what());
  }
}

// One row's cells, read by column. Every cell is first held to its column's
// kind (columns.def), whether or not the report uses it.
class RowCells {
 public:
  RowCells(const Cells& c, const std::string& where) : c_(c), where_(where) {
    for (size_t i = 0; i < kColumnCount; ++i) {
      if (kColumns[i].kind == Kind::integer) optional_count(c_[i], kColumns[i].name, where_);
      if (kColumns[i].kind == Kind::real) optional_number(c_[i], kColumns[i].name, where_);
    }
  }
  const std::string& text(Col k) const { return c_[size_t(k)]; }
  std::optional<uint64_t> count(Col k) const {
    return optional_count(text(k), spec(k).name, where_);
  }
  std::optional<double> number(Col k) const {
    return optional_number(text(k), spec(k).name, where_);
  }
  uint64_t required_count(Col k) const { return required(count(k), spec(k).name, where_); }
  double required_number(Col k) const { return required(number(k), spec(k).name, where_); }
  const std::string& where() const { return where_; }

 private:
  const Cells& c_;
  const std::string& where_;
};

Measurement to_measurement(const RowCells& c) {
  Measurement m;
  m.program = c.text(Col::program), m.algorithm = c.text(Col::algorithm);
  m.device = c.text(Col::device), m.dtype = c.text(Col::dtype), m.op = c.text(Col::op);
  m.impl = word(parse_impl, c.text(Col::impl), c.where());
  const uint64_t P = c.required_count(Col::P);
  if (P < 1 || P > uint64_t(std::numeric_limits<int>::max()))
    throw ReportError(c.where() + ": P must be at least 1");
  m.P = int(P);
  m.count = c.required_count(Col::count);
  m.bytes = c.required_count(Col::bytes);
  m.t_avg_us = c.required_number(Col::t_avg_us);
  m.t_median_us = c.required_number(Col::t_median_us);
  m.busbw_GBps = c.required_number(Col::busbw_GBps);
  m.sent_max_B = c.count(Col::sent_max_rank_B);
  m.recv_max_B = c.count(Col::recv_max_rank_B);
  m.sent_total_B = c.count(Col::sent_total_B);
  m.msgs = c.count(Col::msgs_total);
  m.steps = c.count(Col::steps);
  m.model_steps = c.count(Col::model_steps);
  m.model_critical_path_B = c.count(Col::model_critical_path_B);
  m.taught_formula = c.text(Col::taught_formula);
  m.taught_T_B = c.number(Col::taught_T_B);
  m.check = word(parse_check, c.text(Col::check), c.where());
  m.note = c.text(Col::note), m.host = c.text(Col::host), m.date = c.text(Col::date);
  m.mpi_version = c.text(Col::mpi_version);
  m.t_model_us = c.number(Col::t_model_us);
  m.chose = c.text(Col::chose);
  if (auto nodes = c.count(Col::nodes)) m.nodes = int(std::min<uint64_t>(*nodes, m.P));
  m.link_GBps = c.number(Col::link_GBps);
  m.port_critical_B = c.count(Col::port_critical_B);
  m.model_port_critical_B = c.count(Col::model_port_critical_B);
  m.model_reduced_max_B = c.count(Col::model_reduced_max_rank_B);
  m.model_memory_rank_B = c.count(Col::model_memory_rank_B);
  m.model_memory_node_B = c.count(Col::model_memory_node_B);
  m.network = c.text(Col::network);
  m.link_critical_B = c.count(Col::link_critical_B);
  m.model_link_critical_B = c.count(Col::model_link_critical_B);
  m.hop_B = c.count(Col::hop_B), m.model_hop_B = c.count(Col::model_hop_B);
  m.links_sent_B = c.count(Col::links_sent_B);
  m.memory_moved_B = c.count(Col::memory_moved_B);
  if (auto k = c.count(Col::ranks_per_gpu)) m.ranks_per_gpu = int(std::min<uint64_t>(*k, m.P));
  m.p90_us = c.number(Col::t_p90_us), m.p99_us = c.number(Col::t_p99_us);
  m.ci_lo_us = c.number(Col::t_median_ci_lo_us), m.ci_hi_us = c.number(Col::t_median_ci_hi_us);
  m.rank_spread = c.number(Col::rank_spread), m.slowest_share = c.number(Col::slowest_share);
  if (auto r = c.count(Col::slowest_rank)) m.slowest_rank = int(std::min<uint64_t>(*r, m.P - 1));
  if (auto r = c.count(Col::late_rank)) m.late_rank = int(std::min<uint64_t>(*r, m.P - 1));
  m.late_share = c.number(Col::late_share), m.arrival_skew_us = c.number(Col::arrival_skew_us);
  m.arrival_skew_p99_us = c.number(Col::arrival_skew_p99_us);
  m.busy_at_start = c.number(Col::busy_at_start);
  if (auto k = c.count(Col::cores_per_node))
    m.cores_per_node = int(std::min<uint64_t>(*k, 1 << 20));
  m.traffic = word(parse_traffic_check, c.text(Col::traffic), c.where());
  // The run's transport; in files older than its column, a hand-written
  // row's own is its run's, and a library row's is found by name_fabrics.
  const std::string& run = c.text(Col::run_transport);
  m.run_transport = !run.empty() ? run : m.hand() ? c.text(Col::transport) : kRunTransportUnknown;
  m.registered = c.text(Col::buffers) == "registered";
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
  for (const ColumnSpec& c : kColumns)
    if (c.age == Age::every && !has(c.name))
      throw ReportError(
          fmt::format("{}: no column {} (not a commlab results file?)", name, c.name));
}

// CSV from a file (streamed, block by block: a results file may be large) or
// from text in memory; fccp's reader takes either.
template <class... Source>
std::vector<Measurement> read_csv(const std::string& name, Source&&... source) {
  std::vector<Measurement> rows;
  try {
    io::CSVReader<kColumnCount, io::trim_chars<>, io::double_quote_escape<',', '"'>> in(
        std::forward<Source>(source)...);
    std::apply(
        [&](auto... names) {
          in.read_header(io::ignore_extra_column | io::ignore_missing_column, names...);
        },
        column_names());
    require_columns(name, [&](const char* c) { return in.has_column(c); });
    Cells cells;
    while (std::apply([&](auto&... cell) { return in.read_row(cell...); }, cells)) {
      const int line = static_cast<int>(in.get_file_line());
      const std::string where = fmt::format("{} line {}", name, line);
      rows.push_back(to_measurement(RowCells(cells, where)));
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
    for (size_t i = 0; i < kColumnCount; ++i) {
      const auto v = row.find(kColumns[i].name);
      cells[i] = v == row.end() || v->is_null() ? ""
                 : v->is_string()               ? v->get<std::string>()
                                                : v->dump();
    }
    rows.push_back(to_measurement(RowCells(cells, where)));
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

std::string median_ratio(const Measurement& a, const Measurement& b) {
  if (b.t_median_us <= 0) return "-";
  std::string s = fmt::format("{:.2f}", a.t_median_us / b.t_median_us);
  if (a.ci_lo_us && a.ci_hi_us && b.ci_lo_us && b.ci_hi_us && *b.ci_lo_us > 0)
    s += fmt::format(" [{:.2f}, {:.2f}]", *a.ci_lo_us / *b.ci_hi_us, *a.ci_hi_us / *b.ci_lo_us);
  if (!a.has_interval() || !b.has_interval()) return s + " (no interval)";
  return s + (a.noisy() || b.noisy() ? " **noisy**" : "");
}

}  // namespace commlab
