#include "results.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <utility>

#include "core/comm/errors.hpp"

namespace commlab {

namespace {
std::string num(uint64_t v) { return fmt::format("{}", v); }
std::string fixed(double v, int digits) { return fmt::format("{:.{}f}", v, digits); }
template <class T>
std::string opt(const std::optional<T>& v) {
  return v ? fmt::format("{}", *v) : "";
}
std::string real(const std::optional<double>& v, int digits) { return v ? fixed(*v, digits) : ""; }
// A traffic figure, counted or modelled; empty where there is none (library rows).
std::function<std::string(const Row&)> traffic(std::optional<Traffic> Row::*which,
                                               uint64_t Traffic::*field) {
  return [which, field](const Row& r) { return r.*which ? num((*(r.*which)).*field) : ""; };
}
// An --overlap figure; empty on a blocking row.
std::function<std::string(const Row&)> overlap(double OverlapFigures::*field) {
  return [field](const Row& r) { return r.overlap ? fixed((*r.overlap).*field, 3) : ""; };
}

using Cell = std::function<std::string(const Row&)>;

// How a row fills each column of columns.def, in its order.
const std::vector<std::pair<Col, Cell>>& cells() {
  static const std::vector<std::pair<Col, Cell>> columns{
      {Col::program, [](const Row& r) { return r.run->program; }},
      {Col::algorithm, [](const Row& r) { return r.algorithm; }},
      {Col::impl, [](const Row& r) { return name(r.impl); }},
      {Col::device, [](const Row& r) { return r.run->device; }},
      {Col::dtype, [](const Row& r) { return r.dtype; }},
      {Col::op, [](const Row& r) { return r.op; }},
      {Col::P, [](const Row& r) { return num(r.run->P); }},
      {Col::root, [](const Row& r) { return num(r.run->root); }},
      {Col::in_place, [](const Row& r) { return std::string(r.run->in_place ? "1" : "0"); }},
      {Col::count, [](const Row& r) { return num(r.count); }},
      {Col::bytes, [](const Row& r) { return num(r.bytes); }},
      {Col::iters, [](const Row& r) { return num(r.iters); }},
      {Col::warmup, [](const Row& r) { return num(r.run->warmup); }},
      {Col::t_avg_us, [](const Row& r) { return fixed(r.t_avg_us, 3); }},
      {Col::t_min_us, [](const Row& r) { return fixed(r.t_min_us, 3); }},
      {Col::t_max_us, [](const Row& r) { return fixed(r.t_max_us, 3); }},
      {Col::t_median_us, [](const Row& r) { return fixed(r.t_median_us, 3); }},
      {Col::algbw_GBps, [](const Row& r) { return fixed(r.algbw_GBps, 6); }},
      {Col::busbw_GBps, [](const Row& r) { return fixed(r.busbw_GBps, 6); }},
      {Col::sent_max_rank_B, traffic(&Row::counted, &Traffic::sent_max_rank_B)},
      {Col::recv_max_rank_B, traffic(&Row::counted, &Traffic::recv_max_rank_B)},
      {Col::sent_total_B, traffic(&Row::counted, &Traffic::sent_total_B)},
      {Col::msgs_total, traffic(&Row::counted, &Traffic::msgs_total)},
      {Col::steps, traffic(&Row::counted, &Traffic::steps)},
      {Col::model_sent_max_rank_B, traffic(&Row::model, &Traffic::sent_max_rank_B)},
      {Col::model_recv_max_rank_B, traffic(&Row::model, &Traffic::recv_max_rank_B)},
      {Col::model_sent_total_B, traffic(&Row::model, &Traffic::sent_total_B)},
      {Col::model_msgs_total, traffic(&Row::model, &Traffic::msgs_total)},
      {Col::model_steps, traffic(&Row::model, &Traffic::steps)},
      {Col::model_critical_path_B, traffic(&Row::model, &Traffic::critical_path_B)},
      {Col::taught_formula, [](const Row& r) { return r.taught_formula; }},
      // Empty where no formula is taught (the library's rows, most operations).
      {Col::taught_T_B,
       [](const Row& r) {
         return r.taught_formula.empty() ? std::string() : fixed(r.taught_T_B, 0);
       }},
      {Col::wrong, [](const Row& r) { return opt(r.wrong); }},
      {Col::diff_vs_lib, [](const Row& r) { return opt(r.diff_vs_lib); }},
      {Col::traffic, [](const Row& r) { return name(r.traffic); }},
      {Col::check, [](const Row& r) { return name(r.check); }},
      {Col::note, [](const Row& r) { return r.note; }},
      {Col::host, [](const Row& r) { return r.run->host; }},
      {Col::date, [](const Row& r) { return r.run->date; }},
      {Col::mpi_version, [](const Row& r) { return r.run->mpi_version; }},
      {Col::commlab_version, [](const Row& r) { return r.run->commlab_version; }},
      // NCCL's rows went through NCCL, MPI's through MPI, the others the run's transport.
      {Col::transport,
       [](const Row& r) {
         if (r.impl == Impl::nccl) return std::string("nccl");
         if (r.impl == Impl::mpi && r.run->transport == TransportKind::direct)
           return name(TransportKind::host);
         return name(r.run->transport);
       }},
      {Col::t_model_us, [](const Row& r) { return r.t_model_us ? fixed(*r.t_model_us, 3) : ""; }},
      {Col::chose, [](const Row& r) { return r.chose; }},
      {Col::nodes, [](const Row& r) { return num(r.run->placement.nodes); }},
      {Col::ranks_per_node, [](const Row& r) { return num(r.run->placement.ranks_max); }},
      {Col::hosts, [](const Row& r) { return r.run->placement.hosts; }},
      {Col::link_GBps, [](const Row& r) { return r.link_GBps ? fixed(*r.link_GBps, 6) : ""; }},
      {Col::port_critical_B, traffic(&Row::counted, &Traffic::port_critical_B)},
      {Col::model_port_critical_B, traffic(&Row::model, &Traffic::port_critical_B)},
      {Col::model_reduced_max_rank_B, traffic(&Row::model, &Traffic::reduced_max_rank_B)},
      // The direct transport: bytes a rank read from peers' memory, wrote
      // into it (counted, and the model's), and whether the user's buffers
      // were copied into registered ones inside the timed call.
      {Col::peer_read_max_rank_B, traffic(&Row::counted, &Traffic::peer_read_max_rank_B)},
      {Col::peer_written_max_rank_B, traffic(&Row::counted, &Traffic::peer_written_max_rank_B)},
      {Col::model_peer_read_max_rank_B, traffic(&Row::model, &Traffic::peer_read_max_rank_B)},
      {Col::model_peer_written_max_rank_B, traffic(&Row::model, &Traffic::peer_written_max_rank_B)},
      {Col::buffers, [](const Row& r) { return name(r.buffers); }},
      {Col::memory_moved_B, [](const Row& r) { return opt(r.memory_moved_B); }},
      {Col::memory_GBps,
       [](const Row& r) { return r.memory_GBps ? fixed(*r.memory_GBps, 6) : ""; }},
      // The run's own transport, on the library's rows too: what the report
      // keeps a run's rows together by (`transport` says how each row's bytes moved).
      {Col::run_transport, [](const Row& r) { return name(r.run->transport); }},
      {Col::gpu_launches, [](const Row& r) { return opt(r.gpu_launches); }},
      {Col::gpu_host_waits, [](const Row& r) { return opt(r.gpu_host_waits); }},
      {Col::ranks_per_gpu,
       [](const Row& r) { return r.run->ranks_per_gpu ? num(r.run->ranks_per_gpu) : ""; }},
      {Col::t_p90_us, [](const Row& r) { return real(r.t_p90_us, 3); }},
      {Col::t_p99_us, [](const Row& r) { return real(r.t_p99_us, 3); }},
      {Col::t_median_ci_lo_us, [](const Row& r) { return real(r.t_median_ci_lo_us, 3); }},
      {Col::t_median_ci_hi_us, [](const Row& r) { return real(r.t_median_ci_hi_us, 3); }},
      {Col::rank_spread, [](const Row& r) { return real(r.rank_spread, 4); }},
      {Col::slowest_rank, [](const Row& r) { return opt(r.slowest_rank); }},
      {Col::slowest_share, [](const Row& r) { return real(r.slowest_share, 4); }},
      {Col::busy_at_start, [](const Row& r) { return fixed(r.run->busy_at_start, 3); }},
      {Col::cores_per_node, [](const Row& r) { return num(r.run->cores_per_node); }},
      // Over the nodes' network (COMMLAB_TOPOLOGY): the busiest link's bytes
      // step by step, and the hop-bytes, counted and the model's.
      {Col::network, [](const Row& r) { return r.run->network; }},
      {Col::link_critical_B, traffic(&Row::counted, &Traffic::link_critical_B)},
      {Col::model_link_critical_B, traffic(&Row::model, &Traffic::link_critical_B)},
      {Col::hop_B, traffic(&Row::counted, &Traffic::hop_B)},
      {Col::model_hop_B, traffic(&Row::model, &Traffic::hop_B)},
      // What the links' own counters say they sent (harness/link_counters.hpp).
      {Col::links_sent_B, [](const Row& r) { return opt(r.links_sent_B); }},
      {Col::late_rank, [](const Row& r) { return opt(r.late_rank); }},
      {Col::late_share, [](const Row& r) { return real(r.late_share, 4); }},
      {Col::arrival_skew_us, [](const Row& r) { return real(r.arrival_skew_us, 3); }},
      {Col::arrival_skew_p99_us, [](const Row& r) { return real(r.arrival_skew_p99_us, 3); }},
      {Col::clock_error_us, [](const Row& r) { return real(r.clock_error_us, 3); }},
      {Col::rank_mean_min_us, [](const Row& r) { return real(r.rank_mean_min_us, 3); }},
      {Col::rank_mean_avg_us, [](const Row& r) { return real(r.rank_mean_avg_us, 3); }},
      {Col::rank_mean_max_us, [](const Row& r) { return real(r.rank_mean_max_us, 3); }},
      {Col::model_memory_rank_B,
       [](const Row& r) { return r.memory ? num(r.memory->rank_B) : ""; }},
      {Col::model_memory_node_B,
       [](const Row& r) { return r.memory ? num(r.memory->node_B) : ""; }},
      {Col::copy_alone_GBps, [](const Row& r) { return real(r.copy_alone_GBps, 3); }},
      {Col::copy_together_GBps, [](const Row& r) { return real(r.copy_together_GBps, 3); }},
      // --overlap: OSU's figures, IMB-NBC's, the model's (harness/overlap.hpp).
      {Col::probes, [](const Row& r) { return r.overlap ? num(r.overlap->probes) : ""; }},
      {Col::rounds, [](const Row& r) { return r.overlap ? opt(r.overlap->rounds) : ""; }},
      {Col::t_pure_us, overlap(&OverlapFigures::t_pure_us)},
      {Col::t_cpu_us, overlap(&OverlapFigures::t_cpu_us)},
      {Col::t_test_us, overlap(&OverlapFigures::t_test_us)},
      {Col::t_overlap_us, overlap(&OverlapFigures::t_overlap_us)},
      {Col::overlap_pct, overlap(&OverlapFigures::overlap_pct)},
      {Col::overlap_imb_pct, overlap(&OverlapFigures::overlap_imb_pct)},
      {Col::model_overlap_pct,
       [](const Row& r) { return r.overlap ? real(r.overlap->model_overlap_pct, 2) : ""; }},
      {Col::pml, [](const Row& r) { return r.run->pml; }},
  };
  return columns;
}

// The schema: each column's name and kind from columns.def, and its cell.
// A column filled out of order, twice or not at all is a mistake in this
// file; csv_test writes a row through every column to show there is none.
const std::vector<CsvColumn>& schema() {
  static const std::vector<CsvColumn> columns = [] {
    std::vector<CsvColumn> v;
    for (const auto& [col, cell] : cells()) {
      if (size_t(col) != v.size())
        throw std::logic_error(
            fmt::format("harness/results.cpp fills column {} out of the order of "
                        "columns.def",
                        spec(col).name));
      v.push_back({spec(col).name, cell, spec(col).kind});
    }
    if (v.size() != kColumnCount)
      throw std::logic_error("harness/results.cpp fills fewer columns than columns.def lists");
    return v;
  }();
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

std::string times_header() {
  return "program,algorithm,impl,dtype,op,count,bytes,P,rank,iteration,t_us,host,date,arrival_us";
}

std::string times_lines(const Row& r) {
  std::string s;
  const std::string head =
      fmt::format("{},{},{},{},{},{},{},{}", csv_text(r.run->program), csv_text(r.algorithm),
                  name(r.impl), r.dtype, r.op, r.count, r.bytes, r.run->P);
  for (size_t rank = 0; rank < r.iteration_times.size(); ++rank)
    for (size_t i = 0; i < r.iteration_times[rank].size(); ++i)
      s += fmt::format("{},{},{},{:.3f},{},{},{}\n", head, rank, i, r.iteration_times[rank][i],
                       csv_text(r.run->host), r.run->date,
                       rank < r.iteration_late_us.size() && i < r.iteration_late_us[rank].size()
                           ? fmt::format("{:.3f}", r.iteration_late_us[rank][i])
                           : "");
  return s;
}

std::string json_line(const Row& r) {
  nlohmann::ordered_json row;
  for (const CsvColumn& c : schema()) {
    const std::string cell = c.cell(r);
    if (c.kind == Kind::text)
      row[c.name] = cell;
    else if (cell.empty())
      row[c.name] = nullptr;  // e.g. the traffic of a library row
    else if (c.kind == Kind::integer)
      row[c.name] = std::stoull(cell);
    else
      row[c.name] = std::stod(cell);
  }
  return row.dump() + "\n";
}

std::string Placement::line() const {
  const std::string ranks = ranks_min == ranks_max ? fmt::format("{}", ranks_max)
                                                   : fmt::format("{}-{}", ranks_min, ranks_max);
  return fmt::format("{} node{} x {} rank{}: {}", nodes, nodes == 1 ? "" : "s", ranks,
                     ranks_max == 1 ? "" : "s", hosts);
}

namespace {
// "n07" -> {"n", "07"}: a name's text and its trailing number.
std::pair<std::string, std::string> split_number(const std::string& name) {
  size_t i = name.size();
  while (i > 0 && std::isdigit(static_cast<unsigned char>(name[i - 1]))) --i;
  return {name.substr(0, i), name.substr(i)};
}
}  // namespace

std::string compress_hosts(std::vector<std::string> names) {
  // Numbered names of one prefix make a range list, each name once, in
  // numeric order: n9 and n10 give n[9-10]. Zero-padded ones keep their
  // width (gpu07, gpu10: gpu[07,10]); a shorter unpadded one stays apart.
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  std::map<std::string, size_t> padded_width;  // by prefix
  for (const std::string& n : names) {
    auto [prefix, digits] = split_number(n);
    if (digits.size() > 1 && digits[0] == '0') padded_width[prefix] = digits.size();
  }
  std::map<std::pair<std::string, size_t>, std::vector<uint64_t>> numbered;
  std::vector<std::string> plain;
  for (const std::string& n : names) {
    auto [prefix, digits] = split_number(n);
    const size_t width = padded_width.count(prefix) ? padded_width[prefix] : 0;
    if (digits.empty() || digits.size() > 18)
      plain.push_back(n);
    else
      numbered[{prefix, digits.size() >= width ? width : 0}].push_back(std::stoull(digits));
  }
  std::vector<std::string> parts = plain;
  for (auto& [key, numbers] : numbered) {
    std::sort(numbers.begin(), numbers.end());
    const auto& [prefix, width] = key;
    auto text = [w = std::max<size_t>(width, 1)](uint64_t v) {
      return fmt::format("{:0{}}", v, w);
    };
    std::string ranges;
    for (size_t i = 0; i < numbers.size();) {
      size_t j = i;
      while (j + 1 < numbers.size() && numbers[j + 1] == numbers[j] + 1) ++j;
      ranges +=
          (ranges.empty() ? "" : ",") + text(numbers[i]) + (j > i ? "-" + text(numbers[j]) : "");
      i = j + 1;
    }
    parts.push_back(numbers.size() == 1 ? prefix + ranges : prefix + "[" + ranges + "]");
  }
  std::sort(parts.begin(), parts.end());
  std::string s;
  for (const std::string& p : parts) s += (s.empty() ? "" : ",") + p;
  return s;
}

Placement placement_of(const std::vector<std::string>& host_of_rank) {
  std::map<std::string, int> ranks_on;
  for (const std::string& h : host_of_rank) ++ranks_on[h];
  Placement p;
  p.nodes = int(ranks_on.size());
  p.ranks_min = p.ranks_max = ranks_on.empty() ? 0 : ranks_on.begin()->second;
  std::vector<std::string> hosts;
  for (const auto& [host, n] : ranks_on) {
    p.ranks_min = std::min(p.ranks_min, n);
    p.ranks_max = std::max(p.ranks_max, n);
    hosts.push_back(host);
  }
  p.hosts = compress_hosts(hosts);
  return p;
}

std::string csv_text(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c == '\n' ? ' ' : c);
  return q + "\"";
}

LinesFile::LinesFile(const std::string& path, const std::string& header, const std::string& flag)
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
    why =
        " does not end with a newline (cut short, or edited); end its last line or use a new file";
  else if (!header.empty() && !first.empty() && first != header + "\n")
    why = " holds other columns than this version writes; use a new file";
  if (!why.empty()) {
    ::close(fd_);
    fd_ = -1;
    throw UsageError(flag + " " + path + why);
  }
  need_header_ = !header.empty() && first.empty();
}

LinesFile& LinesFile::operator=(LinesFile&& o) noexcept {
  std::swap(path_, o.path_);
  std::swap(fd_, o.fd_);
  std::swap(header_, o.header_);
  std::swap(flag_, o.flag_);
  std::swap(need_header_, o.need_header_);
  return *this;
}

LinesFile::~LinesFile() {
  if (fd_ >= 0) ::close(fd_);
}

void LinesFile::append_lines(const std::string& lines) {
  if (fd_ < 0 || lines.empty()) return;
  std::string block = (need_header_ ? header_ + "\n" : "") + lines;
  ssize_t n = ::write(fd_, block.data(), block.size());
  if (n != static_cast<ssize_t>(block.size()))
    throw std::runtime_error(flag_ + " " + path_ + ": write failed: " + std::strerror(errno));
  need_header_ = false;
}

}  // namespace commlab
