#include "harness/options.hpp"

#include <catch2/catch.hpp>
#include <clocale>
#include <cmath>

#include "core/comm/errors.hpp"
#include "core/vocabulary/numbers.hpp"
#include "harness/devices.hpp"

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
  CHECK(parse({"-d", "cuda", "--transport", "staged"}).opts.transport == TransportKind::staged);
  CHECK(parse({"-d", "cuda", "--transport", "cuda-aware"}).opts.transport ==
        TransportKind::cuda_aware);
  CHECK(parse({"--transport", "direct"}).opts.transport == TransportKind::direct);
  CHECK(parse({"--transport", "direct", "--registered"}).opts.registered);
  CHECK_THROWS_WITH(parse({"--transport", "staged"}), Catch::Contains("GPU buffers only"));

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

TEST_CASE("numbers from outside: whole, finite, and arithmetic that never wraps") {
  CHECK(whole_number("0") == 0u);
  CHECK(whole_number("18446744073709551615") == UINT64_MAX);
  for (const char* bad : {"", "+1", "-1", " 1", "1 ", "0x10", "1e3", "18446744073709551616", "١"})
    CHECK_FALSE(whole_number(bad));
  CHECK(finite_number("1.5") == 1.5);
  CHECK(finite_number("-2e3") == -2000);
  for (const char* bad : {"", "inf", "-inf", "nan", "NaN", "1e999", " 1", "1,5", "1.5x", "+1"})
    CHECK_FALSE(finite_number(bad));
  CHECK(product(uint64_t{1} << 62, 4) == std::nullopt);
  CHECK(product(uint64_t{1} << 61, 4) == uint64_t{1} << 63);
  CHECK(sum(UINT64_MAX, 1) == std::nullopt);
  const float nan = std::nanf(""), values[] = {1.0f, nan};
  CHECK(all_finite(values, 1));
  CHECK_FALSE(all_finite(values, 2));
}

TEST_CASE("hostile flags: one usage error each, before anything is sized or run") {
  const std::vector<std::vector<std::string>> refused{
      // Sizes that wrap: count x element size, a suffix past 2^64.
      {"-n", "4611686018427387905", "-T", "float32"},
      {"-n", "2305843009213693952", "-T", "all"},
      {"-m", "17179869184G"},
      {"-m", "99999999999999999999"},
      {"-n", "18446744073709551616"},
      // Float flags past their range, or not numbers at all.
      {"-f", "inf"},
      {"-f", "nan"},
      {"-f", "1e19"},
      {"-f", "1e308"},
      {"-f", "1"},
      {"-f", "-2"},
      {"-f", "0x2"},
      {"-f", "2,5"},
      // Signs, empty items, repeats, whitespace.
      {"-n", "-4"},
      {"-n", "+4"},
      {"-n", " 4"},
      {"-n", ""},
      {"-n", ","},
      {"-n", "4,"},
      {"-n", "4,,8"},
      {"-n", "all"},
      {"-T", "float32,float32"},
      {"-T", ""},
      {"-o", "sum,"},
      {"-a", ""},
      {"-a", "ring,ring"},
      {"-m", "4:"},
      {"-m", ":4"},
      {"-m", "4:8:16"},
      {"-m", "-4"},
      // Unbounded repeats.
      {"-i", "2147483647"},
      {"-x", "1000001"},
      {"-i", "1e3"},
      {"-r", "99999999999"}};
  for (const auto& args : refused) {
    INFO(args[0] << " '" << args[1] << "'");
    CHECK_THROWS_AS(parse(args), UsageError);
  }
  // Still fine: the edges themselves, and a count listed twice (run once).
  CHECK(parse({"-n", "0,1,0,2"}).opts.counts == std::vector<size_t>{0, 1, 2});
  CHECK(parse({"-f", "1024", "-m", "1:1M"}).opts.sizes_B.size() == 3);
  CHECK(parse({"-n", "2305843009213693951", "-T", "int64"}).opts.counts.size() == 1);
  CHECK(parse({"-m", "18446744073709551615"}).opts.sizes_B == std::vector<size_t>{SIZE_MAX});
}

TEST_CASE("numbers read alike whatever the locale says a decimal point is") {
  const std::string before = std::setlocale(LC_ALL, nullptr);
  for (const char* name : {"de_DE.UTF-8", "fr_FR.UTF-8", "C.UTF-8"}) {
    if (!std::setlocale(LC_ALL, name)) continue;  // not installed here: nothing to show
    INFO(name);
    CHECK(finite_number("1.5") == 1.5);
    CHECK_FALSE(finite_number("1,5"));
    CHECK(parse({"-f", "1.5", "-m", "4:9"}).opts.sizes_B == std::vector<size_t>{4, 6, 9});
    CHECK_THROWS_AS(parse({"-f", "1,5"}), UsageError);
  }
  std::setlocale(LC_ALL, before.c_str());
}

TEST_CASE("GPUs told apart by address: ranks that each see one GPU may share it or not") {
  const Nodes two_nodes({0, 0, 1, 1});
  // Node 1's ranks each see "device 0", but it is one GPU: NCCL cannot run there.
  const GpuSharing one =
      gpu_sharing(two_nodes, {"0000:1a:00.0", "0000:1b:00.0", "0000:1a:00.0", "0000:1a:00.0"});
  CHECK((one.most_on_one == 2 && one.ranks == 2 && one.gpus == 1));
  // A GPU each, on both nodes (the same addresses on two hosts are two GPUs).
  const GpuSharing each =
      gpu_sharing(two_nodes, {"0000:1a:00.0", "0000:1b:00.0", "0000:1a:00.0", "0000:1b:00.0"});
  CHECK((each.most_on_one == 1 && each.ranks <= each.gpus));
  const GpuSharing pairs = gpu_sharing(Nodes({0, 0, 0, 0}), {"a", "b", "a", "b"});
  CHECK((pairs.most_on_one == 2 && pairs.ranks == 4 && pairs.gpus == 2));
}
