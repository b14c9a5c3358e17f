// The CSV writer read back with the fccp parser, as the analysis will read it.
// clang-format off
#include <limits>  // before csv.h, which uses std::numeric_limits without including it
#include <libfccp/csv.h>
// clang-format on
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <iterator>

#include "core/comm/errors.hpp"
#include "harness/results.hpp"

using namespace commlab;

namespace {
std::string temp_path() {
  char name[] = "/tmp/commlab_csv_XXXXXX";
  int fd = mkstemp(name);
  close(fd);
  unlink(name);
  return name;
}

Row sample(const RunInfo& info, uint64_t count) {
  Row r;
  r.run = &info;
  r.algorithm = "ring";
  r.impl = Impl::hand;
  r.dtype = "float32";
  r.op = "sum";
  r.count = count;
  r.bytes = count * 4;
  r.t_avg_us = 12.5;
  r.counted = Traffic{48, 48, 192, 24, 6, 0};
  r.model = Traffic{48, 48, 192, 24, 6, 48};
  r.taught_formula = "2*(N/P)*(P-1)";
  r.taught_T_B = 48;
  r.wrong = 0;
  r.diff_vs_lib = 0;
  r.traffic = TrafficCheck::exact;
  r.check = Check::ok;
  r.note = "a note, with a comma and \"quotes\"";
  return r;
}

// Appends rows as a program does: one write of whole lines.
void append_rows(const std::string& path, const std::vector<Row>& rows) {
  std::string lines;
  for (const Row& r : rows) lines += csv_line(r);
  LinesFile(path, csv_header(), "--csv").append_lines(lines);
}
}  // namespace

TEST_CASE("rows written twice to one file read back with one header") {
  RunInfo info{"allreduce_ring",
               "host",
               "node1",
               "2026-01-01T00:00:00Z",
               "Open MPI v4.1.4",
               "abc",
               4,
               0,
               20,
               5,
               false};
  std::string path = temp_path();
  { append_rows(path, {sample(info, 8)}); }
  { append_rows(path, {sample(info, 16), sample(info, 32)}); }

  io::CSVReader<9, io::trim_chars<>, io::double_quote_escape<',', '"'>> in(path);
  in.read_header(io::ignore_extra_column, "program", "count", "P", "sent_max_rank_B",
                 "model_critical_path_B", "taught_formula", "check", "note", "diff_vs_lib");
  std::string program, formula, check, note;
  uint64_t count, sent, critical, diff;
  int P;
  std::vector<uint64_t> counts;
  while (in.read_row(program, count, P, sent, critical, formula, check, note, diff)) {
    CHECK(program == "allreduce_ring");
    CHECK(P == 4);
    CHECK(sent == 48);
    CHECK(critical == 48);
    CHECK(formula == "2*(N/P)*(P-1)");
    CHECK(check == "ok");
    CHECK(note == "a note, with a comma and \"quotes\"");
    counts.push_back(count);
  }
  CHECK(counts == std::vector<uint64_t>{8, 16, 32});
  unlink(path.c_str());
}

TEST_CASE("library rows leave the counted columns empty") {
  RunInfo info{"p", "host", "h", "d", "m", "v", 2, 0, 1, 0, false};
  Row r = sample(info, 1);
  r.counted.reset();
  r.model.reset();
  r.note = "";
  std::string line = csv_line(r);
  CHECK(std::count(line.begin(), line.end(), ',') == long(csv_columns().size()) - 1);
  CHECK(line.find(",,,,,,,,,,,") != std::string::npos);
}

TEST_CASE("a file with other columns, or an unwritable path, is refused") {
  std::string path = temp_path();
  std::ofstream(path) << "a,b,c\n1,2,3\n";
  CHECK_THROWS_AS(LinesFile(path, csv_header(), "--csv"), UsageError);
  unlink(path.c_str());
  CHECK_THROWS_AS(LinesFile("/nonexistent-dir/x.csv", csv_header(), "--csv"), UsageError);
}

TEST_CASE("the schema has the columns the issue names") {
  for (const char* c : {"program",
                        "algorithm",
                        "impl",
                        "device",
                        "dtype",
                        "op",
                        "P",
                        "count",
                        "bytes",
                        "iters",
                        "t_avg_us",
                        "t_min_us",
                        "t_max_us",
                        "t_median_us",
                        "algbw_GBps",
                        "busbw_GBps",
                        "sent_max_rank_B",
                        "sent_total_B",
                        "msgs_total",
                        "steps",
                        "model_sent_max_rank_B",
                        "model_sent_total_B",
                        "taught_T_B",
                        "check"})
    CHECK(std::find(csv_columns().begin(), csv_columns().end(), c) != csv_columns().end());
}

TEST_CASE("a file that ends mid-line is refused, so no row is glued onto its last") {
  const std::string path = temp_path();
  RunInfo info;
  { append_rows(path, {sample(info, 12)}); }
  std::string whole;
  {
    std::ifstream in(path);
    whole.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  for (const std::string& cut : {whole.substr(0, whole.size() - 1), csv_header()}) {
    std::ofstream(path, std::ios::trunc) << cut;
    CHECK_THROWS_WITH(LinesFile(path, csv_header(), "--csv"),
                      Catch::Contains("does not end with a newline"));
    std::ifstream in(path);
    CHECK(std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()) == cut);
  }
  std::ofstream(path, std::ios::trunc) << csv_header() << "\n";  // a header alone: rows follow it
  { append_rows(path, {sample(info, 12)}); }
  std::ifstream in(path);
  std::string first, second;
  CHECK((std::getline(in, first) && std::getline(in, second)));
  CHECK(first == csv_header());
  CHECK(second == csv_line(sample(info, 12)).substr(0, second.size()));
  unlink(path.c_str());
}

TEST_CASE("host names compress as Slurm writes them") {
  CHECK(compress_hosts({"n2", "n0", "n1", "n3"}) == "n[0-3]");
  CHECK(compress_hosts({"n1"}) == "n1");
  CHECK(compress_hosts({"n0", "n1", "n3", "n1"}) == "n[0-1,3]");
  CHECK(compress_hosts({"gpu07", "gpu08", "gpu10", "login", "n9", "n10"}) ==
        "gpu[07-08,10],login,n[9-10]");
  CHECK(compress_hosts({"vm"}) == "vm");
  CHECK(compress_hosts({}).empty());
}

TEST_CASE("the placement line: nodes, ranks per node (a range where uneven), hosts") {
  CHECK(placement_of({"n0", "n1", "n2", "n3", "n0", "n1", "n2", "n3"}).line() ==
        "4 nodes x 2 ranks: n[0-3]");
  const Placement uneven = placement_of({"n0", "n1", "n2", "n0", "n1"});
  CHECK(uneven.line() == "3 nodes x 1-2 ranks: n[0-2]");
  CHECK((uneven.nodes == 3 && uneven.ranks_min == 1 && uneven.ranks_max == 2));
  CHECK(placement_of({"vm"}).line() == "1 node x 1 rank: vm");
}

TEST_CASE("a JSON row holds the CSV's fields in order, numbers as numbers, empty as null") {
  RunInfo info;
  info.program = "allreduce_ring";
  info.placement = placement_of({"n0", "n1"});
  Row r = sample(info, 8);
  r.link_GBps = 0.5;
  const std::string line = json_line(r);
  REQUIRE(line.back() == '\n');
  CHECK(line.find("\"program\":\"allreduce_ring\"") == 1);
  CHECK(line.find("\"count\":8,") != std::string::npos);
  CHECK(line.find("\"t_avg_us\":12.5,") != std::string::npos);
  CHECK(line.find("\"t_model_us\":null") != std::string::npos);
  CHECK(line.find("\"nodes\":2,\"ranks_per_node\":1,\"hosts\":\"n[0-1]\"") != std::string::npos);
  CHECK(line.find("\"note\":\"a note, with a comma and \\\"quotes\\\"\"") != std::string::npos);
  size_t at = 0;
  for (const std::string& c : csv_columns()) {  // every column, in the CSV's order
    const size_t next = line.find("\"" + c + "\":", at);
    CHECK(next != std::string::npos);
    at = next;
  }
}
