// ps_sim: trains a small real model with synchronous SGD through a parameter
// server, colocated servers or an all-reduce, and measures every byte and
// every phase of an iteration. One run, one row (table and --csv).
#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <optional>

#include "allreduce_algos/algorithms.hpp"
#include "core/errors.hpp"
#include "core/nodes.hpp"
#include "core/recorder.hpp"
#include "harness/admission.hpp"
#include "harness/host.hpp"
#include "core/numbers.hpp"
#include "core/options.hpp"
#include "core/results.hpp"
#include "training.hpp"

using namespace commlab;
using namespace commlab::ps;

namespace {

struct Settings {
  Config cfg;
  std::vector<Shard> shards;  // the servers' parameters, one each (none without servers)
  bool check = true;
  std::string csv, loss_csv;
};

// Relative to the largest weight, how far a synchronous mode that sums in
// another order than the serial reference (the ring, MPI, SSP one gradient at
// a time) may land: float32 rounding, over every iteration.
constexpr double kTolerance = 1e-4;

// Bounds that keep a run finite (minutes at most, not hours).
constexpr int kSamplesMax = 1 << 24;
constexpr double kLrMin = 1e-9, kLrMax = 1e3, kSlowdownMax = 1000;

int tau(const Config& c) { return c.consistency == Consistency::ssp ? c.tau : 0; }

// Parses argv against a job of `ranks` ranks; UsageError on bad input.
// Returns false after --help (printed into `help`).
bool parse(int argc, char** argv, int ranks, Settings& s, std::string& help) {
  Config& c = s.cfg;
  c.shape.classes = 16;
  CLI::App app(
      "Trains softmax regression with a parameter server, colocated servers or an "
      "all-reduce, and counts every byte.",
      "ps_sim");
  app.get_formatter()->column_width(30);
  std::string mode = "ps", consistency = "bsp", placement = "even", model = "1M", straggler,
              check = "on";
  int servers = 1;
  app.add_option("--mode", mode, "ps, colocated, ring or mpi")->capture_default_str();
  auto* servers_opt =
      app.add_option("-s,--servers", servers, "server ranks (ps); workers are the rest")
          ->capture_default_str();
  app.add_option("--placement", placement, "shards: even, uneven or hashed")->capture_default_str();
  app.add_option("--consistency", consistency, "bsp, ssp or async (ps)")->capture_default_str();
  auto* tau_opt =
      app.add_option("--tau", c.tau, "ssp: staleness bound, in iterations")->capture_default_str();
  app.add_option("-M,--model", model, "parameter bytes, suffixes K M G")->capture_default_str();
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
  app.add_option("--straggler", straggler, "W:F: worker W computes F times slower");
  app.add_option("-c,--check", check, "compare with serial SGD and the exact bytes: on or off")
      ->capture_default_str();
  app.add_option("--csv", s.csv, "append the run's row to FILE");
  app.add_option("--loss-csv", s.loss_csv, "append the loss of every iteration to FILE");
  help = app.help();
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    return false;
  } catch (const CLI::ParseError& e) {
    throw UsageError(e.what());
  }

  c.mode = parse_mode(mode);
  c.consistency = parse_consistency(consistency);
  c.placement = parse_placement(placement);
  if (check != "on" && check != "off") throw UsageError("-c takes on or off, not '" + check + "'");
  s.check = check == "on";

  if (c.mode != Mode::ps && servers_opt->count())
    throw UsageError("--servers is for --mode ps (colocated has one server per rank)");
  if (c.mode != Mode::ps && c.consistency != Consistency::bsp)
    throw UsageError("--consistency " + consistency +
                     " needs --mode ps: only a dedicated server "
                     "can apply gradients as they come");
  if (tau_opt->count() && c.consistency != Consistency::ssp)
    throw UsageError("--tau is the bound of --consistency ssp");
  if (c.tau < 0) throw UsageError("--tau must be 0 or more");
  if (c.mode == Mode::ps) {
    if (servers < 1) throw UsageError("--servers must be at least 1");
    if (servers >= ranks)
      throw UsageError(
          fmt::format("--servers {} leaves no worker among {} ranks: run with more "
                      "ranks than servers",
                      servers, ranks));
    c.S = servers;
    c.P = ranks - servers;
  } else {
    c.P = ranks;
    c.S = c.mode == Mode::colocated ? ranks : 0;
  }
  if (c.shape.classes < 2) throw UsageError("-C classes must be at least 2");
  const size_t bytes = parse_size(model);
  const size_t row = bytes / sizeof(float) / size_t(c.shape.classes);  // weights and a bias
  if (row < 2 || row - 1 > size_t(INT_MAX))
    throw UsageError(fmt::format("-M {}: {} classes need between {} and {} bytes of parameters",
                                 model, c.shape.classes, 8 * c.shape.classes,
                                 uint64_t(INT_MAX) * 4 * c.shape.classes));
  c.shape = ModelShape::of_bytes(bytes, c.shape.classes);
  if (c.mode == Mode::mpi && c.shape.params() > size_t(INT_MAX))
    throw UsageError("-M: MPI_Allreduce counts are int; keep the model under 2^31 parameters");
  // A batch wraps around the partition: past one pass it only repeats examples.
  if (c.batch > c.samples)
    throw UsageError(fmt::format("-b {}: a batch is at most the {} --samples", c.batch, c.samples));
  if (c.tau > c.iters)
    throw UsageError(fmt::format("--tau {}: at most the {} iterations", c.tau, c.iters));
  if (!straggler.empty()) {
    const auto colon = straggler.find(':');
    const auto worker = whole_number(std::string_view(straggler).substr(0, colon));
    if (colon == std::string::npos || !worker)
      throw UsageError("--straggler " + straggler + ": use WORKER:FACTOR, e.g. 0:4");
    if (*worker >= uint64_t(c.P))
      throw UsageError(fmt::format("--straggler: worker {} is not among the {} workers (0..{})",
                                   *worker, c.P, c.P - 1));
    c.straggler = int(*worker);
    c.slowdown = parse_finite(straggler.substr(colon + 1), 1, kSlowdownMax, "--straggler factor");
  }
  if (c.S) s.shards = place(c.placement, c.shape.params(), c.shape.row(), c.S);
  return true;
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
  double need = iters_B;  // the loss of each iteration, or the staleness histogram
  // A worker: weights, gradient and the packed push and pull (or the ring's room).
  if (worker) need += 4 * M + labels_B;
  // A server: its weights, what comes in, and (bsp) one gradient per worker.
  if (server) need += (2.0 + c.P) * shard_B + iters_B;
  // Rank 0 gathers the model and every iteration's figures, and checks
  // against serial SGD: every worker's labels, weights, sum and gradient.
  if (rank == 0) need += 2 * M + 2 * iters_B + (s.check ? 3 * M + c.P * labels_B : 0);
  return {need, 0};
}

struct Measured {  // per rank, gathered to rank 0
  double is_worker, is_server, compute, push, wait, idle, aggregate, pull;
  double worker_in, worker_out, server_in, server_out;
};

// What rank 0 reports of one run: the table's row and the CSV's.
struct Report {
  const Config* c = nullptr;
  std::string mpi, host, date;
  double t_iter_us = 0, compute_us = 0, push_us = 0, aggregate_us = 0, pull_us = 0, idle_us = 0;
  // Largest per iteration over the ranks: server in, server out, worker in, worker out, rank out.
  std::array<std::optional<double>, 5> max_B;
  std::string formula;  // the taught formula, and which quantity it is
  double taught_B = 0, exact_B = 0, measured_B = 0;
  std::string traffic;  // exact | DIFFERS | not counted
  std::vector<double> loss;
  std::string weights_diff, staleness_hist, check, note;
  int staleness_max = 0;
};

// The CSV: each column's name and how a report fills it.
const std::vector<Column<Report>>& schema() {
  auto num = [](double v, int digits) { return fmt::format("{:.{}f}", v, digits); };
  auto bytes = [](int k) {
    return [k](const Report& r) { return r.max_B[k] ? fmt::format("{:.0f}", *r.max_B[k]) : ""; };
  };
  static const std::vector<Column<Report>> columns{
      {"program", [](const Report&) { return std::string("ps_sim"); }},
      {"mode", [](const Report& r) { return name(r.c->mode); }},
      {"consistency", [](const Report& r) { return name(r.c->consistency); }},
      {"tau", [](const Report& r) { return fmt::format("{}", tau(*r.c)); }},
      {"P", [](const Report& r) { return fmt::format("{}", r.c->P); }},
      {"S", [](const Report& r) { return fmt::format("{}", r.c->S); }},
      {"placement", [](const Report& r) { return r.c->S ? name(r.c->placement) : ""; }},
      {"params", [](const Report& r) { return fmt::format("{}", r.c->shape.params()); }},
      {"model_B", [](const Report& r) { return fmt::format("{}", r.c->shape.bytes()); }},
      {"batch", [](const Report& r) { return fmt::format("{}", r.c->batch); }},
      {"iters", [](const Report& r) { return fmt::format("{}", r.c->iters); }},
      {"lr", [](const Report& r) { return fmt::format("{:g}", r.c->lr); }},
      {"straggler",
       [](const Report& r) {
         return r.c->straggler < 0 ? std::string() : fmt::format("{}", r.c->straggler);
       }},
      {"slowdown", [](const Report& r) { return fmt::format("{:g}", r.c->slowdown); }},
      {"t_iter_us", [num](const Report& r) { return num(r.t_iter_us, 1); }},
      {"compute_us", [num](const Report& r) { return num(r.compute_us, 1); }},
      {"push_us", [num](const Report& r) { return num(r.push_us, 1); }},
      {"aggregate_us", [num](const Report& r) { return num(r.aggregate_us, 1); }},
      {"pull_us", [num](const Report& r) { return num(r.pull_us, 1); }},
      {"idle_us", [num](const Report& r) { return num(r.idle_us, 1); }},
      {"server_in_max_B", bytes(0)},
      {"server_out_max_B", bytes(1)},
      {"worker_in_max_B", bytes(2)},
      {"worker_out_max_B", bytes(3)},
      {"rank_out_max_B", bytes(4)},
      {"exact_max_B", [num](const Report& r) { return num(r.exact_B, 0); }},
      {"taught_formula", [](const Report& r) { return r.formula; }},
      {"taught_B", [num](const Report& r) { return num(r.taught_B, 0); }},
      {"traffic", [](const Report& r) { return r.traffic; }},
      {"loss_first", [num](const Report& r) { return num(r.loss.front(), 6); }},
      {"loss_last", [num](const Report& r) { return num(r.loss.back(), 6); }},
      {"weights_max_rel_diff", [](const Report& r) { return r.weights_diff; }},
      {"staleness_max", [](const Report& r) { return fmt::format("{}", r.staleness_max); }},
      {"staleness_hist", [](const Report& r) { return r.staleness_hist; }},
      {"check", [](const Report& r) { return r.check; }},
      {"note", [](const Report& r) { return r.note; }},
      {"host", [](const Report& r) { return r.host; }},
      {"date", [](const Report& r) { return r.date; }},
      {"mpi_version", [](const Report& r) { return r.mpi; }},
      {"commlab_version", [](const Report&) { return commlab_version(); }},
  };
  return columns;
}
const char* kLossColumns = "mode,consistency,tau,P,S,placement,model_B,iteration,loss";

// Flags, memory and output files, checked on every rank alike (exit 2 with
// one line on bad input). Empty after --help.
std::optional<Settings> start(Comm& comm, int argc, char** argv, LinesFile& csv, LinesFile& loss_csv) {
  Settings s;
  std::string help, error;
  bool run = true;
  try {
    run = parse(argc, argv, comm.size(), s, help);
  } catch (const UsageError& e) {
    error = e.what();
  }
  agree_or_exit(comm.mpi(), error);
  if (!run) {
    if (comm.rank() == 0) fmt::print("{}", help);
    return std::nullopt;
  }
  agree_or_exit(comm.mpi(),
                memory_problem(comm.mpi(), nodes_of(comm.mpi()), footprint(s, comm.rank())));
  if (comm.rank() == 0) try {
      if (!s.csv.empty()) csv = LinesFile(s.csv, csv_header(schema()), "--csv");
      if (!s.loss_csv.empty()) loss_csv = LinesFile(s.loss_csv, kLossColumns, "--loss-csv");
    } catch (const UsageError& e) {
      error = e.what();
    }
  agree_or_exit(comm.mpi(), error);
  return s;
}

void print_heading(const Report& r) {
  const Config& c = *r.c;
  fmt::print("# ps_sim  mode={}  consistency={}{}  P={} workers  S={} servers  placement={}\n",
             name(c.mode), name(c.consistency),
             c.consistency == Consistency::ssp ? fmt::format(" tau={}", c.tau) : "", c.P, c.S,
             c.S ? name(c.placement) : "-");
  fmt::print(
      "# model {} x ({} + 1) = {} float32 parameters, {} B; batch {} per worker; {} "
      "iterations; lr {:g}{}\n",
      c.shape.classes, c.shape.features, c.shape.params(), c.shape.bytes(), c.batch, c.iters, c.lr,
      c.straggler < 0 ? "" : fmt::format("; straggler worker {} x{:g}", c.straggler, c.slowdown));
  fmt::print("# {} on {}, {}, commlab {}\n", r.mpi, r.host, r.date, commlab_version());
  std::fflush(stdout);
}

// Every rank in its role, counting from here; the slowest rank's seconds.
double train(Comm& comm, const Config& c, const std::vector<Shard>& shards, RankStats& st,
             Packed& owned) {
  MPI_Barrier(comm.mpi());
  Recorder counted;
  comm.attach(&counted);
  const double t0 = MPI_Wtime();
  try {
    owned = c.mode == Mode::ps          ? train_parameter_server(comm, counted, c, shards, st)
            : c.mode == Mode::colocated ? train_colocated(comm, counted, c, shards, st)
                                        : train_allreduce(comm, counted, c, st);
  } catch (const std::exception& e) {  // out of memory on one rank: stop them all
    fmt::print(stderr, "error: rank {}: {}\n", comm.rank(), e.what());
    std::fflush(stderr);
    MPI_Abort(comm.mpi(), kExitWrong);
  }
  double elapsed = MPI_Wtime() - t0;
  MPI_Allreduce(MPI_IN_PLACE, &elapsed, 1, MPI_DOUBLE, MPI_MAX, comm.mpi());
  return elapsed;
}

// Every rank against its exact bytes; the ring against its model (collective).
std::string traffic_verdict(Comm& comm, const Config& c, const std::vector<Shard>& shards,
                            const RankStats& st) {
  int bad = 0;
  if (auto want = expected_bytes(c, shards, comm.rank()))
    bad =
        *want != std::array<uint64_t, 4>{st.worker_in, st.worker_out, st.server_in, st.server_out};
  if (c.mode == Mode::ring) {
    const Traffic m = allreduce_ring_algorithm().model(c.P, c.shape.params(), 4, 0);
    uint64_t most[2] = {st.worker_out, st.worker_in};
    MPI_Allreduce(MPI_IN_PLACE, most, 2, MPI_UINT64_T, MPI_MAX, comm.mpi());
    bad = most[0] != m.sent_max_rank_B * c.iters || most[1] != m.recv_max_rank_B * c.iters;
  }
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, comm.mpi());
  if (c.mode == Mode::mpi) return "not counted";
  return bad ? "DIFFERS" : "exact";
}

// What every rank measured, on rank 0 (collective).
struct Gathered {
  std::vector<Measured> ranks;
  std::vector<double> loss;         // per iteration, summed over the workers
  std::vector<uint64_t> staleness;  // histogram, summed over the servers
  std::vector<float> weights;       // the final model
};
Gathered gather(Comm& comm, const Config& c, const std::vector<Shard>& shards, RankStats& st,
                const Packed& owned) {
  const int me = comm.rank();
  const bool worker = c.mode == Mode::ps ? me >= c.S : true;
  const bool server = c.mode == Mode::ps ? me < c.S : c.mode == Mode::colocated;
  const Measured mine{double(worker),
                      double(server),
                      st.compute,
                      st.push,
                      st.wait,
                      st.idle,
                      st.aggregate,
                      st.pull,
                      double(st.worker_in),
                      double(st.worker_out),
                      double(st.server_in),
                      double(st.server_out)};
  const int doubles = sizeof mine / sizeof(double);
  Gathered g;
  g.ranks.resize(me == 0 ? comm.size() : 0);
  MPI_Gather(&mine, doubles, MPI_DOUBLE, g.ranks.data(), doubles, MPI_DOUBLE, 0, comm.mpi());
  g.loss.assign(c.iters, 0.0);
  st.loss.resize(c.iters, 0.0);
  MPI_Reduce(st.loss.data(), g.loss.data(), c.iters, MPI_DOUBLE, MPI_SUM, 0, comm.mpi());
  g.staleness.assign(c.iters, 0);
  st.staleness.resize(c.iters, 0);
  MPI_Reduce(st.staleness.data(), g.staleness.data(), c.iters, MPI_UINT64_T, MPI_SUM, 0,
             comm.mpi());

  // The final model, shard by shard.
  int n = static_cast<int>(owned.size());
  std::vector<int> counts(comm.size()), displs(comm.size());
  MPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm.mpi());
  for (int r = 1; r < comm.size(); ++r) displs[r] = displs[r - 1] + counts[r - 1];
  std::vector<float> packed(me == 0 ? displs.back() + counts.back() : 0);
  MPI_Gatherv(owned.data(), n, MPI_FLOAT, packed.data(), counts.data(), displs.data(), MPI_FLOAT, 0,
              comm.mpi());
  if (me != 0) return g;
  g.weights.assign(c.shape.params(), 0.0f);
  if (c.S == 0)
    g.weights = packed;
  else
    for (int k = 0; k < c.S; ++k) shards[k].unpack(packed.data() + displs[k], g.weights.data());
  return g;
}

// Phases per iteration (means over those who do them) and the busiest rank's bytes.
void summarize(Report& r, const std::vector<Measured>& ranks, double elapsed) {
  const Config& c = *r.c;
  const double it = c.iters, per = 1e6 / it;
  double compute = 0, push = 0, wait = 0, idle = 0, aggregate = 0, pull = 0, workers = 0,
         servers = 0;
  double max_b[5] = {};  // server in, server out, worker in, worker out, rank out
  for (const Measured& m : ranks) {
    workers += m.is_worker, servers += m.is_server;
    compute += m.compute * m.is_worker, push += m.push * m.is_worker;
    wait += m.wait * m.is_worker, idle += m.idle;
    aggregate += m.aggregate, pull += m.pull;
    const double b[5] = {m.server_in, m.server_out, m.worker_in, m.worker_out,
                         m.worker_out + m.server_out};
    for (int k = 0; k < 5; ++k) max_b[k] = std::max(max_b[k], b[k] / it);
  }
  r.t_iter_us = elapsed * per;
  r.compute_us = compute * (per / workers), r.push_us = push * (per / workers);
  const double doers = servers ? servers : workers;  // who aggregates
  r.aggregate_us = aggregate * (per / doers), r.pull_us = pull * (per / doers);
  // A worker of a dedicated server waits out the server's aggregation and
  // the pull; what is left of its wait is idle (other workers, staleness gate).
  r.idle_us = c.mode == Mode::ps
                  ? std::max(0.0, wait * (per / workers) - r.aggregate_us - r.pull_us)
              : c.mode == Mode::colocated ? idle * per / workers
                                          : 0;
  for (int k = 0; k < 5; ++k)
    if (k < 2 ? servers > 0 : c.mode != Mode::mpi) r.max_B[k] = max_b[k];
}

// The taught formula, and the exact bytes of the same quantity.
void formulas(Report& r, const std::vector<Shard>& shards, int ranks) {
  const Config& c = *r.c;
  const double M = double(c.shape.bytes()), it = c.iters;
  if (c.mode == Mode::ps) {
    r.formula = c.S == 1 ? "P x model (server out)" : "P x model / S (server out)";
    r.taught_B = c.P * M / c.S;
    for (int k = 0; k < ranks; ++k)
      r.exact_B = std::max(r.exact_B, double((*expected_bytes(c, shards, k))[3]) / it);
    r.measured_B = r.max_B[1].value_or(0);
    return;
  }
  r.formula = "2(P-1)/P x model (rank out)";
  r.taught_B = 2.0 * (c.P - 1) / c.P * M;
  if (c.mode == Mode::colocated)
    for (int k = 0; k < ranks; ++k) {
      const auto want = *expected_bytes(c, shards, k);  // worker out + server out
      r.exact_B = std::max(r.exact_B, double(want[1] + want[3]) / it);
    }
  else
    r.exact_B =
        double(allreduce_ring_algorithm().model(c.P, c.shape.params(), 4, 0).sent_max_rank_B);
  r.measured_B = r.max_B[4].value_or(0);
}

// The weights against serial SGD where the run is synchronous, the staleness
// bound, and the bytes: ok, FAIL with the first reason in the note, or off.
void judge(Report& r, const Settings& s, const Gathered& g) {
  const Config& c = *r.c;
  r.check = s.check ? "ok" : "off";
  const bool synchronous =
      c.consistency == Consistency::bsp || (c.consistency == Consistency::ssp && c.tau == 0);
  const bool same_order =
      c.consistency == Consistency::bsp && (c.mode == Mode::ps || c.mode == Mode::colocated);
  for (int k = 0; k < c.iters; ++k)
    if (g.staleness[k]) r.staleness_max = k;
  if (s.check && synchronous) {
    const std::vector<float> ref = train_serial(c);
    double worst = 0, scale = 0;
    for (size_t i = 0; i < ref.size(); ++i) {
      worst = std::max(worst, double(std::fabs(g.weights[i] - ref[i])));
      scale = std::max(scale, double(std::fabs(ref[i])));
    }
    const double rel = scale > 0 ? worst / scale : worst;
    r.weights_diff = fmt::format("{:.3g}", rel);
    if (same_order ? rel != 0 : rel > kTolerance) {
      r.check = "FAIL";
      r.note = same_order ? fmt::format(
                                "weights differ from serial SGD by {:.3g} (must be equal: "
                                "the server sums in worker order)",
                                rel)
                          : fmt::format("weights differ from serial SGD by {:.3g} > {:g}", rel,
                                        kTolerance);
    }
  } else if (s.check) {
    r.note = name(c.consistency) +
             (c.consistency == Consistency::ssp ? fmt::format(" tau={}", c.tau) : "") +
             " is not synchronous: weights not compared with serial SGD";
  }
  if (s.check && c.consistency == Consistency::ssp && r.staleness_max > c.tau) {
    r.check = "FAIL";
    r.note = fmt::format("a gradient {} iterations stale, above tau = {}", r.staleness_max, c.tau);
  }
  if (s.check && r.traffic == "DIFFERS") {
    r.check = "FAIL";
    r.note = "counted bytes differ from the exact formula";
  }
  // Checked last, so that it is the note: a NaN compares false with every
  // bound above, and std::max keeps the old value, so none of them sees it.
  if (s.check && !(all_finite(g.weights.data(), g.weights.size()) &&
                   all_finite(g.loss.data(), g.loss.size()))) {
    r.check = "FAIL";
    r.note = "the weights or the loss are not finite (NaN or inf): training diverged";
  }
  for (int k = 0; k < c.iters; ++k)
    if (g.staleness[k])
      r.staleness_hist +=
          fmt::format("{}{}:{}", r.staleness_hist.empty() ? "" : " ", k, g.staleness[k]);
  r.loss = g.loss;
  for (double& l : r.loss) l /= double(c.P) * c.batch;
}

void print_row(const Report& r) {
  const Config& c = *r.c;
  fmt::print(
      "{:>10} {:>6} {:>3} {:>3} {:>11} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>13} "
      "{:>13} {:>11} {:>7} {:>7} {:>5}\n",
      "mode", "cons", "P", "S", "model_B", "iter_us", "compute", "push", "aggreg", "pull", "idle",
      "measured_B", "exact_B", "traffic", "loss0", "lossN", "check");
  fmt::print(
      "{:>10} {:>6} {:>3} {:>3} {:>11} {:>9.0f} {:>9.0f} {:>9.0f} {:>9.0f} {:>9.0f} "
      "{:>9.0f} {:>13} {:>13.0f} {:>11} {:>7.4f} {:>7.4f} {:>5}\n",
      name(c.mode), name(c.consistency), c.P, c.S, c.shape.bytes(), r.t_iter_us, r.compute_us,
      r.push_us, r.aggregate_us, r.pull_us, r.idle_us,
      c.mode == Mode::mpi ? std::string("-") : fmt::format("{:.0f}", r.measured_B), r.exact_B,
      r.traffic, r.loss.front(), r.loss.back(), r.check);
  fmt::print("# measured_B: {}, per iteration; taught {:.0f}\n", r.formula, r.taught_B);
  if (!r.staleness_hist.empty())
    fmt::print("# staleness (iterations: gradients x servers): {}\n", r.staleness_hist);
  if (!r.weights_diff.empty())
    fmt::print("# weights vs serial SGD: max relative difference {}\n", r.weights_diff);
  if (!r.note.empty()) fmt::print("# {}\n", r.note);
  std::fflush(stdout);
}

std::string loss_lines(const Report& r) {
  const Config& c = *r.c;
  std::string lines;
  for (int k = 0; k < c.iters; ++k)
    lines +=
        fmt::format("{},{},{},{},{},{},{},{},{:.6f}\n", name(c.mode), name(c.consistency), tau(c),
                    c.P, c.S, c.S ? name(c.placement) : "", c.shape.bytes(), k, r.loss[k]);
  return lines;
}

}  // namespace

int main(int argc, char** argv) {
  init_mpi(&argc, &argv);
  Comm comm(MPI_COMM_WORLD);
  LinesFile csv, loss_csv;
  const std::optional<Settings> s = start(comm, argc, argv, csv, loss_csv);
  if (!s) {
    MPI_Finalize();
    return 0;
  }
  const Config& c = s->cfg;
  const std::vector<Shard>& shards = s->shards;
  Report r;
  r.c = &c;
  r.mpi = mpi_version(), r.host = hostname(), r.date = utc_now();
  if (comm.rank() == 0) print_heading(r);

  RankStats st;
  Packed owned;
  const double elapsed = train(comm, c, shards, st, owned);
  r.traffic = traffic_verdict(comm, c, shards, st);
  const Gathered g = gather(comm, c, shards, st, owned);

  int exit_code = 0;
  if (comm.rank() == 0) {
    summarize(r, g.ranks, elapsed);
    formulas(r, shards, comm.size());
    judge(r, *s, g);
    print_row(r);
    csv.append_lines(csv_line(schema(), r));
    loss_csv.append_lines(loss_lines(r));
    exit_code = r.check == "FAIL" ? kExitWrong : 0;
  }
  MPI_Bcast(&exit_code, 1, MPI_INT, 0, comm.mpi());
  MPI_Finalize();
  return exit_code;
}
