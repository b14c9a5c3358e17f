// The CSV writer read back with the fccp parser, as the analysis will read it.
// clang-format off
#include <limits>  // before csv.h, which uses std::numeric_limits without including it
#include <libfccp/csv.h>
// clang-format on
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <iterator>

#include "core/errors.hpp"
#include "core/results.hpp"

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
  r.impl = "hand";
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
  r.traffic = "exact";
  r.check = "ok";
  r.note = "a note, with a comma and \"quotes\"";
  return r;
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
  { CsvFile(path).append({sample(info, 8)}); }
  { CsvFile(path).append({sample(info, 16), sample(info, 32)}); }

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
  CHECK_THROWS_AS(CsvFile(path), UsageError);
  unlink(path.c_str());
  CHECK_THROWS_AS(CsvFile("/nonexistent-dir/x.csv"), UsageError);
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
  { CsvFile(path).append({sample(info, 12)}); }
  std::string whole;
  {
    std::ifstream in(path);
    whole.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  for (const std::string& cut : {whole.substr(0, whole.size() - 1), csv_header()}) {
    std::ofstream(path, std::ios::trunc) << cut;
    CHECK_THROWS_WITH(CsvFile(path), Catch::Contains("does not end with a newline"));
    std::ifstream in(path);
    CHECK(std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()) == cut);
  }
  std::ofstream(path, std::ios::trunc) << csv_header() << "\n";  // a header alone: rows follow it
  { CsvFile(path).append({sample(info, 12)}); }
  std::ifstream in(path);
  std::string first, second;
  CHECK((std::getline(in, first) && std::getline(in, second)));
  CHECK(first == csv_header());
  CHECK(second == csv_line(sample(info, 12)).substr(0, second.size()));
  unlink(path.c_str());
}
