#include "results.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "errors.hpp"

namespace commlab {

const std::vector<std::string>& csv_columns() {
  static const std::vector<std::string> cols{"program",
                                             "algorithm",
                                             "impl",
                                             "device",
                                             "dtype",
                                             "op",
                                             "P",
                                             "root",
                                             "in_place",
                                             "count",
                                             "bytes",
                                             "iters",
                                             "warmup",
                                             "t_avg_us",
                                             "t_min_us",
                                             "t_max_us",
                                             "t_median_us",
                                             "algbw_GBps",
                                             "busbw_GBps",
                                             "sent_max_rank_B",
                                             "recv_max_rank_B",
                                             "sent_total_B",
                                             "msgs_total",
                                             "steps",
                                             "model_sent_max_rank_B",
                                             "model_recv_max_rank_B",
                                             "model_sent_total_B",
                                             "model_msgs_total",
                                             "model_steps",
                                             "model_critical_path_B",
                                             "taught_formula",
                                             "taught_T_B",
                                             "wrong",
                                             "diff_vs_lib",
                                             "traffic",
                                             "check",
                                             "note",
                                             "host",
                                             "date",
                                             "mpi_version",
                                             "commlab_version",
                                             "transport"};
  return cols;
}

std::string csv_header() {
  std::string s;
  for (const auto& c : csv_columns()) s += (s.empty() ? "" : ",") + c;
  return s;
}

std::string csv_text(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c == '\n' ? ' ' : c);
  return q + "\"";
}

namespace {
template <class T>
std::string opt(const std::optional<T>& v) {
  return v ? fmt::format("{}", *v) : "";
}
void add_traffic(std::vector<std::string>& cells, const std::optional<Traffic>& t,
                 bool with_critical) {
  auto cell = [&](uint64_t Traffic::*field) {
    cells.push_back(t ? fmt::format("{}", (*t).*field) : "");
  };
  for (auto field : {&Traffic::sent_max_rank_B, &Traffic::recv_max_rank_B, &Traffic::sent_total_B,
                     &Traffic::msgs_total, &Traffic::steps})
    cell(field);
  if (with_critical) cell(&Traffic::critical_path_B);
}
}  // namespace

std::string csv_line(const Row& r) {
  const RunInfo& i = *r.run;
  std::vector<std::string> c{csv_text(i.program),
                             csv_text(r.algorithm),
                             r.impl,
                             i.device,
                             r.dtype,
                             r.op,
                             fmt::format("{}", i.P),
                             fmt::format("{}", i.root),
                             i.in_place ? "1" : "0",
                             fmt::format("{}", r.count),
                             fmt::format("{}", r.bytes),
                             fmt::format("{}", i.iters),
                             fmt::format("{}", i.warmup)};
  for (double t : {r.t_avg_us, r.t_min_us, r.t_max_us, r.t_median_us})
    c.push_back(fmt::format("{:.3f}", t));
  c.push_back(fmt::format("{:.6f}", r.algbw_GBps));
  c.push_back(fmt::format("{:.6f}", r.busbw_GBps));
  add_traffic(c, r.counted, false);
  add_traffic(c, r.model, true);
  for (std::string s :
       {csv_text(r.taught_formula), fmt::format("{:.0f}", r.taught_T_B), opt(r.wrong),
        opt(r.diff_vs_lib), r.traffic, r.check, csv_text(r.note), csv_text(i.host), i.date,
        csv_text(i.mpi_version), csv_text(i.commlab_version), r.transport})
    c.push_back(std::move(s));
  return fmt::format("{}\n", fmt::join(c, ","));
}

CsvFile::CsvFile(const std::string& path, const std::string& header, const std::string& flag)
    : path_(path), header_(header), flag_(flag) {
  std::ifstream in(path);
  std::string first;
  if (in && std::getline(in, first) && !first.empty() && first != header)
    throw UsageError(flag + " " + path +
                     " holds other columns than this version writes; use a new file");
  need_header_ = first.empty();
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd_ < 0) throw UsageError(flag + " " + path + ": " + std::strerror(errno));
}

CsvFile& CsvFile::operator=(CsvFile&& o) noexcept {
  std::swap(path_, o.path_);
  std::swap(fd_, o.fd_);
  std::swap(header_, o.header_);
  std::swap(flag_, o.flag_);
  std::swap(need_header_, o.need_header_);
  return *this;
}

CsvFile::~CsvFile() {
  if (fd_ >= 0) ::close(fd_);
}

void CsvFile::append(const std::vector<Row>& rows) {
  std::string lines;
  for (const Row& r : rows) lines += csv_line(r);
  append_lines(lines);
}

void CsvFile::append_lines(const std::string& lines) {
  if (fd_ < 0 || lines.empty()) return;
  std::string block = (need_header_ ? header_ + "\n" : "") + lines;
  ssize_t n = ::write(fd_, block.data(), block.size());
  if (n != static_cast<ssize_t>(block.size()))
    throw std::runtime_error(flag_ + " " + path_ + ": write failed: " + std::strerror(errno));
  need_header_ = false;
}

}  // namespace commlab
