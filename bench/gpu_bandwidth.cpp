// The GPU's own ceiling for the reduction kernel: a device-to-device copy
// (bytes read + written per second) beside the kernel that all-reduce steps
// run (acc += in: two arrays read, one written), best of several runs each.
// One line per size; the ratio is how close the kernel gets to a copy.
//   gpu_bandwidth [-m MIN:MAX] [-i repeats] [--csv FILE]
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>

#include "core/comm/errors.hpp"
#include "core/device/device.hpp"
#include "harness/options.hpp"
#include "harness/results.hpp"
#include "harness/version.hpp"

int main(int argc, char** argv) {
  using namespace commlab;
  CLI::App app("gpu_bandwidth: device copy bandwidth vs the reduction kernel's", "gpu_bandwidth");
  std::string sizes = "1M:1G", csv;
  int repeats = 20;
  app.add_option("-m,--message-size", sizes, "MIN:MAX bytes per array, suffixes K M G")
      ->capture_default_str();
  app.add_option("-i,--iterations", repeats, "timed runs per size (the best is kept)")
      ->check(CLI::Range(1, kItersMax))
      ->capture_default_str();
  app.add_option("--csv", csv, "append one row per size to FILE");
  app.set_version_flag("--version", version_text("gpu_bandwidth"));
  try {
    app.parse(argc, argv);
    auto colon = sizes.find(':');
    size_t lo = parse_size(sizes.substr(0, colon));
    size_t hi = colon == std::string::npos ? lo : parse_size(sizes.substr(colon + 1));
    std::string why = gpu::unavailable_reason();
    if (!why.empty()) throw UsageError(why);
    // Three arrays of the largest size: a copy's source and target, then acc and in.
    const double need_B = 3.0 * double(hi), have_B = double(gpu::inventory().smallest_B);
    if (need_B > 0.9 * have_B)
      throw UsageError(
          fmt::format("-m {}: three arrays of {} B need {:.1f} GiB; the GPU has {:.1f}", sizes, hi,
                      need_B / (1 << 30), have_B / (1 << 30)));
    gpu::select(0);
    const std::string header = "device,bytes,copy_GBps,reduce_GBps,ratio";
    LinesFile out;
    if (!csv.empty()) out = LinesFile(csv, header, "--csv");
    const std::string device = gpu::describe();
    fmt::print("# {}\n# {:>12} {:>12} {:>14} {:>7}\n", device, "bytes", "copy_GB/s", "reduce_GB/s",
               "ratio");
    for (size_t bytes : size_range(lo, hi, 2)) {
      gpu::Bandwidth bw = gpu::measure_bandwidth(bytes, repeats);
      const double ratio = bw.reduce_GBps / bw.copy_GBps;
      fmt::print("  {:>12} {:>12.1f} {:>14.1f} {:>7.3f}\n", bytes, bw.copy_GBps, bw.reduce_GBps,
                 ratio);
      if (out.is_open())
        out.append_lines(fmt::format("{},{},{:.1f},{:.1f},{:.4f}\n", csv_text(device), bytes,
                                     bw.copy_GBps, bw.reduce_GBps, ratio));
    }
  } catch (const CLI::CallForHelp&) {
    fmt::print("{}", app.help());
    return 0;
  } catch (const CLI::CallForVersion& e) {
    fmt::print("{}\n", e.what());
    return 0;
  } catch (const CLI::ParseError& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return 2;
  } catch (const UsageError& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return 1;
  }
  return 0;
}
