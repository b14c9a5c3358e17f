#include "results.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "errors.hpp"

namespace commlab {

namespace {
std::string num(uint64_t v) { return fmt::format("{}", v); }
std::string fixed(double v, int digits) { return fmt::format("{:.{}f}", v, digits); }
template <class T>
std::string opt(const std::optional<T>& v) {
  return v ? fmt::format("{}", *v) : "";
}
// A traffic figure, counted or modelled; empty where there is none (library rows).
std::function<std::string(const Row&)> traffic(std::optional<Traffic> Row::*which,
                                               uint64_t Traffic::*field) {
  return [which, field](const Row& r) { return r.*which ? num((*(r.*which)).*field) : ""; };
}

// The schema: each column's name and how a row fills it, in order.
const std::vector<CsvColumn>& schema() {
  static const std::vector<CsvColumn> columns{
      {"program", [](const Row& r) { return csv_text(r.run->program); }},
      {"algorithm", [](const Row& r) { return csv_text(r.algorithm); }},
      {"impl", [](const Row& r) { return r.impl; }},
      {"device", [](const Row& r) { return r.run->device; }},
      {"dtype", [](const Row& r) { return r.dtype; }},
      {"op", [](const Row& r) { return r.op; }},
      {"P", [](const Row& r) { return num(r.run->P); }},
      {"root", [](const Row& r) { return num(r.run->root); }},
      {"in_place", [](const Row& r) { return std::string(r.run->in_place ? "1" : "0"); }},
      {"count", [](const Row& r) { return num(r.count); }},
      {"bytes", [](const Row& r) { return num(r.bytes); }},
      {"iters", [](const Row& r) { return num(r.run->iters); }},
      {"warmup", [](const Row& r) { return num(r.run->warmup); }},
      {"t_avg_us", [](const Row& r) { return fixed(r.t_avg_us, 3); }},
      {"t_min_us", [](const Row& r) { return fixed(r.t_min_us, 3); }},
      {"t_max_us", [](const Row& r) { return fixed(r.t_max_us, 3); }},
      {"t_median_us", [](const Row& r) { return fixed(r.t_median_us, 3); }},
      {"algbw_GBps", [](const Row& r) { return fixed(r.algbw_GBps, 6); }},
      {"busbw_GBps", [](const Row& r) { return fixed(r.busbw_GBps, 6); }},
      {"sent_max_rank_B", traffic(&Row::counted, &Traffic::sent_max_rank_B)},
      {"recv_max_rank_B", traffic(&Row::counted, &Traffic::recv_max_rank_B)},
      {"sent_total_B", traffic(&Row::counted, &Traffic::sent_total_B)},
      {"msgs_total", traffic(&Row::counted, &Traffic::msgs_total)},
      {"steps", traffic(&Row::counted, &Traffic::steps)},
      {"model_sent_max_rank_B", traffic(&Row::model, &Traffic::sent_max_rank_B)},
      {"model_recv_max_rank_B", traffic(&Row::model, &Traffic::recv_max_rank_B)},
      {"model_sent_total_B", traffic(&Row::model, &Traffic::sent_total_B)},
      {"model_msgs_total", traffic(&Row::model, &Traffic::msgs_total)},
      {"model_steps", traffic(&Row::model, &Traffic::steps)},
      {"model_critical_path_B", traffic(&Row::model, &Traffic::critical_path_B)},
      {"taught_formula", [](const Row& r) { return csv_text(r.taught_formula); }},
      {"taught_T_B", [](const Row& r) { return fixed(r.taught_T_B, 0); }},
      {"wrong", [](const Row& r) { return opt(r.wrong); }},
      {"diff_vs_lib", [](const Row& r) { return opt(r.diff_vs_lib); }},
      {"traffic", [](const Row& r) { return r.traffic; }},
      {"check", [](const Row& r) { return r.check; }},
      {"note", [](const Row& r) { return csv_text(r.note); }},
      {"host", [](const Row& r) { return csv_text(r.run->host); }},
      {"date", [](const Row& r) { return r.run->date; }},
      {"mpi_version", [](const Row& r) { return csv_text(r.run->mpi_version); }},
      {"commlab_version", [](const Row& r) { return csv_text(r.run->commlab_version); }},
      {"transport", [](const Row& r) { return r.transport; }},
      {"t_model_us", [](const Row& r) { return r.t_model_us ? fixed(*r.t_model_us, 3) : ""; }},
      {"chose", [](const Row& r) { return r.chose; }},
  };
  return columns;
}
}  // namespace

const std::vector<std::string>& csv_columns() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const CsvColumn& c : schema()) v.push_back(c.name);
    return v;
  }();
  return names;
}

std::string csv_header() { return csv_header(schema()); }

std::string csv_line(const Row& r) { return csv_line(schema(), r); }

std::string csv_text(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c == '\n' ? ' ' : c);
  return q + "\"";
}

CsvFile::CsvFile(const std::string& path, const std::string& header, const std::string& flag)
    : path_(path), header_(header), flag_(flag) {
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_APPEND, 0644);
  if (fd_ < 0) throw UsageError(flag + " " + path + ": " + std::strerror(errno));
  // Rows go after the last whole line, under this version's header; a file
  // that ends mid-line (cut short, or edited) would glue the first new row
  // onto its last one, so it is refused, like one with other columns.
  std::string first(header.size() + 1, '\0');
  struct stat st {};
  char last = '\n';
  const bool regular = ::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode);
  const ssize_t got = regular ? ::pread(fd_, first.data(), first.size(), 0) : 0;
  if (got > 0 && ::pread(fd_, &last, 1, st.st_size - 1) != 1) last = '\0';
  first.resize(got > 0 ? size_t(got) : 0);
  std::string why;
  if (last != '\n')
    why = " does not end with a newline (cut short, or edited); end its last line or use a new file";
  else if (!first.empty() && first != header + "\n")
    why = " holds other columns than this version writes; use a new file";
  if (!why.empty()) {
    ::close(fd_);
    fd_ = -1;
    throw UsageError(flag + " " + path + why);
  }
  need_header_ = first.empty();
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
