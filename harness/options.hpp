// The flags every commlab program accepts, named after the OSU micro-benchmarks.
#pragma once
#include <algorithm>
#include <cstddef>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "core/comm/errors.hpp"
#include "core/vocabulary/types.hpp"

namespace commlab {

struct Options {
  std::string program;
  std::vector<size_t> sizes_B;  // from -m MIN:MAX and -f, in bytes
  std::vector<size_t> counts;   // from -n: element counts, used instead of -m
  double factor = 2;
  int iters = 0;  // -i; 0: by size (iters_for)
  int warmup = 5;
  Device device = Device::host;
  std::optional<TransportKind> transport;  // --transport; none: auto (cuda-aware where the MPI is)
  bool registered = false;  // --registered: the direct transport's buffers are the user's
  std::vector<DType> dtypes{DType::float32};
  std::vector<Op> ops{Op::sum};
  int root = 0;
  bool in_place = false;
  bool check = true;
  std::string csv, json;  // --csv, --json: files the rows are appended to
  std::string times;      // --times: every iteration's time on every rank, appended
  bool show = false;
  bool show_steps = false;              // --steps: and each rank's buffer after every step
  bool show_default_count = false;      // --show without -n or -m: P elements, once P is known
  std::vector<std::string> algorithms;  // from -a; empty: every algorithm of the program
  std::optional<size_t> segment_B;      // --segment; none: the time model's best
  int node_size = 0;                    // --node-size; 0: the real nodes
  // Open MPI's own algorithm forced on the library call for this launch, or
  // its rules file (harness/tuned.hpp); "": its default choice.
  std::string mpi_algorithm, mpi_rules;
  // --overlap: each call non-blocking, with compute beside it, as OSU's
  // osu_i* measure it (harness/overlap.hpp); --probes: test calls during it.
  bool overlap = false;
  int probes = 0;
  // --interleave: a shape's rows timed a call each in turn, each iteration
  // in its own order (the same on every rank), so that a drift of the
  // machine over a launch falls on every row alike (runner.hpp).
  bool interleave = false;

  // Element counts to run for one dtype: -n as given, else -m sizes / element size.
  std::vector<size_t> counts_for(DType t) const;
  // The timed iterations of a row of `bytes`: -i, else 100 below 1 MiB (a
  // p99 needs 100, distribution.hpp) and 20 from there, where a call is long.
  int iters_for(size_t bytes) const { return iters ? iters : bytes < (size_t(1) << 20) ? 100 : 20; }
  // The heading's words: "20", or "100 below 1 MiB, 20 from there".
  std::string iters_text() const {
    return iters ? std::to_string(iters) : "100 below 1 MiB, 20 from there";
  }
};

// Parses argv. --help prints usage and returns nullopt-like `false` in `run`.
// Bad input throws UsageError with a one-line message.
struct Parsed {
  Options opts;
  bool run = true;  // false after --help
  std::string help;
};
// `version`: what --version prints (harness/version.hpp); none, no --version.
Parsed parse_options(int argc, char** argv, const std::string& program,
                     const std::string& description, const std::string& version = "");

// The algorithms -a asked for, in the program's order, or a UsageError naming
// the unknown one and the choices.
std::vector<std::string> pick_algorithms(const Options& o, const std::vector<std::string>& known);

// Bounds that keep a run finite: a sweep's sizes grow by at least 0.1% a row,
// and no size is repeated more than a million times.
constexpr double kFactorMin = 1.001, kFactorMax = 1024;
constexpr int kItersMax = 1000000;

// "4K" -> 4096, "16M", "1G", plain bytes, below 2^64. Throws UsageError.
size_t parse_size(const std::string& s);
// Digits only, below 2^64; UsageError naming `flag` otherwise.
size_t parse_count(const std::string& text, const std::string& flag);
// A finite number from min to max; UsageError naming `flag` otherwise
// (NaN, inf, 1e999, a suffix or a space included).
double parse_finite(const std::string& text, double min, double max, const std::string& flag);
std::vector<size_t> size_range(size_t min_B, size_t max_B, double factor);
// -m's "MIN:MAX" (or one size) with factor -f between them.
std::vector<size_t> parse_size_range(const std::string& text, double factor);

// A comma-separated list, each item parsed; "all" (where the flag has it)
// for every value. Empty items and an empty list are refused: running the
// default instead would not be what was asked. A repeat is dropped where it
// is harmless (a count, e.g. P-1 = 0 at P = 1 in a script's list) and
// refused where it is likely a slip (a dtype, an op, an algorithm).
enum class Repeats { dropped, refused };
template <class T, class ParseOne>
std::vector<T> parse_list(const std::string& flag, const std::string& text,
                          const std::vector<T>& all, Repeats repeats, ParseOne parse) {
  if (text == "all" && !all.empty()) return all;
  std::vector<T> v;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');) {
    if (item.empty()) throw UsageError(flag + " " + text + ": an empty item in the list");
    T value = parse(item);
    if (std::find(v.begin(), v.end(), value) == v.end())
      v.push_back(std::move(value));
    else if (repeats == Repeats::refused)
      throw UsageError(flag + " " + text + ": '" + item + "' is listed twice");
  }
  if (v.empty() || text.back() == ',') throw UsageError(flag + " '" + text + "': an empty list");
  return v;
}

}  // namespace commlab
