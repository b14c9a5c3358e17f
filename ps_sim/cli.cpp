#include "cli.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <climits>

#include "core/comm/errors.hpp"
#include "core/vocabulary/numbers.hpp"
#include "harness/cli_app.hpp"
#include "harness/host.hpp"
#include "harness/options.hpp"
#include "harness/version.hpp"

namespace commlab::ps {

namespace {

// Bounds that keep a run finite (minutes at most, not hours).
constexpr int kSamplesMax = 1 << 24;
constexpr double kLrMin = 1e-9, kLrMax = 1e3, kSlowdownMax = 1000;

// The flags as typed, before they are checked against each other and the ranks.
struct Flags {
  std::string mode = "ps", consistency = "bsp", placement = "even", model = "1M", straggler,
              check = "on";
  int servers = 1;
  // Given on the command line, so refused where they mean nothing.
  const CLI::Option *servers_opt = nullptr, *tau_opt = nullptr;
};

void declare_flags(CLI::App& app, Flags& f, Settings& s) {
  Config& c = s.cfg;
  app.add_option("--mode", f.mode, "ps, colocated, ring or mpi")->capture_default_str();
  f.servers_opt =
      app.add_option("-s,--servers", f.servers, "server ranks (ps); workers are the rest")
          ->capture_default_str();
  app.add_option("--placement", f.placement, "shards: even, uneven or hashed")
      ->capture_default_str();
  app.add_option("--consistency", f.consistency, "bsp, ssp or async (ps)")->capture_default_str();
  f.tau_opt =
      app.add_option("--tau", c.tau, "ssp: staleness bound, in iterations")->capture_default_str();
  app.add_option("-M,--model", f.model, "parameter bytes, suffixes K M G")->capture_default_str();
  app.add_option("-C,--classes", c.shape.classes, "classes (rows of the model)")
      ->capture_default_str();
  app.add_option("-b,--batch", c.batch, "examples per worker per iteration (at most --samples)")
      ->check(CLI::Range(1, kSamplesMax))
      ->capture_default_str();
  app.add_option("--samples", c.samples, "examples in each worker's partition")
      ->check(CLI::Range(1, kSamplesMax))
      ->capture_default_str();
  app.add_option("-i,--iterations", c.iters, "SGD iterations")
      ->check(CLI::Range(1, kItersMax))
      ->capture_default_str();
  app.add_option("--lr", c.lr, "learning rate")
      ->check(finite_within(kLrMin, kLrMax))
      ->capture_default_str();
  app.add_option("--seed", c.seed, "seed of the synthetic data")->capture_default_str();
  app.add_option("--straggler", f.straggler, "W:F: worker W computes F times slower");
  app.add_option("-c,--check", f.check, "compare with serial SGD and the exact bytes: on or off")
      ->capture_default_str();
  app.add_option("--csv", s.csv, "append the run's row to FILE");
  app.add_option("--loss-csv", s.loss_csv, "append the loss of every iteration to FILE");
}

// The words of the flags, and which of them go together.
void read_choices(const Flags& f, Settings& s) {
  Config& c = s.cfg;
  c.mode = parse_mode(f.mode);
  c.consistency = parse_consistency(f.consistency);
  c.placement = parse_placement(f.placement);
  if (f.check != "on" && f.check != "off")
    throw UsageError("-c takes on or off, not '" + f.check + "'");
  s.check = f.check == "on";
  if (c.mode != Mode::ps && f.servers_opt->count())
    throw UsageError("--servers is for --mode ps (colocated has one server per rank)");
  if (c.mode != Mode::ps && c.consistency != Consistency::bsp)
    throw UsageError("--consistency " + f.consistency +
                     " needs --mode ps: only a dedicated server "
                     "can apply gradients as they come");
  if (f.tau_opt->count() && c.consistency != Consistency::ssp)
    throw UsageError("--tau is the bound of --consistency ssp");
  if (c.tau < 0) throw UsageError("--tau must be 0 or more");
}

// Workers and servers among the job's ranks.
void assign_roles(Config& c, int servers, int ranks) {
  if (c.mode != Mode::ps) {
    c.P = ranks;
    c.S = c.mode == Mode::colocated ? ranks : 0;
    return;
  }
  if (servers < 1) throw UsageError("--servers must be at least 1");
  if (servers >= ranks)
    throw UsageError(
        fmt::format("--servers {} leaves no worker among {} ranks: run with more "
                    "ranks than servers",
                    servers, ranks));
  c.S = servers;
  c.P = ranks - servers;
}

void shape_model(Config& c, const std::string& model) {
  if (c.shape.classes < 2) throw UsageError("-C classes must be at least 2");
  const size_t model_B = parse_size(model);
  const size_t row = model_B / sizeof(float) / size_t(c.shape.classes);  // weights and a bias
  if (row < 2 || row - 1 > size_t(INT_MAX))
    throw UsageError(fmt::format("-M {}: {} classes need between {} and {} bytes of parameters",
                                 model, c.shape.classes, 8 * c.shape.classes,
                                 uint64_t(INT_MAX) * 4 * c.shape.classes));
  c.shape = ModelShape::of_bytes(model_B, c.shape.classes);
  if (c.mode == Mode::mpi && c.shape.params() > size_t(INT_MAX))
    throw UsageError("-M: MPI_Allreduce counts are int; keep the model under 2^31 parameters");
}

// --straggler WORKER:FACTOR
void read_straggler(Config& c, const std::string& text) {
  const auto colon = text.find(':');
  const auto worker = whole_number(std::string_view(text).substr(0, colon));
  if (colon == std::string::npos || !worker)
    throw UsageError("--straggler " + text + ": use WORKER:FACTOR, e.g. 0:4");
  if (*worker >= uint64_t(c.P))
    throw UsageError(fmt::format("--straggler: worker {} is not among the {} workers (0..{})",
                                 *worker, c.P, c.P - 1));
  c.straggler = int(*worker);
  c.slowdown = parse_finite(text.substr(colon + 1), 1, kSlowdownMax, "--straggler factor");
}

// What `rank` will hold at most, in bytes, counted from the settings.
Footprint footprint(const Settings& s, int rank) {
  const Config& c = s.cfg;
  const double M = double(c.shape.bytes()), iters_B = 8.0 * c.iters;
  const double labels_B = 4.0 * c.samples;  // one int per example; features are made on the fly
  const bool server = c.mode == Mode::ps ? rank < c.S : c.mode == Mode::colocated;
  const bool worker = c.mode != Mode::ps || rank >= c.S;
  double shard_B = 0;
  if (server)
    for (const Shard& sh : s.shards) shard_B = std::max(shard_B, 4.0 * double(sh.count()));
  double need_B = iters_B;  // the loss of each iteration, or the staleness histogram
  // A worker: weights, gradient and the packed push and pull (or the ring's room).
  if (worker) need_B += 4 * M + labels_B;
  // A server: its weights, what comes in, and (bsp) one gradient per worker.
  if (server) need_B += (2.0 + c.P) * shard_B + iters_B;
  // Rank 0 gathers the model and every iteration's figures, and checks
  // against serial SGD: every worker's labels, weights, sum and gradient.
  if (rank == 0) need_B += 2 * M + 2 * iters_B + (s.check ? 3 * M + c.P * labels_B : 0);
  return {need_B, 0};
}

}  // namespace

Parse<Settings> parse_settings(int argc, char** argv, int ranks, int rank) {
  CLI::App app(
      "Trains softmax regression with a parameter server, colocated servers or an "
      "all-reduce, and counts every byte.",
      "ps_sim");
  app.get_formatter()->column_width(30);
  Settings s;
  Config& c = s.cfg;
  c.shape.classes = 16;
  Flags f;
  declare_flags(app, f, s);
  Parse<Settings> p;
  if (!parse_app(app, argc, argv, version_text("ps_sim", mpi_version()), p.help)) return p;
  read_choices(f, s);
  assign_roles(c, f.servers, ranks);
  shape_model(c, f.model);
  // A batch wraps around the partition: past one pass it only repeats examples.
  if (c.batch > c.samples)
    throw UsageError(fmt::format("-b {}: a batch is at most the {} --samples", c.batch, c.samples));
  if (c.tau > c.iters)
    throw UsageError(fmt::format("--tau {}: at most the {} iterations", c.tau, c.iters));
  if (!f.straggler.empty()) read_straggler(c, f.straggler);
  if (c.S) s.shards = place(c.placement, c.shape.params(), c.shape.row(), c.S);
  p.footprint = footprint(s, rank);
  p.settings = std::move(s);
  return p;
}

}  // namespace commlab::ps
