#include <catch2/catch.hpp>

#include "core/errors.hpp"
#include "core/options.hpp"

using namespace commlab;

namespace {
Parsed parse(std::vector<std::string> args) {
  args.insert(args.begin(), "prog");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  return parse_options(static_cast<int>(argv.size()), argv.data(), "prog", "test");
}
}  // namespace

TEST_CASE("sizes take K, M and G suffixes, in bytes") {
  CHECK(parse_size("4") == 4);
  CHECK(parse_size("1K") == 1024);
  CHECK(parse_size("16M") == 16u << 20);
  CHECK(parse_size("2G") == size_t{2} << 30);
  CHECK_THROWS_AS(parse_size("12Q"), UsageError);
  CHECK_THROWS_AS(parse_size("-4"), UsageError);
  CHECK_THROWS_AS(parse_size(""), UsageError);
}

TEST_CASE("sizes from MIN:MAX and the step factor give the OSU size ladder") {
  auto o = parse({"-m", "1K:8K"}).opts;
  CHECK(o.sizes_B == std::vector<size_t>{1024, 2048, 4096, 8192});
  CHECK(parse({"-m", "0:4"}).opts.sizes_B == std::vector<size_t>{0, 1, 2, 4});
  CHECK(parse({"-m", "64"}).opts.sizes_B == std::vector<size_t>{64});
  CHECK(parse({"-m", "1:100", "-f", "10"}).opts.sizes_B == std::vector<size_t>{1, 10, 100});
  CHECK_THROWS_AS(parse({"-m", "8K:1K"}), UsageError);
  CHECK_THROWS_AS(parse({"-f", "1"}), UsageError);
}

TEST_CASE("counts per dtype come from bytes, or from -n as given") {
  auto o = parse({"-m", "4:16", "-T", "int64"}).opts;
  CHECK(o.counts_for(DType::int64) == std::vector<size_t>{0, 1, 2});
  auto n = parse({"-n", "0,1,5"}).opts;
  CHECK(n.counts_for(DType::float64) == std::vector<size_t>{0, 1, 5});
  CHECK_THROWS_AS(parse({"-n", "3,x"}), UsageError);
}

TEST_CASE("lists and 'all' for dtypes and ops") {
  auto o = parse({"-T", "all", "-o", "max,min"}).opts;
  CHECK(o.dtypes == all_dtypes());
  CHECK(o.ops == std::vector<Op>{Op::max, Op::min});
  CHECK_THROWS_WITH(parse({"-T", "int8"}), Catch::Contains("unknown dtype 'int8'"));
  CHECK_THROWS_WITH(parse({"-o", "avg"}), Catch::Contains("unknown op 'avg'"));
}

TEST_CASE("the transport flag: auto leaves the choice to the MPI, the others force it") {
  CHECK_FALSE(parse({}).opts.transport.has_value());
  CHECK_FALSE(parse({"--transport", "auto"}).opts.transport.has_value());
  CHECK(parse({"--transport", "staged"}).opts.transport == TransportKind::staged);
  CHECK(parse({"--transport", "cuda-aware"}).opts.transport == TransportKind::cuda_aware);
  CHECK_THROWS_WITH(parse({"--transport", "nvlink"}), Catch::Contains("unknown --transport"));
}

TEST_CASE("bad flags are usage errors, --help is not") {
  CHECK_THROWS_AS(parse({"--bogus"}), UsageError);
  CHECK_THROWS_AS(parse({"-i", "0"}), UsageError);
  CHECK_THROWS_AS(parse({"-d", "gpu"}), UsageError);
  CHECK_THROWS_AS(parse({"-c", "maybe"}), UsageError);
  CHECK_THROWS_AS(parse({"-r", "-1"}), UsageError);
  auto h = parse({"--help"});
  CHECK_FALSE(h.run);
  CHECK_THAT(h.help, Catch::Contains("--message-size"));
}
