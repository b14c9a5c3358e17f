#include "rows.hpp"

#include <array>
#include <tuple>
#include <utility>

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
  throw ReportError(fmt::format("{}: column {} holds '{}', not a finite number", where, column, text));
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

// From a file (streamed, block by block: a results file may be large) or
// from text in memory; fccp's reader takes either.
template <class... Source>
std::vector<Measurement> read(const std::string& name, Source&&... source) {
  std::vector<Measurement> rows;
  try {
    // The columns read, in read_row's order; the last two are newer than the
    // rest, so a file without them still reads.
    constexpr std::array<const char*, 27> kColumns{
        "program", "algorithm", "impl", "device", "dtype", "op", "P", "count", "bytes",
        "t_avg_us", "t_median_us", "busbw_GBps", "sent_max_rank_B", "recv_max_rank_B",
        "sent_total_B", "msgs_total", "steps", "model_steps", "model_critical_path_B",
        "taught_formula", "taught_T_B", "check", "note", "host", "date", "t_model_us", "chose"};
    constexpr size_t kNewer = 2;
    io::CSVReader<kColumns.size(), io::trim_chars<>, io::double_quote_escape<',', '"'>> in(
        std::forward<Source>(source)...);
    std::apply(
        [&](auto... names) {
          in.read_header(io::ignore_extra_column | io::ignore_missing_column, names...);
        },
        kColumns);
    for (size_t i = 0; i + kNewer < kColumns.size(); ++i)
      if (!in.has_column(kColumns[i]))
        throw ReportError(fmt::format("{}: no column {} (not a commlab results file?)", name,
                                      kColumns[i]));
    Measurement m;
    std::string count, bytes, t_avg, t_median, busbw;
    std::string sent, recv, total, msgs, steps, model_steps, critical, taught, t_model;
    while (in.read_row(m.program, m.algorithm, m.impl, m.device, m.dtype, m.op, m.P, count, bytes,
                       t_avg, t_median, busbw, sent, recv, total, msgs, steps, model_steps,
                       critical, m.taught_formula, taught, m.check, m.note, m.host, m.date,
                       t_model, m.chose)) {
      m.line = static_cast<int>(in.get_file_line());
      const std::string where = fmt::format("{} line {}", name, m.line);
      if (m.P < 1) throw ReportError(where + ": P must be at least 1");
      m.count = required(optional_count(count, "count", where), "count", where);
      m.bytes = required(optional_count(bytes, "bytes", where), "bytes", where);
      m.t_avg_us = required(optional_number(t_avg, "t_avg_us", where), "t_avg_us", where);
      m.t_median_us = required(optional_number(t_median, "t_median_us", where), "t_median_us", where);
      m.busbw_GBps = required(optional_number(busbw, "busbw_GBps", where), "busbw_GBps", where);
      m.sent_max_B = optional_count(sent, "sent_max_rank_B", where);
      m.recv_max_B = optional_count(recv, "recv_max_rank_B", where);
      m.sent_total_B = optional_count(total, "sent_total_B", where);
      m.msgs = optional_count(msgs, "msgs_total", where);
      m.steps = optional_count(steps, "steps", where);
      m.model_steps = optional_count(model_steps, "model_steps", where);
      m.model_critical_path_B = optional_count(critical, "model_critical_path_B", where);
      m.taught_T_B = optional_number(taught, "taught_T_B", where);
      m.t_model_us = optional_number(t_model, "t_model_us", where);
      rows.push_back(m);
    }
  } catch (const io::error::base& e) {
    throw ReportError(e.what());
  }
  return rows;
}

}  // namespace

std::vector<Measurement> read_rows(const std::string& path) { return read(path, path); }

std::vector<Measurement> read_rows(const std::string& name, const std::string& text) {
  return read(name, name, text.data(), text.data() + text.size());
}

}  // namespace commlab
