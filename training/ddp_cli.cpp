#include "ddp_cli.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <climits>

#include "core/comm/errors.hpp"
#include "core/vocabulary/numbers.hpp"
#include "harness/cli_app.hpp"
#include "harness/host.hpp"
#include "harness/options.hpp"
#include "harness/version.hpp"
#include "operations/operation.hpp"
#include "training/ddp_buckets.hpp"

namespace commlab::ddp {

namespace {

constexpr int kLayersMax = 4096, kHiddenMax = 16384, kBatchMax = 65536;
constexpr double kBucketMin_MiB = 1.0 / 1024, kBucketMax_MiB = 1 << 20;

// -a: hand-written all-reduces that pass messages (the ones --overlap can
// replay), "none", or "all" of them.
std::vector<std::string> read_algorithms(const std::string& text) {
  const auto op = make_operation("allreduce");
  std::vector<std::string> known;
  for (const CollectiveAlgorithm& a : op->algorithms)
    if (!a.reads_peers) known.push_back(a.name);
  if (text == "none") return {};
  return parse_list<std::string>("-a", text, known, Repeats::refused, [&](const std::string& a) {
    if (std::find(known.begin(), known.end(), a) == known.end())
      throw UsageError(
          fmt::format("-a {}: no such all-reduce that passes messages (choose from {})", a,
                      fmt::join(known, ", ")));
    return a;
  });
}

}  // namespace

Parse<Settings> parse_settings(int argc, char** argv, int, int) {
  CLI::App app(
      "A training step as PyTorch's DDP runs it: backward through dense layers (GEMMs), the "
      "gradients all-reduced in buckets as they fill, non-blocking, beside the compute.",
      "ddp_step");
  app.get_formatter()->column_width(30);
  Settings s;
  std::string algorithms = "ring", buckets = "25", check = "on";
  bool no_library = false;
  app.add_option("--layers", s.layers, "dense layers, each H x H weights")
      ->check(CLI::Range(1, kLayersMax))
      ->capture_default_str();
  app.add_option("--hidden", s.hidden, "H: each layer's width")
      ->check(CLI::Range(1, kHiddenMax))
      ->capture_default_str();
  app.add_option("-b,--batch", s.batch, "examples per rank: each layer's backward is 4 B H^2 flops")
      ->check(CLI::Range(1, kBatchMax))
      ->capture_default_str();
  app.add_option("--bucket-MB", buckets,
                 "bucket capacities in MiB, comma separated (DDP's bucket_cap_mb; one row each)")
      ->capture_default_str();
  app.add_option("-a,--algorithm", algorithms,
                 "hand-written all-reduces for the buckets, replayed non-blocking; all or none")
      ->capture_default_str();
  app.add_flag("--no-library", no_library, "no MPI_Iallreduce rows");
  app.add_option("-i,--iterations", s.iters, "timed steps")
      ->check(CLI::Range(1, kItersMax))
      ->capture_default_str();
  app.add_option("-x,--warmup", s.warmup, "untimed steps first")
      ->check(CLI::Range(0, kItersMax))
      ->capture_default_str();
  app.add_option("-c,--check", check, "check every gradient after the step: on or off")
      ->capture_default_str();
  app.add_option("--csv", s.csv, "append one row per all-reduce and bucket size to FILE");
  Parse<Settings> p;
  if (!parse_app(app, argc, argv, version_text("ddp_step", mpi_version()), p.help)) return p;
  s.bucket_MiB =
      parse_list<double>("--bucket-MB", buckets, {}, Repeats::refused, [](const std::string& b) {
        return parse_finite(b, kBucketMin_MiB, kBucketMax_MiB, "--bucket-MB");
      });
  s.algorithms = read_algorithms(algorithms);
  // MPI's counts are int: every bucket of every cap within them.
  const size_t per_layer = size_t(s.hidden) * size_t(s.hidden);
  for (double MiB : s.bucket_MiB)
    for (const Range& r : bucket(s.layers, per_layer, sizeof(float), size_t(MiB * 1048576)).buckets)
      if (r.count > size_t(INT_MAX))
        throw UsageError(fmt::format(
            "--bucket-MB {}: a bucket of {} floats, past MPI's int count; take a smaller cap", MiB,
            r.count));
  s.library = !no_library;
  if (s.algorithms.empty() && !s.library)
    throw UsageError("-a none with --no-library: nothing to run");
  if (check != "on" && check != "off") throw UsageError("-c takes on or off, not '" + check + "'");
  s.check = check == "on";
  // Every rank holds the gradients, one layer's weights, activations and
  // their gradients: all float.
  const double H = s.hidden, grads_B = 4.0 * s.layers * H * H;
  p.footprint.host_B = grads_B * 3 + 4.0 * (2 * H * H + 3 * s.batch * H);
  p.settings = std::move(s);
  return p;
}

}  // namespace commlab::ddp
