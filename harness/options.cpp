#include "options.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/comm/errors.hpp"
#include "core/vocabulary/numbers.hpp"
#include "harness/cli_app.hpp"

namespace commlab {

size_t parse_size(const std::string& text) {
  const size_t digits = std::min(text.find_first_not_of("0123456789"), text.size());
  const std::string suffix = text.substr(digits);
  const int shift = suffix.empty()                   ? 0
                    : suffix == "K" || suffix == "k" ? 10
                    : suffix == "M" || suffix == "m" ? 20
                    : suffix == "G" || suffix == "g" ? 30
                                                     : -1;
  const auto v = whole_number(std::string_view(text).substr(0, digits));
  const auto bytes = v && shift >= 0 ? product(*v, uint64_t{1} << shift) : std::nullopt;
  if (!bytes)
    throw UsageError("bad size '" + text +
                     "' (use bytes with an optional K, M or G suffix, below 2^64)");
  return *bytes;
}

size_t parse_count(const std::string& text, const std::string& flag) {
  if (auto v = whole_number(text)) return *v;
  throw UsageError(flag + ": bad count '" + text + "' (use whole numbers below 2^64)");
}

namespace {
bool within(const std::string& text, double min, double max) {
  const auto v = finite_number(text);
  return v && *v >= min && *v <= max;
}
}  // namespace

double parse_finite(const std::string& text, double min, double max, const std::string& flag) {
  if (!within(text, min, max))
    throw UsageError(fmt::format("{} {}: use a number from {:g} to {:g}", flag, text, min, max));
  return *finite_number(text);
}

std::vector<size_t> size_range(size_t lo, size_t hi, double factor) {
  if (lo > hi) throw UsageError("-m MIN:MAX needs MIN <= MAX");
  if (!(factor > 1) || !std::isfinite(factor))
    throw UsageError("-f step factor must be a finite number above 1");
  std::vector<size_t> v{lo};
  // In double, compared before any cast: a size past 2^64 would wrap. From 0
  // the next size is 1, so a range starting at 0 still grows.
  for (double s = std::max(1.0, static_cast<double>(lo) * factor); s < 0x1p64; s *= factor) {
    const size_t b = static_cast<size_t>(s);
    if (b > hi) break;
    if (b != v.back()) v.push_back(b);
  }
  return v;
}

std::vector<size_t> parse_size_range(const std::string& text, double factor) {
  const auto colon = text.find(':');
  const size_t lo = parse_size(text.substr(0, colon));
  const size_t hi = colon == std::string::npos ? lo : parse_size(text.substr(colon + 1));
  return size_range(lo, hi, factor);
}

std::vector<size_t> Options::counts_for(DType t) const {
  if (!counts.empty()) return counts;
  std::vector<size_t> v;
  for (size_t b : sizes_B) {
    size_t c = b / element_size(t);
    if (v.empty() || c != v.back()) v.push_back(c);
  }
  return v;
}

std::vector<std::string> pick_algorithms(const Options& o, const std::vector<std::string>& known) {
  if (o.algorithms.empty()) return known;
  if (o.algorithms == std::vector<std::string>{"none"}) return {};  // the library rows alone
  std::string choices;
  for (const auto& k : known) choices += (choices.empty() ? "" : ", ") + k;
  for (const auto& a : o.algorithms)
    if (std::find(known.begin(), known.end(), a) == known.end())
      throw UsageError("-a " + a + ": " + o.program + " has no such algorithm (choose from " +
                       choices + ")");
  std::vector<std::string> picked;
  for (const auto& k : known)
    if (std::find(o.algorithms.begin(), o.algorithms.end(), k) != o.algorithms.end())
      picked.push_back(k);
  return picked;
}

namespace {

// The flags as typed, before they are read into Options.
struct Typed {
  std::string sizes = "4:16M", counts, algorithms = "all", device = "host", dtypes = "float32",
              ops = "sum", check = "on", transport = "auto", segment;
  CLI::Option *sizes_opt = nullptr, *counts_opt = nullptr, *probes_opt = nullptr;
};

// An empty value is most often a script's unset variable: refused, not
// taken for "force nothing".
CLI::Validator not_empty_value() {
  return CLI::Validator(
      [](std::string& v) {
        return v.empty() ? std::string(
                               "an empty value (an unset variable?): give a name, or "
                               "leave the flag out")
                         : std::string();
      },
      "");
}

// How the calls are timed (beside compute, interleaved) and what the
// library runs.
void add_timing_flags(CLI::App& app, Options& o, Typed& t) {
  app.add_flag("--overlap", o.overlap,
               "each call non-blocking (MPI_I*; the hand-written from their recorded schedule), "
               "with compute beside it: OSU's and IMB's overlap");
  t.probes_opt = app.add_option("--probes", o.probes,
                                "--overlap: test calls spread over the compute (default 0, as OSU)")
                     ->check(CLI::Range(0, kItersMax));
  app.add_flag("--interleave", o.interleave,
               "time a size's rows a call each in turn, in a new order each iteration, so that "
               "the machine's drift falls on every row alike");
  const CLI::Validator not_empty = not_empty_value();
  app.add_option("--mpi-algorithm", o.mpi_algorithm,
                 "Open MPI: force its own algorithm NAME on the library call (row MPI_X:NAME)")
      ->check(not_empty);
  app.add_option("--mpi-rules", o.mpi_rules,
                 "Open MPI: its dynamic rules FILE decides the library call (row MPI_X:rules)")
      ->check(not_empty);
}

void add_flags(CLI::App& app, Options& o, Typed& t) {
  t.sizes_opt =
      app.add_option("-m,--message-size", t.sizes, "MIN:MAX or SIZE in bytes, suffixes K M G")
          ->capture_default_str();
  t.counts_opt =
      app.add_option("-n,--count", t.counts, "element counts, comma separated (instead of -m)");
  app.add_option("-f,--step-factor", o.factor, "size multiplier between rows")
      ->check(finite_within(kFactorMin, kFactorMax))
      ->capture_default_str();
  app.add_option("-i,--iterations", o.iters,
                 "timed iterations per size (default: 100 below 1 MiB, where a p99 needs them; 20 "
                 "from there)")
      ->check(CLI::Range(1, kItersMax));
  app.add_option("-x,--warmup", o.warmup, "untimed iterations first")
      ->check(CLI::Range(0, kItersMax))
      ->capture_default_str();
  app.add_option(
         "-a,--algorithm", t.algorithms,
         "hand-written algorithms to run, comma separated, all, or none (the library rows alone)")
      ->capture_default_str();
  app.add_option("-d,--device", t.device, "buffers on: host or cuda")->capture_default_str();
  app.add_option("--transport", t.transport,
                 "auto; direct (ranks on one node read each other's memory); GPU buffers over MPI: "
                 "staged (through pinned host memory) or cuda-aware")
      ->capture_default_str();
  app.add_flag("--registered", o.registered,
               "direct: run on buffers allocated registered (default: private buffers, copied in "
               "and out inside the timed call)");
  app.add_option("-T,--type", t.dtypes, "int32,int64,float32,float64,float16,bfloat16 or all")
      ->capture_default_str();
  app.add_option("-o,--op", t.ops, "sum,prod,max,min or all")->capture_default_str();
  app.add_option("-r,--root", o.root, "root rank of rooted operations")->capture_default_str();
  app.add_flag("--in-place", o.in_place, "result overwrites the input buffer");
  app.add_option("-c,--check", t.check, "compare every result: on or off")->capture_default_str();
  app.add_option("--csv", o.csv, "append one row per measurement to FILE");
  app.add_option("--json", o.json,
                 "append one row per measurement to FILE as JSON Lines (an object per line)");
  app.add_option("--times", o.times,
                 "append every timed iteration's time on every rank to FILE (CSV, a row each)");
  app.add_flag("--show", o.show,
               "print buffers before/after and the schedule by phase (default: P elements)");
  app.add_flag("--steps", o.show_steps, "--show, and each rank's buffer after every step");
  app.add_option("--segment", t.segment,
                 "segmented ring: bytes per segment (default: the time model's best)");
  app.add_option("--node-size", o.node_size,
                 "treat each K consecutive ranks as one node (default: the real nodes)");
  add_timing_flags(app, o, t);
}

// The typed flags read into Options, or a UsageError naming the bad one.
void interpret(const Typed& t, Options& o) {
  o.show = o.show || o.show_steps;
  o.show_default_count = o.show && !t.counts_opt->count() && !t.sizes_opt->count();
  if (t.counts_opt->count())
    o.counts = parse_list<size_t>("-n", t.counts, {}, Repeats::dropped,
                                  [](const std::string& c) { return parse_count(c, "-n"); });
  o.sizes_B = parse_size_range(t.sizes, o.factor);
  if (t.algorithms != "all")
    o.algorithms = parse_list<std::string>("-a", t.algorithms, {}, Repeats::refused,
                                           [](const std::string& a) { return a; });
  o.device = parse_device(t.device);
  for (TransportKind k : {TransportKind::staged, TransportKind::cuda_aware, TransportKind::direct})
    if (t.transport == name(k)) o.transport = k;
  if (t.transport != "auto" && !o.transport)
    throw UsageError("unknown --transport '" + t.transport +
                     "' (use auto, direct, staged or cuda-aware)");
  if (o.device == Device::host && o.transport && o.transport != TransportKind::direct)
    throw UsageError("--transport " + t.transport +
                     ": GPU buffers only (-d cuda); host buffers "
                     "travel over MPI, or --transport direct");

  o.dtypes = parse_list("-T", t.dtypes, all_dtypes(), Repeats::refused, parse_dtype);
  o.ops = parse_list("-o", t.ops, all_ops(), Repeats::refused, parse_op);
  // Every buffer's bytes, from here on computed as count x element size, fit in 64 bits.
  for (DType d : o.dtypes)
    for (size_t c : o.counts)
      if (!product(c, element_size(d)))
        throw UsageError(
            fmt::format("-n {}: that many {} elements are past 2^64 bytes", c, name(d)));
  if (t.check != "on" && t.check != "off")
    throw UsageError("-c takes on or off, not '" + t.check + "'");
  o.check = t.check == "on";
  if (o.root < 0) throw UsageError("-r root must be 0 or more");
  if (!t.segment.empty()) o.segment_B = parse_size(t.segment);
  if (o.segment_B == size_t{0}) throw UsageError("--segment must be at least 1 byte");
  if (o.node_size < 0) throw UsageError("--node-size must be 1 or more");
  if (t.probes_opt->count() && !o.overlap)
    throw UsageError("--probes counts the test calls of --overlap: give --overlap too");
  if (o.interleave && o.overlap)
    throw UsageError(
        "--interleave and --overlap: an overlapped row is timed beside its own compute, "
        "one row at a time; give one of them");
  if (o.overlap && o.device != Device::host)
    throw UsageError(
        "--overlap: host buffers only for now (-d host); GPU buffers wait for a "
        "stream of their own");
  if (!o.mpi_algorithm.empty() && !o.mpi_rules.empty())
    throw UsageError("--mpi-algorithm and --mpi-rules: Open MPI takes one of them a launch");
}

}  // namespace

Parsed parse_options(int argc, char** argv, const std::string& program,
                     const std::string& description, const std::string& version) {
  Parsed out;
  out.opts.program = program;
  CLI::App app(description, program);
  app.get_formatter()->column_width(28);
  Typed typed;
  add_flags(app, out.opts, typed);
  out.help = app.help();
  if (!version.empty()) app.set_version_flag("--version", version);  // the programs' text
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    out.run = false;
    return out;
  } catch (const CLI::CallForVersion& e) {  // printed as the help is: once, by rank 0
    out.help = std::string(e.what()) + "\n";
    out.run = false;
    return out;
  } catch (const CLI::ParseError& e) {
    throw UsageError(e.what());
  }
  interpret(typed, out.opts);
  return out;
}

}  // namespace commlab
