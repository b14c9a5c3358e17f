#include "table.hpp"

#include <fmt/format.h>

#include "core/comm/errors.hpp"

namespace commlab {

namespace {

constexpr const char* kTableHead =
    "{:>8} {:>4} {:>11} {:>12}  {:<24} {:<4} {:>11} {:>11} {:>11} {:>11} {:>8} {:>8} {:>8} "
    "{:>12} {:>12} {:>5} {:<19} {:>6} {}\n";

// --overlap: the row's figures beside it (harness/overlap.hpp).
void print_overlap(const Row& r) {
  const OverlapFigures& f = *r.overlap;
  fmt::print(
      "#   {} overlap: pure {:.2f} us, compute {:.2f} (tests {:.2f}), overall {:.2f}: "
      "OSU {:.1f}%, IMB {:.1f}%",
      r.algorithm, f.t_pure_us, f.t_cpu_us, f.t_test_us, f.t_overlap_us, f.overlap_pct,
      f.overlap_imb_pct);
  if (f.model_overlap_pct)
    fmt::print("; {} rounds, {} probes: at most {:.0f}% if the bytes moved without the CPU",
               *f.rounds, f.probes, *f.model_overlap_pct);
  fmt::print("\n");
}

}  // namespace

RowWriter::RowWriter(MPI_Comm comm, const Options& opts) : opts_(opts) {
  MPI_Comm_rank(comm, &rank_);
  std::string error;
  try {
    if (rank_ == 0 && !opts.csv.empty()) csv_ = LinesFile(opts.csv, csv_header(), "--csv");
    if (rank_ == 0 && !opts.json.empty()) json_ = LinesFile(opts.json, "", "--json");
    if (rank_ == 0 && !opts.times.empty())
      times_ = LinesFile(opts.times, times_header(), "--times");
  } catch (const UsageError& e) {
    error = e.what();
  }
  agree_or_exit(comm, error);
}

void RowWriter::heading(const RunInfo& info, const std::string& device_lines) const {
  if (rank_ != 0) return;
  const Options& opts = opts_;
  fmt::print("# {}  P={}  device={}  root={}  in_place={}  iters={}  warmup={}  check={}{}\n",
             opts.program, info.P, info.device, opts.root, opts.in_place ? "yes" : "no",
             opts.iters_text(), opts.warmup, opts.check ? "on" : "off",
             info.interleaved ? "  timed=interleaved" : "");
  fmt::print("# {}, {}, commlab {}\n", info.mpi_version, info.date, info.commlab_version);
  fmt::print("# placement: {}\n", info.placement.line());
  fmt::print("{}", device_lines);
  fmt::print(kTableHead, "dtype", "op", "count", "bytes", "algorithm", "impl", "avg_us", "min_us",
             "max_us", "median_us", "algbw", "busbw", "link", "sent_max_B", "model_B", "steps",
             "chose", "#wrong", "check");
  std::fflush(stdout);
}

void RowWriter::emit(const std::vector<Row>& rows) {
  if (rank_ != 0) return;
  for (const Row& r : rows) {
    std::string wrong = r.wrong ? fmt::format("{}", *r.wrong + r.diff_vs_lib.value_or(0)) : "-";
    // auto:ring, the one auto ran; a library row keeps the call's name, and
    // what its bytes say it ran is the last column, chose (docs/usage.md).
    const std::string algorithm =
        r.chose.empty() || r.impl != Impl::hand ? r.algorithm : r.algorithm + ":" + r.chose;
    // A counted library row: the hand-written algorithm(s) its bytes say it ran.
    const std::string chose = r.impl == Impl::hand || r.chose.empty() ? "-" : r.chose;
    fmt::print(kTableHead, r.dtype, r.op, r.count, r.bytes, algorithm, name(r.impl),
               fmt::format("{:.2f}", r.t_avg_us), fmt::format("{:.2f}", r.t_min_us),
               fmt::format("{:.2f}", r.t_max_us), fmt::format("{:.2f}", r.t_median_us),
               fmt::format("{:.3f}", r.algbw_GBps), fmt::format("{:.3f}", r.busbw_GBps),
               r.link_GBps ? fmt::format("{:.3f}", *r.link_GBps) : "-",
               r.counted ? fmt::format("{}", r.counted->sent_max_rank_B) : "-",
               r.model ? fmt::format("{}", r.model->sent_max_rank_B) : "-",
               r.counted ? fmt::format("{}", r.counted->steps) : "-", chose, wrong, name(r.check));
    if (!r.note.empty()) fmt::print("#   {} {}: {}\n", r.algorithm, name(r.impl), r.note);
    if (r.overlap) print_overlap(r);
  }
  std::fflush(stdout);
  std::string csv, json, times;
  for (const Row& r : rows) csv += csv_line(r), json += json_line(r), times += times_lines(r);
  csv_.append_lines(csv);
  json_.append_lines(json);
  times_.append_lines(times);
}

}  // namespace commlab
