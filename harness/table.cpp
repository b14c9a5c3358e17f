#include "table.hpp"

#include <fmt/format.h>

namespace commlab {

namespace {

constexpr const char* kTableHead =
    "{:>8} {:>4} {:>11} {:>12}  {:<24} {:<4} {:>11} {:>11} {:>11} {:>8} {:>8} {:>8} {:>12} "
    "{:>12} {:>5} {:>6} {:<5}\n";

}  // namespace

void print_heading(const RunInfo& info, const Options& opts, const std::string& gpu_line) {
  fmt::print("# {}  P={}  device={}  root={}  in_place={}  iters={}  warmup={}  check={}\n",
             opts.program, info.P, info.device, opts.root, opts.in_place ? "yes" : "no",
             opts.iters, opts.warmup, opts.check ? "on" : "off");
  fmt::print("# {}, {}, commlab {}\n", info.mpi_version, info.date, info.commlab_version);
  fmt::print("# placement: {}\n", info.placement.line());
  fmt::print("{}", gpu_line);
  fmt::print(kTableHead, "dtype", "op", "count", "bytes", "algorithm", "impl", "avg_us", "min_us",
             "max_us", "algbw", "busbw", "link", "sent_max_B", "model_B", "steps", "#wrong", "check");
  std::fflush(stdout);
}

void print_rows(const std::vector<Row>& rows) {
  for (const Row& r : rows) {
    std::string wrong = r.wrong ? fmt::format("{}", *r.wrong + r.diff_vs_lib.value_or(0)) : "-";
    const std::string algorithm = r.chose.empty() ? r.algorithm : r.algorithm + ":" + r.chose;
    fmt::print(kTableHead, r.dtype, r.op, r.count, r.bytes, algorithm, name(r.impl),
               fmt::format("{:.2f}", r.t_avg_us), fmt::format("{:.2f}", r.t_min_us),
               fmt::format("{:.2f}", r.t_max_us), fmt::format("{:.3f}", r.algbw_GBps),
               fmt::format("{:.3f}", r.busbw_GBps),
               r.link_GBps ? fmt::format("{:.3f}", *r.link_GBps) : "-",
               r.counted ? fmt::format("{}", r.counted->sent_max_rank_B) : "-",
               r.model ? fmt::format("{}", r.model->sent_max_rank_B) : "-",
               r.counted ? fmt::format("{}", r.counted->steps) : "-", wrong, name(r.check));
    if (!r.note.empty()) fmt::print("#   {} {}: {}\n", r.algorithm, name(r.impl), r.note);
  }
  std::fflush(stdout);
}

}  // namespace commlab
