// The report's pieces: the alpha-beta fit recovers known parameters, a taught
// formula finds the quantity it is, and the CSV reader names the line of a
// row it cannot read.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "allreduce_algos/algorithms.hpp"
#include "analysis/fit.hpp"
#include "analysis/formulas.hpp"
#include "analysis/links.hpp"
#include "analysis/report.hpp"
#include "analysis/rows.hpp"
#include "analysis/rules.hpp"
#include "analysis/table.hpp"
#include "collectives/algorithms.hpp"
#include "core/vocabulary/distribution.hpp"
#include "harness/results.hpp"
#include "harness/tuned.hpp"
#include "operations/predicted.hpp"

using namespace commlab;

// Rows shaped like a sweep's: ring, tree and master-worker at P = 2..8 over
// 64 KiB .. 64 MiB, each with its steps, port bytes and reduced bytes.
std::vector<std::vector<double>> sweep_regressors() {
  std::vector<std::vector<double>> x;
  for (int P = 2; P <= 8; ++P)
    for (double N = 65536; N <= 64e6; N *= 4) {
      x.push_back({2.0 * (P - 1), 2 * (P - 1) * N / P, (P - 1) * N / P});  // ring
      x.push_back({4, 3 * N, 2 * N});                                      // tree
      x.push_back({2.0 * (P - 1), 2 * (P - 1) * N, (P - 1) * N});          // master-worker
    }
  return x;
}

// Three ranks, four calls: rank 2 arrives last at three of them (it keeps
// the others waiting, while its own time is the shortest), rank 0 at one.
TEST_CASE("the last rank to arrive is named apart from the slowest, with the arrivals' skew") {
  const std::vector<std::vector<double>> arrived_us = {
      {100, 200, 300, 480}, {101, 201, 300, 400}, {130, 260, 310, 420}};
  const Arrivals a = arrivals(arrived_us);
  CHECK(a.late_rank == 2);
  CHECK(a.late_share == 0.75);
  CHECK(a.skew_median_us == 45);  // skews 30, 60, 10, 80
  CHECK_FALSE(a.skew_p99_us);     // p99 needs 100 calls
  const auto late = lateness(arrived_us);
  CHECK(late[2] == std::vector<double>{30, 60, 10, 20});
  CHECK(late[0] == std::vector<double>{0, 0, 0, 80});
  // The times from the barrier's exit: the late rank waited least.
  const std::vector<std::vector<double>> times_us = {
      {50, 50, 50, 50}, {50, 50, 50, 50}, {20, 20, 40, 50}};
  CHECK(distribution(times_us).slowest_rank == 0);
}

TEST_CASE("the fit recovers alpha, beta and gamma within 1% from synthetic rows") {
  const double alpha = 31.6, beta = 0.008, gamma = 0.0006;  // us, us per byte, us per byte
  const auto x = sweep_regressors();
  std::vector<double> t;
  for (const auto& r : x) t.push_back(alpha * r[0] + beta * r[1] + gamma * r[2]);
  Fit f = fit_nonnegative(x, t);
  CHECK(f.at(0) == Approx(alpha).epsilon(0.01));
  CHECK(f.at(1) == Approx(beta).epsilon(0.01));
  CHECK(f.at(2) == Approx(gamma).epsilon(0.01));
  CHECK(f.r2 == Approx(1.0));
  CHECK(f.loo_max < 0.01);
  CHECK(f.n == int(x.size()));
}

TEST_CASE("the fit with noise: close, R^2 below 1, and the leave-one-out error shows it") {
  const auto x = sweep_regressors();
  std::vector<double> t;
  for (size_t i = 0; i < x.size(); ++i)  // +-5%
    t.push_back((20 * x[i][0] + 0.01 * x[i][1] + 0.001 * x[i][2]) * (i % 2 ? 1.05 : 0.95));
  Fit f = fit_nonnegative(x, t);
  CHECK(f.at(1) == Approx(0.01).epsilon(0.06));
  CHECK(f.r2 < 1);
  CHECK(f.r2 > 0.9);
  CHECK(f.loo_median > 0.01);
  CHECK(f.loo_max < 0.2);
}

TEST_CASE("the fit never gives a negative coefficient, where plain least squares would") {
  // Through (100, 0.5) and (200, 2): the line has alpha = -1.
  Fit f = fit_nonnegative({{1, 100}, {1, 200}}, {0.5, 2.0});
  CHECK(f.at(0) == 0);
  CHECK(f.at(1) > 0);
  CHECK(f.predict({1, 100}) > 0);
}

TEST_CASE("the fit with no bytes at all (a barrier) finds alpha alone") {
  Fit f = fit_nonnegative({{4, 0}, {4, 0}}, {8, 8});
  CHECK(f.at(0) == Approx(2));
  CHECK(f.at(1) == 0);
}

TEST_CASE("a taught formula names the counted quantity it is") {
  const double N = 1 << 20;
  std::vector<Quantity> ring{{"busiest sender", 1.5 * N}, {"total sent", 6 * N}};
  FormulaMatch m = match_formula(2 * (N / 4) * 3, ring);
  CHECK(m.matches == std::vector<std::string>{"busiest sender"});
  CHECK(m.describe(1.5 * N, ring) == "busiest sender");

  // Master-worker's (P-1)N against a total of 2(P-1)N: no match, half of it.
  std::vector<Quantity> mw{{"total sent", 6 * N}};
  m = match_formula(3 * N, mw);
  CHECK(m.matches.empty());
  CHECK(m.nearest == "total sent");
  CHECK(m.ratio == Approx(0.5));
  CHECK(m.describe(3 * N, mw) == "none; 0.50 x total sent");

  // An uneven split a few bytes off still matches, and says by how much.
  std::vector<Quantity> uneven{{"busiest sender", 89478488}};
  CHECK(match_formula(89478485.33, uneven).describe(89478485.33, uneven) ==
        "busiest sender (+3 B: uneven split)");
}

namespace {
std::string write_temp(const std::string& text) {
  char name[] = "/tmp/commlab_rows_XXXXXX";
  int fd = mkstemp(name);
  close(fd);
  std::ofstream(name) << text;
  return name;
}

// A real header and one library row and one hand-written row, as the programs write them.
std::string good_csv() {
  const std::set<std::string> text{
      "device", "dtype", "op",          "traffic",         "note",
      "host",   "date",  "mpi_version", "commlab_version", "taught_formula"};
  std::string lib, hand;
  for (const auto& c : csv_columns()) {
    const bool traffic = c.find("_B") != std::string::npos ||
                         c.find("steps") != std::string::npos ||
                         c.find("msgs") != std::string::npos;
    std::string v = c == "program"     ? "allreduce_ring"
                    : c == "algorithm" ? "MPI_Allreduce"
                    : c == "impl"      ? "mpi"
                    : c == "P"         ? "4"
                    : c == "check"     ? "ok"
                    : c == "traffic"   ? ""
                    : text.count(c)    ? "x"
                    : traffic          ? ""
                                       : "16";
    lib += (lib.empty() ? "" : ",") + v;
    std::string w = c == "algorithm" ? "ring"
                    : c == "impl"    ? "hand"
                    : c == "traffic" ? "exact"
                    : v.empty()      ? "24"
                                     : v;
    hand += (hand.empty() ? "" : ",") + w;
  }
  return csv_header() + "\n" + lib + "\n" + hand + "\n";
}
}  // namespace

TEST_CASE("rows read back: library rows have no traffic, hand-written ones do") {
  std::string path = write_temp(good_csv());
  auto rows = read_rows(path);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].impl == Impl::mpi);
  CHECK(!rows[0].sent_max_B);
  CHECK(rows[1].hand());
  CHECK(rows[1].sent_max_B == 24u);
  CHECK(rows[1].P == 4);
  CHECK(rows[1].line == 3);
  CHECK(rows[1].note == "x");  // the first wrong element, named in the report's checks
  CHECK(rows[0].traffic == TrafficCheck::none);
  CHECK(rows[1].traffic == TrafficCheck::exact);
  CHECK(make_report(rows, "t").find("2 rows; 2 checked ok") != std::string::npos);
  unlink(path.c_str());
}

TEST_CASE("on GPUs the hand-written algorithm is set beside NCCL as well as MPI") {
  auto row = [](const char* algorithm, const char* impl, double us) {
    Measurement m;
    m.program = "allreduce_ring";
    m.algorithm = algorithm;
    m.impl = parse_impl(impl);
    m.device = "cuda";
    m.dtype = "float16";
    m.op = "sum";
    m.P = 2;
    m.bytes = 1 << 20;
    m.t_avg_us = m.t_median_us = us;
    m.busbw_GBps = 1;
    m.check = Check::ok;
    return m;
  };
  std::vector<Measurement> rows{row("ring", "hand", 50), row("MPI_Allreduce", "mpi", 100),
                                row("ncclAllReduce", "nccl", 25)};
  const std::string report = make_report(rows, "t");
  CHECK_THAT(report, Catch::Contains("| N | library | median us | busbw | NCCL us | NCCL busbw | "
                                     "ring / lib | ring / NCCL | ring busbw | ring link |"));
  // Rows without intervals (one iteration): their ratios say so, never bold.
  CHECK_THAT(report, Catch::Contains("| 1 MiB | MPI_Allreduce | 100.0 | 1.000 | 25.0 | 1.000 | "
                                     "0.50 (no interval) | 2.00 (no interval) | 1.000 | - |"));
  rows.pop_back();  // no NCCL rows: no NCCL columns
  rows[0].link_GBps = 1.5;
  CHECK_THAT(make_report(rows, "t"), Catch::Contains("| 1 MiB | MPI_Allreduce | 100.0 | 1.000 | "
                                                     "0.50 (no interval) | 1.000 | 1.500 |\n"));
}

TEST_CASE("JSON Lines read as the CSV does; a bad line is named") {
  const std::string json =
      "{\"program\":\"allreduce\",\"algorithm\":\"ring\",\"impl\":\"hand\",\"device\":\"host\","
      "\"dtype\":\"float32\",\"op\":\"sum\",\"P\":4,\"count\":6,\"bytes\":24,\"t_avg_us\":2.5,"
      "\"t_median_us\":2,\"busbw_GBps\":0.1,\"sent_max_rank_B\":12,\"recv_max_rank_B\":12,"
      "\"sent_total_B\":48,\"msgs_total\":24,\"steps\":6,\"model_steps\":6,"
      "\"model_critical_path_B\":12,\"taught_formula\":\"2*(N/P)*(P-1)\",\"taught_T_B\":36.0,"
      "\"check\":\"ok\",\"note\":\"\",\"host\":\"n0\",\"date\":\"d\",\"t_model_us\":null,"
      "\"nodes\":2,\"link_GBps\":0.25}\n";
  auto rows = read_rows("r.json", json + "\n" + json);
  REQUIRE(rows.size() == 2);
  CHECK((rows[1].line == 3 && rows[1].P == 4 && rows[1].sent_max_B == 12u));
  CHECK((rows[0].nodes == 2 && rows[0].link_GBps == 0.25 && !rows[0].t_model_us));
  CHECK(rows[0].taught_formula == "2*(N/P)*(P-1)");
  CHECK_THROWS_WITH(read_rows("r.json", json + "{\"program\": 1,\n"),
                    Catch::Contains("r.json line 2: not JSON"));
  std::string no_bytes = json;
  no_bytes.replace(no_bytes.find("\"bytes\":24,"), 11, "");
  CHECK_THROWS_WITH(read_rows("r.json", no_bytes), Catch::Contains("no column bytes"));
  std::string negative = json;
  negative.replace(negative.find("2.5"), 3, "-1");
  CHECK_THROWS_WITH(read_rows("r.json", negative), Catch::Contains("t_avg_us holds -1"));
}

TEST_CASE("one folder, two transports: each run's rows stay with its transport, library rows too") {
  auto line = [](const char* algorithm, const char* impl, const char* date, const char* transport,
                 double us) {
    return fmt::format(
        "{{\"program\":\"allreduce\",\"algorithm\":\"{}\",\"impl\":\"{}\",\"device\":\"host\","
        "\"dtype\":\"float32\",\"op\":\"sum\",\"P\":4,\"count\":262144,\"bytes\":1048576,"
        "\"t_avg_us\":{},\"t_median_us\":{},\"busbw_GBps\":1,\"check\":\"ok\",\"note\":\"\","
        "\"host\":\"n0\",\"date\":\"{}\",\"taught_formula\":\"\",\"transport\":\"{}\","
        "\"sent_max_rank_B\":null,\"recv_max_rank_B\":null,\"sent_total_B\":null,\"msgs_total\":"
        "null,"
        "\"steps\":null,\"model_steps\":null,\"model_critical_path_B\":null,\"taught_T_B\":null}}"
        "\n",
        algorithm, impl, us, us, date, transport);
  };
  const std::string text =
      line("ring", "hand", "d1", "host", 200) + line("MPI_Allreduce", "mpi", "d1", "host", 100) +
      line("ring", "hand", "d2", "direct", 50) + line("MPI_Allreduce", "mpi", "d2", "host", 100);
  auto rows = read_rows("two.json", text);
  REQUIRE(rows.size() == 4);
  // Files with the run_transport column say it on every row: a library row
  // of a direct run started in the same second as an MPI run is still its run's.
  auto with_column = [&](std::string row, const char* run) {
    return row.insert(row.size() - 2, fmt::format(",\"run_transport\":\"{}\"", run));
  };
  const auto same_second = read_rows(
      "same.json", with_column(line("MPI_Allreduce", "mpi", "d1", "host", 100), "direct") +
                       with_column(line("MPI_Allreduce", "mpi", "d1", "host", 100), "host"));
  CHECK((same_second[0].fabric() == "host, direct" && same_second[1].fabric() == "host"));
  // A run on registered buffers is another measurement: its library rows (private, as always) go
  // with it.
  auto registered = [&](std::string row, const char* buffers) {
    return row.insert(row.size() - 2,
                      fmt::format(",\"run_transport\":\"direct\",\"buffers\":\"{}\"", buffers));
  };
  const auto both = read_rows(
      "reg.json", registered(line("ring", "hand", "d3", "direct", 40), "registered") +
                      registered(line("MPI_Allreduce", "mpi", "d3", "host", 100), "private"));
  CHECK((both[0].fabric() == "host, direct, registered" &&
         both[1].fabric() == "host, direct, registered"));
  CHECK(over_fabric(both[1].fabric()) == " over direct, registered");
  CHECK(over_fabric("cuda").empty());
  CHECK((rows[0].fabric() == "host" && rows[1].fabric() == "host"));
  // The direct run's MPI row was measured against its ring: named by its run.
  CHECK((rows[2].fabric() == "host, direct" && rows[3].fabric() == "host, direct"));
  const std::string report = make_report(rows, "t");
  CHECK_THAT(report,
             Catch::Contains(
                 "### allreduce, P = 4 (host, float32 sum)\n\n| N | library | median us | "
                 "busbw | ring / lib | ring busbw | ring link |\n|---|---|---|---|---|---|---|\n"
                 "| 1 MiB | MPI_Allreduce | 100.0 | 1.000 | 2.00 (no interval) |"));
  CHECK_THAT(report,
             Catch::Contains(
                 "### allreduce, P = 4 (host, direct, float32 sum)\n\n| N | library | median us | "
                 "busbw | ring / lib | ring busbw | ring link |\n|---|---|---|---|---|---|---|\n"
                 "| 1 MiB | MPI_Allreduce | 100.0 | 1.000 | 0.50 (no interval) |"));
}

TEST_CASE("a row cut short, a bad number or a foreign header: an error naming the line") {
  std::string good = good_csv();
  std::string cut = good.substr(0, good.rfind(',', good.size() - 30));  // last row loses columns
  std::string path = write_temp(cut);
  CHECK_THROWS_WITH(read_rows(path), Catch::Contains("line 3") && Catch::Contains("Too few"));

  // The last row's busiest sender (a column the reader parses) is not a number.
  std::string bad = good.substr(0, good.rfind('\n', good.size() - 2) + 1);
  const auto& names = csv_columns();
  const size_t sent =
      size_t(std::find(names.begin(), names.end(), "sent_max_rank_B") - names.begin());
  std::string last = good.substr(bad.size());
  size_t at = 0;
  for (size_t k = 0; k < sent; ++k) at = last.find(',', at) + 1;
  last.replace(at, last.find(',', at) - at, "2x");
  bad += last;
  std::ofstream(path) << bad;
  CHECK_THROWS_WITH(read_rows(path), Catch::Contains("line 3"));

  std::ofstream(path) << "a,b,c\n1,2,3\n";
  CHECK_THROWS_WITH(read_rows(path), Catch::Contains("program"));
  unlink(path.c_str());
}

TEST_CASE("a failed row's note with a quoted comma: every column after it still reads right") {
  // The hand-written row of good_csv() (which has no quotes) fails, with an
  // error message holding a comma, on 3 nodes.
  std::string text = good_csv();
  const size_t second = text.find('\n', text.find('\n') + 1) + 1;
  std::vector<std::string> cells;
  std::istringstream row(text.substr(second, text.find('\n', second) - second));
  for (std::string cell; std::getline(row, cell, ',');) cells.push_back(cell);
  const auto& names = csv_columns();
  auto at = [&](const std::string& name) -> std::string& {
    return cells.at(std::find(names.begin(), names.end(), name) - names.begin());
  };
  at("note") = "\"exit 1: error, a comma\"";
  at("nodes") = "3";
  at("check") = "FAIL";
  std::string line;
  for (const auto& c : cells) line += (line.empty() ? "" : ",") + c;
  const std::string path = write_temp(text.substr(0, second) + line + "\n");

  const auto columns = read_columns(path, {"nodes", "note", "check"});
  REQUIRE(columns.size() == 2);
  CHECK(columns[1] == std::vector<std::string>{"3", "exit 1: error, a comma", "FAIL"});
  CHECK(columns[0][0] == "16");
  const auto rows = read_rows(path);
  CHECK((rows[1].nodes == 3 && rows[1].note == "exit 1: error, a comma"));
  CHECK_THROWS_WITH(read_columns(path, {"nodes", "nodez"}),
                    Catch::Contains(path + ": no column nodez"));
  std::ofstream(path) << "a,b\n1,2\n1,2,3\n";
  CHECK_THROWS_WITH(read_columns(path, {"b"}), Catch::Contains("Too many columns in line 3"));
  unlink(path.c_str());
  CHECK_THROWS_WITH(read_columns(path, {"a"}), Catch::Contains(path + ": cannot be read"));
}

// The report reads the columns the programs write from the one list
// (core/vocabulary/columns.def), by name: a file of an older version, without the
// columns that came later, still reads; one without a column every version
// wrote does not; a cell not of its column's kind is refused, used or not.
TEST_CASE("rows read by name from columns.def: older files, missing columns, kinds") {
  REQUIRE(csv_columns().size() == kColumnCount);
  for (size_t i = 0; i < kColumnCount; ++i) CHECK(csv_columns()[i] == kColumns[i].name);
  const std::string text = good_csv();
  std::vector<std::vector<std::string>> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    lines.emplace_back();
    std::istringstream row(line);
    for (std::string cell; std::getline(row, cell, ',');) lines.back().push_back(cell);
    if (!line.empty() && line.back() == ',') lines.back().emplace_back();  // a last empty cell
  }
  // Keep the columns that pass `keep`, in a shuffled order: the reader goes by name.
  auto written = [&](auto keep, const std::string& replace_column = "",
                     const std::string& with = "") {
    std::string out;
    for (const auto& cells : lines) {
      std::string line;
      bool first = true;  // a first cell may be empty
      for (size_t k = kColumnCount; k-- > 0;) {
        if (!keep(kColumns[k])) continue;
        const bool replaced = &cells != &lines[0] && kColumns[k].name == replace_column;
        line += (first ? "" : ",") + (replaced ? with : cells[k]);
        first = false;
      }
      out += line + "\n";
    }
    return write_temp(out);
  };
  const std::string older = written([](const ColumnSpec& c) { return c.age == Age::every; });
  const auto rows = read_rows(older);
  REQUIRE(rows.size() == 2);
  CHECK((rows[1].algorithm == "ring" && rows[1].P == 4 && rows[1].sent_max_B == 24));
  CHECK((!rows[1].t_model_us && !rows[1].nodes && !rows[1].memory_moved_B));
  const std::string no_steps =
      written([](const ColumnSpec& c) { return std::string(c.name) != "model_steps"; });
  CHECK_THROWS_WITH(read_rows(no_steps), Catch::Contains("no column model_steps"));
  // iters is read by nothing in the report, and still held to its kind.
  const std::string bad_kind = written([](const ColumnSpec&) { return true; }, "iters", "2.5");
  CHECK_THROWS_WITH(read_rows(bad_kind), Catch::Contains("line 2: column iters holds '2.5'"));
  const std::string moved =
      written([](const ColumnSpec&) { return true; }, "memory_moved_B", "4096");
  CHECK(read_rows(moved)[1].memory_moved_B == 4096);
  for (const std::string& path : {older, no_steps, bad_kind, moved}) unlink(path.c_str());
}

TEST_CASE("a Markdown table: the separator from the headings, one cell per heading") {
  MarkdownTable table({"N", "us"});
  CHECK(table.empty());
  table.add_row("1 KiB", 2.5);
  table.add_cells({"a|b", "-"});
  CHECK(!table.empty());
  CHECK(table.str() == "| N | us |\n|---|---|\n| 1 KiB | 2.5 |\n| a\\|b | - |\n");
  CHECK_THROWS_WITH(table.add_row("one"), Catch::Contains("2 headings but a row of 1"));
  CHECK_THROWS(table.add_cells({"a", "b", "c"}));
}

TEST_CASE("sizes in the report read as people write them") {
  CHECK(human_bytes(4) == "4 B");
  CHECK(human_bytes(16384) == "16 KiB");
  CHECK(human_bytes(64 << 20) == "64 MiB");
  CHECK(human_bytes(1000) == "1000 B");
}

TEST_CASE("the report's all-reduce choice: fastest per size, crossovers, auto over the library") {
  std::vector<Measurement> rows;
  auto row = [&](const std::string& algorithm, uint64_t bytes, double t_us, std::string date,
                 std::optional<double> model_us = std::nullopt, std::string chose = "") {
    Measurement m;
    m.program = "allreduce", m.algorithm = algorithm, m.device = "host", m.dtype = "float32";
    m.op = "sum", m.P = 4, m.bytes = bytes, m.t_median_us = t_us, m.date = std::move(date);
    m.impl = algorithm == "MPI_Allreduce" ? Impl::mpi : Impl::hand;
    m.t_model_us = model_us, m.chose = std::move(chose);
    m.ci_lo_us = 0.99 * t_us, m.ci_hi_us = 1.01 * t_us;  // steady rows
    rows.push_back(m);
  };
  for (const std::string run : {"d1", "d2", "d3"}) {
    row("MPI_Allreduce", 4, 10, run);
    row("MPI_Allreduce", 1 << 20, 100, run);
  }
  row("recursive_doubling", 4, 5, "d1", 3);
  row("ring", 4, 9, "d1", 8);
  row("recursive_doubling", 1 << 20, 300, "d1", 200);
  row("ring", 1 << 20, 120, "d1", 150);
  row("auto", 4, 5, "d1", 3, "recursive_doubling");
  row("auto", 4, 8, "d2", 3, "recursive_doubling");
  row("auto", 4, 12, "d3", 3, "recursive_doubling");
  row("auto", 1 << 20, 120, "d1", 150, "ring");
  const std::string fastest = fastest_allreduce(rows);
  // auto's median over its three runs (5, 8, 12) over the fastest's 5.
  CHECK(fastest.find("| 4 B | recursive_doubling | 5.0 | recursive_doubling | 5.0 | "
                     "recursive_doubling | 8.0 | 1.60 | 10.0 |") != std::string::npos);
  CHECK(fastest.find("auto within 10% of the fastest: 1 of 2 sizes.") != std::string::npos);
  CHECK(fastest.find("Crossovers, measured: recursive_doubling from 4 B, ring from 1 MiB.") !=
        std::string::npos);
  const std::string vs = auto_against_library(rows);
  CHECK(vs.find("| 4 B | recursive_doubling | 3.0 | 8.0 | 0.50 [0.49, 0.51]; 0.80 [0.78, 0.82]; "
                "1.20 [1.18, 1.22] | **0.80** |") != std::string::npos);
  CHECK(vs.find("Above 1.0 (the library faster): 1 MiB (1.200).") != std::string::npos);
  // One run's auto row without an interval (too few iterations): not bold.
  for (Measurement& m : rows)
    if (m.algorithm == "auto" && m.date == "d3" && m.bytes == 4) m.ci_hi_us.reset();
  CHECK(auto_against_library(rows).find("1.20 (no interval) | 0.80 (1 of 3 runs noisy or without "
                                        "an interval) |") != std::string::npos);
}

TEST_CASE("a time or rate that is empty, negative or not finite is refused, never fitted") {
  // good_csv's last row, with one column's field replaced.
  auto with = [](const std::string& column, const std::string& value) {
    std::string text = good_csv();
    const size_t row = text.rfind('\n', text.size() - 2) + 1;
    std::vector<std::string> fields;
    std::stringstream ss(text.substr(row, text.size() - row - 1));
    for (std::string f; std::getline(ss, f, ',');) fields.push_back(f);
    const auto& names = csv_columns();
    fields[std::find(names.begin(), names.end(), column) - names.begin()] = value;
    std::string line;
    for (const auto& f : fields) line += (line.empty() ? "" : ",") + f;
    return text.substr(0, row) + line + "\n";
  };
  for (const char* column : {"t_avg_us", "t_median_us", "busbw_GBps"})
    for (const char* value : {"", "-1", "nan", "inf", "-inf", "1e999", "0x10", "1.5.2"}) {
      INFO(column << " = '" << value << "'");
      CHECK_THROWS_WITH(read_rows("f.csv", with(column, value)),
                        Catch::Contains("f.csv line 3") && Catch::Contains(column));
    }
  for (const char* value : {"", "-4", "+4", " 4x", "18446744073709551616"})
    CHECK_THROWS_WITH(read_rows("f.csv", with("bytes", value)), Catch::Contains("bytes"));
  CHECK_THROWS_WITH(read_rows("f.csv", with("taught_T_B", "nan")), Catch::Contains("taught_T_B"));
  CHECK(read_rows("f.csv", with("t_avg_us", "0")).size() == 2);
  CHECK(read_rows("f.csv", with("t_avg_us", "1e3"))[1].t_avg_us == 1000);
}

// Rows of three algorithms at P = 2..4, one rank per node, timed exactly by a
// model with alpha 50 us, 1/beta 0.1 GB/s, 1/gamma 10 GB/s. (The ring's and
// master-worker's reduced bytes are half their port bytes: only the tree's
// tell beta from gamma.)
std::vector<Measurement> modelled_rows() {
  std::vector<Measurement> rows;
  for (int P = 2; P <= 4; ++P)
    for (uint64_t N : {uint64_t(1) << 20, uint64_t(1) << 24}) {
      struct {
        const char* name;
        double steps, port, reduced, taught;
      } algos[] = {
          {"ring", 2.0 * (P - 1), 2.0 * (P - 1) * N / P, (P - 1.0) * N / P, 2.0 * (P - 1) * N / P},
          {"master_worker", 2.0 * (P - 1), 2.0 * (P - 1) * N, (P - 1.0) * N, (P - 1.0) * N},
          // the binary tree: its root takes 1 or 2 children's N, gives back as many
          {"tree", P == 4 ? 4.0 : 2.0,
           (P == 2   ? 2.0
            : P == 3 ? 4.0
                     : 6.0) *
               N,
           (P == 2 ? 1.0 : 2.0) * N, std::log2(P) * N},
      };
      for (const auto& a : algos) {
        Measurement m;
        m.program = std::string("allreduce_") + a.name, m.algorithm = a.name, m.impl = Impl::hand;
        m.device = "host", m.dtype = "float32", m.op = "sum", m.check = Check::ok;
        m.P = P, m.bytes = N, m.count = N / 4, m.nodes = P;
        m.model_steps = uint64_t(a.steps), m.model_critical_path_B = uint64_t(a.port);
        m.model_port_critical_B = uint64_t(a.port), m.model_reduced_max_B = uint64_t(a.reduced);
        m.taught_T_B = a.taught, m.taught_formula = "T";
        m.t_median_us = m.t_avg_us = 50 * a.steps + a.port / 0.1e3 + a.reduced / 10e3;
        rows.push_back(m);
      }
    }
  return rows;
}

TEST_CASE(
    "the summary: a machine that follows the model passes, and the taught formula's miss is "
    "named") {
  auto rows = modelled_rows();
  // P = 6 on 3 nodes, twice as slow as the model says: shown apart, not fitted.
  Measurement shared = rows.front();
  shared.P = 6, shared.nodes = 3, shared.t_avg_us *= 2, shared.t_median_us *= 2;
  rows.push_back(shared);
  const std::string s = formulas_summary(rows, Machine{0.1});
  INFO(s);
  CHECK(s.find("## Do the formulas hold?") == 0);
  CHECK(s.find("1/gamma 10 GB/s") != std::string::npos);
  CHECK(s.find("| tree | 2-4 (one rank per node, fitted) | **yes** (6 of 6) |") !=
        std::string::npos);
  CHECK(
      s.find("| ring | 6 (ranks share nodes: not fitted) | no (0 of 1) | -50% at P = 6, 1 MiB |") !=
      std::string::npos);
  CHECK(s.find("1/beta 0.1 GB/s (the links' ping-pong: 0.1 GB/s, fitted ") != std::string::npos);
  CHECK(s.find("| ring | 2-4 (one rank per node, fitted) | **yes** (6 of 6) |") !=
        std::string::npos);
  CHECK(s.find("| master_worker | 2-4 (one rank per node, fitted) | **yes** (6 of 6) |") !=
        std::string::npos);
  // master-worker's taught (P-1)N counts one phase: its port carries twice that.
  CHECK(s.find("but the busiest node's link carries 100663296 B (x2.00)") != std::string::npos);
  CHECK(formulas_summary({}, {}).empty());
}

// On one node with 2 cores (machine.md's cpu line), only P = 2 gives each
// rank a core: P = 3 and 4 take turns, and are shown apart.
TEST_CASE("the summary on one node fits the runs with a core per rank") {
  auto rows = modelled_rows();
  for (Measurement& m : rows) m.nodes = 1;
  const auto folder = std::filesystem::temp_directory_path() / "commlab_machine_md";
  std::filesystem::create_directories(folder);
  std::ofstream(folder / "machine.md") << "# Machine\n\n- host: vm\n- cpu: AMD EPYC, 2 cores\n";
  const Machine machine = read_machine(folder.string());
  CHECK(machine.cores == 2);
  CHECK(!machine.link_GBps);
  const std::string s = formulas_summary(rows, machine);
  INFO(s);
  CHECK(s.find("| ring | 2 (a core per rank, fitted) | **yes** (2 of 2) |") != std::string::npos);
  CHECK(s.find("| ring | 3-4 (more ranks than cores: not fitted) |") != std::string::npos);
  CHECK(formulas_summary(rows, {}).find("| ring | 2-4 (fitted) |") != std::string::npos);
  std::filesystem::remove_all(folder);
}

// On a network, the verdicts say how far each algorithm's bytes went at the
// largest P: the ring's to its neighbours (1 link a byte), the tree's here
// 1.5 (and 3 at P = 2, which the column leaves out).
TEST_CASE("the summary on a ring of nodes: the links a byte crossed, beside each verdict") {
  auto rows = modelled_rows();
  for (Measurement& m : rows) {
    m.network = "ring:8";
    m.model_link_critical_B = m.link_critical_B = m.model_port_critical_B;
    m.sent_total_B = 1000, m.hop_B = m.algorithm != "tree" ? 1000 : m.P == 2 ? 3000 : 1500;
  }
  const std::string s = formulas_summary(rows, Machine{0.1});
  INFO(s);
  CHECK(s.find("The nodes were on ring:8") != std::string::npos);
  CHECK(s.find("| median miss | links a byte crossed |") != std::string::npos);
  auto row_of = [&](const std::string& algorithm) {
    const size_t at = s.find("| " + algorithm + " | 2-4 (one rank per node, fitted) |");
    return at == std::string::npos ? std::string() : s.substr(at, s.find('\n', at) - at);
  };
  CHECK(row_of("ring").size() > 0);
  CHECK(row_of("ring").rfind(" | 1.00 (P = 4) |") == row_of("ring").size() - 17);
  CHECK(row_of("tree").rfind(" | 1.50 (P = 4) |") == row_of("tree").size() - 17);
  CHECK(s.find("how many links a byte crossed") != std::string::npos);
  CHECK(s.find("links' own counters") == std::string::npos);  // no row read them
  // On the switch there is no such column.
  CHECK(formulas_summary(modelled_rows(), Machine{0.1}).find("links a byte") == std::string::npos);
}

// Where the rows read the links' own counters (links_sent_B), the column
// adds what the links sent over hop_B, at the largest P's largest size.
TEST_CASE("the summary on a ring of nodes: the links' own counters beside hop_B") {
  auto rows = modelled_rows();
  for (Measurement& m : rows) {
    m.network = "ring:8";
    m.model_link_critical_B = m.link_critical_B = m.model_port_critical_B;
    m.sent_total_B = 1000, m.hop_B = 1000;
    m.links_sent_B = m.algorithm == "ring" ? 1010 : 1000;
  }
  const std::string s = formulas_summary(rows, Machine{0.1});
  INFO(s);
  const size_t at = s.find("| ring | 2-4 (one rank per node, fitted) |");
  REQUIRE(at != std::string::npos);
  CHECK(s.substr(at, s.find('\n', at) - at).find("| 1.00 (P = 4); links sent 1.010 x |") !=
        std::string::npos);
  CHECK(s.find("what the links' own counters say they sent over hop_B") != std::string::npos);
}

// bin/predict's number for the ring at P = 1024, N = 1 GiB on A100 NVLink,
// worked by hand: 2046 steps; in each, one chunk of 1 GiB / 1024 = 1 MiB
// through every GPU's link each way; 2046 MiB at 300 GB/s is 7151.29 us,
// plus 2046 x 0.6 us (NCCL's NVLink latency per ring step).
TEST_CASE("predict: the ring at P = 1024, 1 GiB, A100 NVLink, by hand") {
  const LinkModel nvlink = named_link("nvlink-a100");
  CHECK(nvlink.alpha_us == 0.6);
  CHECK(nvlink.GBps == 300);
  const ScaledTraffic ring = allreduce_ring_algorithm().at_scale(1024, double(1 << 30), 1);
  CHECK(ring.steps == 2046);
  CHECK(ring.port_critical_B == 2046.0 * (1 << 20));
  const double us =
      nvlink.fit().predict({ring.steps, ring.port_critical_B, ring.reduced_max_rank_B});
  CHECK(us == Approx(2046 * 0.6 + 7151.29).epsilon(1e-6));
  CHECK_THROWS_AS(named_link("nvlink-h100"), ReportError);
}

TEST_CASE(
    "report --rules: Open MPI's choice kept unless a forced algorithm is faster beyond the noise, "
    "in a file Open MPI's reader takes") {
  auto row = [](const std::string& algorithm, int P, uint64_t bytes, double us, double lo,
                double hi) {
    Measurement m;
    m.algorithm = algorithm, m.impl = Impl::mpi, m.P = P, m.bytes = bytes, m.t_median_us = us;
    m.ci_lo_us = lo, m.ci_hi_us = hi, m.check = Check::ok;
    return m;
  };
  // P = 4. 4 KiB: recursive doubling's interval wholly below the default's:
  // switched. 64 KiB: the ring's median is lower but the intervals overlap:
  // the default kept. 1 MiB: the ring beyond the noise in one launch, but a
  // second launch's interval reaches the default's: kept. A failed row is
  // not a candidate.
  std::vector<Measurement> rows{row("MPI_Allreduce", 4, 4096, 20, 19, 21),
                                row("MPI_Allreduce:recursive_doubling", 4, 4096, 10, 9, 11),
                                row("MPI_Allreduce:ring", 4, 4096, 30, 29, 31),
                                row("MPI_Allreduce", 4, 65536, 50, 45, 55),
                                row("MPI_Allreduce:ring", 4, 65536, 40, 35, 46),
                                row("MPI_Allreduce", 4, 1048576, 500, 490, 510),
                                row("MPI_Allreduce:ring", 4, 1048576, 400, 395, 405),
                                row("MPI_Allreduce:ring", 4, 1048576, 420, 400, 495),
                                row("MPI_Bcast", 2, 64, 9, 8.5, 9.5),
                                row("MPI_Bcast:binomial", 2, 64, 5, 4.5, 5.5),
                                row("MPI_Alltoall", 2, 64, 5, 4.5, 5.5)};
  rows.push_back(row("MPI_Allreduce:basic_linear", 4, 1048576, 2, 1, 3));
  rows.back().check = Check::fail;
  const std::string text = open_mpi_rules(rows, "test");
  // From recursive doubling back to the default at the geometric mean of 4 KiB and 64 KiB.
  CHECK(text.find("4  # P\n2  # message sizes\n0 3 0 0  # from 0 B: recursive_doubling\n"
                  "16384 0 0 0  # from 16384 B: Open MPI's own choice\n") != std::string::npos);
  CHECK(text.find("P = 4, 4096 B: recursive_doubling 10.0 us [9.0, 11.0] against the default "
                  "20.0 us [19.0, 21.0]: faster beyond the noise") != std::string::npos);
  CHECK(text.find("P = 4, 65536 B: ring 40.0 us [35.0, 46.0] against the default 50.0 us "
                  "[45.0, 55.0]: not faster beyond the noise, the default kept") !=
        std::string::npos);
  CHECK(text.find("P = 4, 1048576 B: ring 400.0 us [395.0, 495.0]") != std::string::npos);
  CHECK(text.find("7  # MPI_Bcast") != std::string::npos);
  CHECK(text.find("2  # collectives") != std::string::npos);  // Alltoall forced nothing
  const std::string path = write_temp(text);
  CHECK(rules_problem(path) == "");
  std::filesystem::remove(path);
  // Forced rows without their default: nothing to be faster than, so kept.
  const std::string alone = open_mpi_rules({rows[1], rows[2]}, "test");
  CHECK(alone.find("1  # message sizes\n0 0 0 0") != std::string::npos);
  CHECK(alone.find("the default not measured: kept") != std::string::npos);
  CHECK_THROWS_WITH(open_mpi_rules({row("MPI_Allreduce", 4, 64, 1, 1, 1)}, "f.csv"),
                    Catch::Contains("no row forced"));
  // The file cannot tell dtypes (or devices, or ops) apart: one at a time.
  std::vector<Measurement> mixed{row("MPI_Allreduce:ring", 4, 64, 1, 1, 1),
                                 row("MPI_Allreduce:ring", 4, 64, 1, 1, 1)};
  mixed[0].dtype = "float32", mixed[1].dtype = "float64";
  CHECK_THROWS_WITH(open_mpi_rules(mixed, "f.csv"), Catch::Contains("one device, dtype and op"));
}

// Two rows set side by side: the ratio of their medians, the range their
// intervals allow, and the noisy flag of either (an interval over 30%), or
// that one has no interval to judge it by.
TEST_CASE("a comparison of two rows gives the medians' ratio, its range and any noise") {
  Measurement a, b;
  a.t_median_us = 90, a.ci_lo_us = 85, a.ci_hi_us = 95;
  b.t_median_us = 100, b.ci_lo_us = 95, b.ci_hi_us = 105;
  CHECK(median_ratio(a, b) == "0.90 [0.81, 1.00]");
  b.ci_hi_us = 140;  // 45% of its median: noisy
  CHECK(median_ratio(a, b) == "0.90 [0.61, 1.00] **noisy**");
  b.ci_lo_us.reset();  // no interval (fewer than 6 iterations): said, never steady
  CHECK(median_ratio(a, b) == "0.90 (no interval)");
  b.t_median_us = 0;
  CHECK(median_ratio(a, b) == "-");
}

// The default's counted messages say it already runs Rabenseifner at 1 MiB:
// a rule forcing Rabenseifner there would switch to what runs anyway, on
// launch-to-launch noise. P = 4 on 2 cores is said; one launch is warned of.
TEST_CASE(
    "report --rules keeps the default where it already runs the fastest, says where ranks "
    "outnumbered cores, and warns of one launch") {
  auto row = [](const std::string& algorithm, const std::string& chose, double us) {
    Measurement m;
    m.algorithm = algorithm, m.impl = Impl::mpi, m.P = 4, m.bytes = 1048576, m.t_median_us = us;
    m.ci_lo_us = us - 1, m.ci_hi_us = us + 1, m.check = Check::ok, m.chose = chose;
    m.cores_per_node = 2, m.host = "h", m.date = "2026-11-27T00:00:00Z";
    return m;
  };
  std::vector<Measurement> rows{row("MPI_Allreduce", "rabenseifner", 500),
                                row("MPI_Allreduce:rabenseifner", "rabenseifner", 400),
                                row("MPI_Allreduce:ring", "ring", 450)};
  const std::string text = open_mpi_rules(rows, "test");
  CHECK(text.find("the default already runs rabenseifner, kept") != std::string::npos);
  CHECK(text.find("1  # message sizes\n0 0 0 0") != std::string::npos);
  CHECK(text.find("# more ranks than cores at P = 4") != std::string::npos);
  CHECK_THAT(one_launch_warning(rows), Catch::StartsWith("warning: report --rules: every row"));
  rows[2].date = "2026-11-27T00:01:00Z";
  CHECK(one_launch_warning(rows).empty());
}

TEST_CASE("Open MPI's rules files: what its reader would refuse, refused with the reason") {
  auto problem = [](const std::string& text) {
    const std::string path = write_temp(text);
    const std::string why = rules_problem(path);
    std::filesystem::remove(path);
    return why;
  };
  CHECK(problem("# nothing\n0\n") == "");
  CHECK(problem("1 # one\n2\n1\n4\n1\n0 4 0 0 # ring\n") == "");
  CHECK_THAT(problem("1\n2\n1\n4\n2\n0 4 0 0\n0 3 0 0\n"),
             Catch::Contains("a message size (rising)"));
  CHECK_THAT(problem("2\n2\n0\n2\n0\n"), Catch::Contains("collective 2 twice"));
  CHECK_THAT(problem("1\n22\n0\n"),
             Catch::Contains("a collective's number: 22 is not from 0 to 21"));
  CHECK_THAT(problem("1\n2\n1\n4\n1\n0 4 0 0\n5\n"), Catch::Contains("numbers are left"));
  CHECK_THAT(problem("1\n2\n1\n0\n"), Catch::Contains("a communicator size (rising): 0"));
  CHECK_THAT(problem("1\n2\n2\n8\n1\n0 4 0 0\n4\n1\n0 4 0 0\n"),
             Catch::Contains("a communicator size (rising): 4 is not from 9"));
  CHECK_THAT(problem("1\n2\n1\n4\n1\n0 4x 0 0\n"), Catch::Contains("'4x' is not a number"));
  CHECK_THAT(problem("1\n2\n1\n4\n1\n0 4 0 99999999999999999999\n"),
             Catch::Contains("is not a number"));
  CHECK_THAT(rules_problem("/nonexistent/rules"), Catch::Contains("cannot read it"));
}

// On one node on host buffers the fit charges each step's busiest rank's and
// every rank's bytes moved in memory (model_memory_rank_B, _node_B), with no
// gamma of its own: rows made to follow it at 20 GB/s and 40 GB/s, P = 2, are
// predicted exactly, and the rates come back; the port's bytes are not read.
TEST_CASE("the summary on one node's memory: a step, the busiest rank's rate and the node's") {
  std::vector<Measurement> rows;
  struct {
    const char* name;
    double steps, rank, node;  // in units of N, at P = 2 (time_model_test works them)
  } algos[] = {{"ring", 2, 5.5, 11}, {"recursive_doubling", 1, 7, 14}, {"master_worker", 2, 9, 11}};
  for (uint64_t N : {uint64_t(1) << 20, uint64_t(1) << 22, uint64_t(1) << 24})
    for (const auto& a : algos) {
      Measurement m;
      m.program = "allreduce", m.algorithm = a.name, m.impl = Impl::hand, m.device = "host";
      m.dtype = "float32", m.op = "sum", m.check = Check::ok, m.P = 2, m.nodes = 1;
      m.bytes = N, m.count = N / 4, m.model_steps = uint64_t(a.steps);
      m.model_critical_path_B = 1, m.model_reduced_max_B = 1;  // not read on one node
      m.model_memory_rank_B = uint64_t(a.rank * double(N));
      m.model_memory_node_B = uint64_t(a.node * double(N));
      m.t_median_us = m.t_avg_us =
          30 * a.steps + a.rank * double(N) / 20e3 + a.node * double(N) / 40e3;
      rows.push_back(m);
    }
  CHECK(rows.front().on_one_node_memory());
  CHECK(regressors(rows.front()).size() == 4);  // and the size, for the tier
  const std::string s = formulas_summary(rows, Machine{});
  INFO(s);
  CHECK(s.find("the busiest rank's bytes moved at 20 GB/s, the node's at 40 GB/s (one rank moving "
               "memory alone: 13.3 GB/s") != std::string::npos);
  CHECK(s.find("alpha 30.0 us") != std::string::npos);
  CHECK(s.find("no longer hold") == std::string::npos);  // one rate fits every size: no tier
  CHECK(s.find("| recursive_doubling (allreduce) | 2 (fitted) | **yes** (3 of 3) |") !=
        std::string::npos);
  CHECK(
      s.find("Where the ranks ran on one node on host buffers the resource is the node's memory") !=
      std::string::npos);
}

// fit_with_tier: the busiest rank's bytes cost more from 16 MiB on (the
// caches no longer hold the buffers); the fit finds that size and both rates,
// and keeps one rate where one rate is the truth.
TEST_CASE("one node's fit finds the size from which memory is slower, and only where it is") {
  std::vector<std::vector<double>> x;
  std::vector<double> t_tier, t_flat;
  const double rates[][3] = {{2, 5.5, 11}, {1, 7, 14}, {2, 9, 11}, {3, 6, 12}};
  for (double N : {1 << 20, 1 << 21, 1 << 22, 1 << 23, 1 << 24, 1 << 25})
    for (const auto& r : rates) {
      x.push_back({r[0], r[1] * N, r[2] * N, N});
      const double flat = 30 * r[0] + r[1] * N / 20e3;
      t_flat.push_back(flat);
      t_tier.push_back(flat + (N >= (1 << 24) ? r[1] * N / 10e3 : 0));
    }
  const Fit tiered = fit_with_tier(x, t_tier);
  REQUIRE(tiered.tier_from_B);
  CHECK(*tiered.tier_from_B == double(1 << 24));
  CHECK(1e-3 / tiered.at(1) == Approx(20).epsilon(0.01));
  CHECK(1e-3 / tiered.at(kTierKey) == Approx(10).epsilon(0.01));
  CHECK(tiered.predict(x.back()) == Approx(t_tier.back()).epsilon(0.01));
  CHECK(tiered.predict(x.front()) == Approx(t_tier.front()).epsilon(0.01));
  const Fit flat = fit_with_tier(x, t_flat);
  CHECK_FALSE(flat.tier_from_B);
  CHECK(flat.predict(x.back()) == Approx(t_flat.back()).epsilon(0.01));
  // Rows of another width are fitted as they are.
  CHECK_FALSE(fit_with_tier({{1, 2, 3}, {2, 3, 5}}, {1, 2}).tier_from_B);
}
