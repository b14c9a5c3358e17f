// One measured row, its CSV schema (stable: documented in README.md) and the
// append-only writer. A row is formatted whole and written with one write(2),
// so an interrupted run never leaves half a row behind.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "traffic.hpp"

namespace commlab {

struct RunInfo {  // the same for every row of one run
  std::string program, device, host, date, mpi_version, commlab_version;
  int P = 1, root = 0, iters = 0, warmup = 0;
  bool in_place = false;
  std::string transport = "host";  // of hand-written and MPI rows: host | staged | cuda-aware
};

struct Row {
  const RunInfo* run = nullptr;
  std::string algorithm, impl, dtype, op;
  uint64_t count = 0, bytes = 0;
  double t_avg_us = 0, t_min_us = 0, t_max_us = 0, t_median_us = 0;
  double algbw_GBps = 0, busbw_GBps = 0;
  std::optional<Traffic> counted, model;
  std::string taught_formula;
  double taught_T_B = 0;
  std::optional<uint64_t> wrong, diff_vs_lib;
  std::string traffic;             // exact | DIFFERS | empty for library rows
  std::string check;               // ok | FAIL | off
  std::string note;                // first mismatch, or why something was skipped
  std::string transport = "host";  // GPU data: staged | cuda-aware | nccl
  std::optional<double> t_model_us;  // the time model's prediction (time_model.hpp)
  std::string chose;                 // -a auto: the algorithm it ran
};

// A CSV schema is one table: each column's name and how a record fills it.
template <class Record>
struct Column {
  const char* name;
  std::function<std::string(const Record&)> cell;
};
using CsvColumn = Column<Row>;
template <class Record>
std::string csv_header(const std::vector<Column<Record>>& schema) {
  std::string s;
  for (size_t i = 0; i < schema.size(); ++i) s += (i ? "," : "") + std::string(schema[i].name);
  return s;
}
template <class Record>
std::string csv_line(const std::vector<Column<Record>>& schema, const Record& r) {
  std::string s;
  for (size_t i = 0; i < schema.size(); ++i) s += (i ? "," : "") + schema[i].cell(r);
  return s + "\n";
}

// The programs' rows.
const std::vector<std::string>& csv_columns();
std::string csv_header();
std::string csv_line(const Row& r);
// A cell: quoted when it holds a comma, a quote or a newline.
std::string csv_text(const std::string& s);

// Opens FILE for appending (creating it with `header`), or throws
// UsageError, naming `flag`, when it cannot be written or holds a different
// header. Every append is one write(2): whole lines or nothing.
class CsvFile {
 public:
  CsvFile() = default;
  explicit CsvFile(const std::string& path, const std::string& header = csv_header(),
                   const std::string& flag = "--csv");
  ~CsvFile();
  CsvFile(const CsvFile&) = delete;
  CsvFile& operator=(CsvFile&& o) noexcept;
  bool is_open() const { return fd_ >= 0; }
  void append(const std::vector<Row>& rows);
  void append_lines(const std::string& lines);  // each ending in a newline

 private:
  std::string path_, header_, flag_;
  int fd_ = -1;
  bool need_header_ = false;
};

}  // namespace commlab
