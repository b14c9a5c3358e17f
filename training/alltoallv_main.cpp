// alltoallv: the all-to-all of a mixture of experts (alltoallv.hpp), its
// counts from a traffic matrix (--matrix) or a generator (--skew), through
// MPI_Alltoallv and the hand-written schedules; rows as every collective
// program's (docs/usage.md), each checked exactly and counted.
#include <fmt/format.h>
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <climits>

#include "alltoallv.hpp"
#include "core/comm/errors.hpp"
#include "harness/cli_app.hpp"
#include "harness/host.hpp"
#include "harness/program.hpp"
#include "harness/runner.hpp"
#include "harness/table.hpp"
#include "harness/version.hpp"
#include "operations/truth.hpp"

using namespace commlab;
using namespace commlab::moe;

namespace {

struct Settings {
  Options o;
  Matrix m;
  std::string source;  // the matrix's file, or the generator
  std::vector<std::string> schedules;
  uint64_t largest = 0;  // elements: the most any rank sends
};

// MPI's counts and displacements are int: every rank's, checked.
void fits_mpi(const Matrix& m) {
  for (int r = 0; r < int(m.size()); ++r)
    for (const Blocks& b : {sends_of(m, r), receives_of(m, r)})
      if (b.total > uint64_t(INT_MAX))
        throw UsageError(fmt::format(
            "rank {} moves {} elements: MPI_Alltoallv's counts and displacements are int", r,
            b.total));
}

std::vector<std::string> read_schedules(const std::string& text) {
  std::vector<std::string> known;
  for (const Algorithm& s : algorithms()) known.push_back(s.name);
  if (text == "none") return {};
  return parse_list<std::string>("-a", text, known, Repeats::refused, [&](const std::string& a) {
    if (std::find(known.begin(), known.end(), a) == known.end())
      throw UsageError(
          fmt::format("-a {}: no such schedule (choose from {})", a, fmt::join(known, ", ")));
    return a;
  });
}

Parse<Settings> parse_settings(int argc, char** argv, int P, int rank) {
  CLI::App app("The all-to-all of a mixture of experts: per-pair counts from a matrix or a skew.",
               "alltoallv");
  app.get_formatter()->column_width(28);
  Settings s;
  std::string matrix, skew, algorithms = "all", check = "on";
  uint64_t tokens = 262144;
  auto* matrix_opt = app.add_option("--matrix", matrix, "P lines of P counts: rank i sends j");
  auto* skew_opt = app.add_option("--skew", skew, "uniform, or zipf:S (experts chosen unevenly)");
  auto* tokens_opt = app.add_option("--tokens", tokens, "--skew: elements each rank sends in all")
                         ->check(CLI::Range(uint64_t(0), uint64_t(1) << 40));
  app.add_option("-a,--algorithm", algorithms, "linear,pairwise,by_load, all or none")
      ->capture_default_str();
  app.add_option("-i,--iterations", s.o.iters, "timed iterations (default 100, as the programs)")
      ->check(CLI::Range(1, kItersMax));
  app.add_option("-x,--warmup", s.o.warmup, "untimed iterations first")
      ->check(CLI::Range(0, kItersMax))
      ->capture_default_str();
  app.add_option("-c,--check", check, "check every element: on or off")->capture_default_str();
  app.add_option("--csv", s.o.csv, "append one row per implementation to FILE");
  Parse<Settings> p;
  if (!parse_app(app, argc, argv, version_text("alltoallv", mpi_version()), p.help)) return p;
  if (matrix_opt->count() && (skew_opt->count() || tokens_opt->count()))
    throw UsageError("--matrix gives every count: not with --skew or --tokens");
  if (check != "on" && check != "off") throw UsageError("-c takes on or off, not '" + check + "'");
  s.o.check = check == "on";
  s.source = matrix_opt->count() ? matrix : skew.empty() ? "zipf:1.2" : skew;
  s.m = matrix_opt->count() ? read_matrix(matrix, P) : generate(s.source, P, tokens);
  fits_mpi(s.m);
  s.schedules = read_schedules(algorithms);
  for (int r = 0; r < P; ++r) s.largest = std::max(s.largest, sends_of(s.m, r).total);
  s.o.program = "alltoallv";
  p.footprint.host_B = 4.0 * double(sends_of(s.m, rank).total + receives_of(s.m, rank).total) * 3;
  p.settings = std::move(s);
  return p;
}

struct Buffers {
  std::vector<int32_t> in, out, lib;
};

// What rank me's result must hold: token(i, me, k) from every rank i.
Verdict check_result(const Matrix& m, int me, const std::vector<int32_t>& out) {
  const Blocks b = receives_of(m, me);
  Verdict v;
  for (int i = 0; i < int(m.size()); ++i)
    for (uint64_t k = 0; k < b.count[i]; ++k)
      if (out[b.offset[i] + k] != token(i, me, k) && v.wrong++ == 0)
        v.note = fmt::format("rank {}: element {} of rank {}'s block is {}", me, k, i,
                             out[b.offset[i] + k]);
  return v;
}

Case library_case(Comm& comm, const Settings& s, Buffers& buf) {
  const int me = comm.rank();
  const Blocks out = sends_of(s.m, me), in = receives_of(s.m, me);
  auto ints = [](const std::vector<uint64_t>& v) { return std::vector<int>(v.begin(), v.end()); };
  Case c;
  c.algorithm = "MPI_Alltoallv", c.impl = Impl::mpi;
  c.prepare = [&buf] { std::fill(buf.lib.begin(), buf.lib.end(), int32_t(kJunk)); };
  c.run = [&comm, &buf, sc = ints(out.count), sd = ints(out.offset), rc = ints(in.count),
           rd = ints(in.offset)] {
    MPI_Alltoallv(buf.in.data(), sc.data(), sd.data(), MPI_INT32_T, buf.lib.data(), rc.data(),
                  rd.data(), MPI_INT32_T, comm.mpi());
  };
  c.check = [&s, &buf, me](const std::function<void()>&) { return check_result(s.m, me, buf.lib); };
  return c;
}

Case hand_case(Comm& comm, const Settings& s, Buffers& buf, const Algorithm& sch, Runner& runner,
               const CostModel& cost) {
  Case c;
  c.algorithm = sch.name, c.impl = Impl::hand;
  c.prepare = [&buf] { std::fill(buf.out.begin(), buf.out.end(), int32_t(kJunk)); };
  c.run = [&comm, &s, &buf, &sch] { run(sch, {comm, s.m, buf.in.data(), buf.out.data()}); };
  const int me = comm.rank();
  c.check = [&s, &buf, me](const std::function<void()>&) {
    Verdict v = check_result(s.m, me, buf.out);
    v.diff_vs_lib = 0;
    for (size_t i = 0; i < buf.out.size(); ++i) *v.diff_vs_lib += buf.out[i] != buf.lib[i];
    return v;
  };
  c.model = model(sch, s.m, runner.nodes());
  c.t_model_us = model_us(s.m, cost);
  return c;
}

int run_alltoallv(const Settings& s, Comm& comm, const Nodes& nodes) {
  Runner runner(comm, s.o, nodes);
  RowWriter rows(comm.mpi(), s.o);
  rows.heading(runner.info(), runner.heading_lines(true));
  const CostModel cost = probe_cost(comm, nullptr);
  const int me = comm.rank(), P = comm.size();
  if (me == 0) fmt::print("# counts: {}; time model: {}\n", s.source, describe(cost));
  Buffers buf;
  const Blocks out = sends_of(s.m, me), in = receives_of(s.m, me);
  for (int j = 0; j < P; ++j)
    for (uint64_t k = 0; k < out.count[j]; ++k) buf.in.push_back(token(me, j, k));
  buf.out.resize(in.total), buf.lib.resize(in.total);
  const Shape shape{DType::int32, Op::sum, s.largest, P > 1 ? double(P - 1) / P : 0.0, false, true};
  Case lib = library_case(comm, s, buf);
  for (const Algorithm& sch : algorithms())  // which schedule the library's bytes match
    lib.known.emplace_back(sch.name, model(sch, s.m, runner.nodes()));
  std::vector<Row> all{runner.measure(shape, lib)};
  for (const Algorithm& sch : algorithms())
    if (std::find(s.schedules.begin(), s.schedules.end(), sch.name) != s.schedules.end())
      all.push_back(runner.measure(shape, hand_case(comm, s, buf, sch, runner, cost)));
  rows.emit(all);
  return runner.exit_code();
}

}  // namespace

int main(int argc, char** argv) {
  return run_program<Settings>(argc, argv, parse_settings, run_alltoallv);
}
