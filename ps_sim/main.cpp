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

#include "allreduce_algos/allreduce.hpp"
#include "core/bench.hpp"
#include "core/errors.hpp"
#include "core/options.hpp"
#include "core/results.hpp"
#include "training.hpp"

using namespace commlab;
using namespace commlab::ps;

namespace {

struct Settings {
  Config cfg;
  bool check = true;
  std::string csv, loss_csv;
};

// Relative to the largest weight, how far a synchronous mode that sums in
// another order than the serial reference (the ring, MPI, SSP one gradient at
// a time) may land: float32 rounding, over every iteration.
constexpr double kTolerance = 1e-4;

const char* kColumns =
    "program,mode,consistency,tau,P,S,placement,params,model_B,batch,iters,lr,straggler,slowdown,"
    "t_iter_us,compute_us,push_us,aggregate_us,pull_us,idle_us,server_in_max_B,server_out_max_B,"
    "worker_in_max_B,worker_out_max_B,rank_out_max_B,exact_max_B,taught_formula,taught_B,traffic,"
    "loss_first,loss_last,weights_max_rel_diff,staleness_max,staleness_hist,check,note,host,date,"
    "mpi_version,commlab_version";
const char* kLossColumns = "mode,consistency,tau,P,S,placement,model_B,iteration,loss";

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
  app.add_option("-b,--batch", c.batch, "examples per worker per iteration")->capture_default_str();
  app.add_option("--samples", c.samples, "examples in each worker's partition")
      ->capture_default_str();
  app.add_option("-i,--iterations", c.iters, "SGD iterations")->capture_default_str();
  app.add_option("--lr", c.lr, "learning rate")->capture_default_str();
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
  const size_t features = bytes / sizeof(float) / size_t(c.shape.classes);
  if (features < 2 || features - 1 > size_t(INT_MAX))
    throw UsageError(fmt::format("-M {}: {} classes need between {} and {} bytes of parameters",
                                 model, c.shape.classes, 8 * c.shape.classes,
                                 uint64_t(INT_MAX) * 4 * c.shape.classes));
  c.shape.features = static_cast<int>(features - 1);
  if (c.mode == Mode::mpi && c.shape.params() > size_t(INT_MAX))
    throw UsageError("-M: MPI_Allreduce counts are int; keep the model under 2^31 parameters");
  if (c.batch < 1) throw UsageError("-b batch must be at least 1");
  if (c.samples < 1) throw UsageError("--samples must be at least 1");
  if (c.iters < 1) throw UsageError("-i iterations must be at least 1");
  if (!(c.lr > 0)) throw UsageError("--lr must be above 0");
  if (!straggler.empty()) {
    auto colon = straggler.find(':');
    try {
      size_t used = 0;
      c.straggler = std::stoi(straggler.substr(0, colon), &used);
      c.slowdown = std::stod(straggler.substr(colon + 1));
      if (colon == std::string::npos || used != colon) throw std::invalid_argument("");
    } catch (const std::exception&) {
      throw UsageError("--straggler " + straggler + ": use WORKER:FACTOR, e.g. 0:4");
    }
    if (c.straggler < 0 || c.straggler >= c.P)
      throw UsageError(fmt::format("--straggler: worker {} is not among the {} workers (0..{})",
                                   c.straggler, c.P, c.P - 1));
    if (!(c.slowdown >= 1)) throw UsageError("--straggler: the factor must be 1 or more");
  }
  return true;
}

// Empty, or why the buffers would not fit in this node's memory (collective).
std::string memory_problem(const Settings& s, MPI_Comm comm) {
  MPI_Comm node;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int local = 1;
  MPI_Comm_size(node, &local);
  MPI_Comm_free(&node);
  const Config& c = s.cfg;
  // Per rank: weights, gradient and two packed copies (a bsp server keeps
  // P gradients of its shard); rank 0's serial reference: weights, sum, gradient.
  const double model = double(c.shape.bytes());
  const double need = local * 4 * model + (s.check ? 3 * model : 0);
  const double have = double(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGESIZE);
  if (need <= 0.9 * have) return "";
  return fmt::format(
      "-M {:.0f} MiB with {} ranks on this node needs about {:.1f} GiB; it has {:.1f}",
      model / (1 << 20), local, need / (1 << 30), have / (1 << 30));
}

// Bytes this rank must have moved in each role over the whole run, or
// nothing when the mode's traffic is not counted per rank here.
std::optional<std::array<uint64_t, 4>> expected_bytes(const Config& c,
                                                      const std::vector<Shard>& shards, int rank) {
  const uint64_t M = c.shape.bytes(), it = c.iters;
  if (c.mode == Mode::ps) {
    if (rank >= c.S) return std::array<uint64_t, 4>{M * it, M * it, 0, 0};
    const uint64_t mine = shards[rank].count() * 4 * c.P * it;
    return std::array<uint64_t, 4>{0, 0, mine, mine};
  }
  if (c.mode == Mode::colocated) {
    const uint64_t n = shards[rank].count() * 4, others = (M - n) * it;
    const uint64_t served = n * (c.P - 1) * it;
    return std::array<uint64_t, 4>{others, others, served, served};
  }
  return std::nullopt;
}

struct Measured {  // per rank, gathered to rank 0
  double is_worker, is_server, compute, push, wait, idle, aggregate, pull;
  double worker_in, worker_out, server_in, server_out;
};

}  // namespace

int main(int argc, char** argv) {
  init_mpi(&argc, &argv);
  Comm comm(MPI_COMM_WORLD);
  const int rank = comm.rank();
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
    if (rank == 0) fmt::print("{}", help);
    MPI_Finalize();
    return 0;
  }
  const Config& c = s.cfg;
  agree_or_exit(comm.mpi(), memory_problem(s, comm.mpi()));
  CsvFile csv, loss_csv;
  if (rank == 0) try {
      if (!s.csv.empty()) csv = CsvFile(s.csv, kColumns, "--csv");
      if (!s.loss_csv.empty()) loss_csv = CsvFile(s.loss_csv, kLossColumns, "--loss-csv");
    } catch (const UsageError& e) {
      error = e.what();
    }
  agree_or_exit(comm.mpi(), error);

  const std::vector<Shard> shards =
      c.S ? place(c.placement, c.shape.params(), c.shape.row(), c.S) : std::vector<Shard>{};
  const std::string mpi = mpi_version(), host = hostname(), date = utc_now();
  const std::string straggler =
      c.straggler < 0 ? "" : fmt::format("worker {} x{:g}", c.straggler, c.slowdown);
  if (rank == 0) {
    fmt::print("# ps_sim  mode={}  consistency={}{}  P={} workers  S={} servers  placement={}\n",
               name(c.mode), name(c.consistency),
               c.consistency == Consistency::ssp ? fmt::format(" tau={}", c.tau) : "", c.P, c.S,
               c.S ? name(c.placement) : "-");
    fmt::print(
        "# model {} x ({} + 1) = {} float32 parameters, {} B; batch {} per worker; {} "
        "iterations; lr {:g}{}\n",
        c.shape.classes, c.shape.features, c.shape.params(), c.shape.bytes(), c.batch, c.iters,
        c.lr, straggler.empty() ? "" : "; straggler " + straggler);
    fmt::print("# {} on {}, {}, commlab {}\n", mpi, host, date, commlab_version());
    std::fflush(stdout);
  }

  // Train, every rank in its role, counting from here.
  RankStats st;
  Packed owned;
  MPI_Barrier(comm.mpi());
  comm.reset_counts();
  const double t0 = MPI_Wtime();
  try {
    owned = c.mode == Mode::ps          ? train_parameter_server(comm, c, shards, st)
            : c.mode == Mode::colocated ? train_colocated(comm, c, shards, st)
                                        : train_allreduce(comm, c, st);
  } catch (const std::exception& e) {  // out of memory on one rank: stop them all
    fmt::print(stderr, "error: rank {}: {}\n", rank, e.what());
    std::fflush(stderr);
    MPI_Abort(comm.mpi(), kExitWrong);
  }
  double elapsed = MPI_Wtime() - t0;
  MPI_Allreduce(MPI_IN_PLACE, &elapsed, 1, MPI_DOUBLE, MPI_MAX, comm.mpi());

  // Traffic: every rank against its exact bytes; the ring against its model.
  bool worker = c.mode == Mode::ps ? rank >= c.S : true;
  bool server = c.mode == Mode::ps ? rank < c.S : c.mode == Mode::colocated;
  std::string traffic = "exact";
  int bad = 0;
  if (auto want = expected_bytes(c, shards, rank))
    bad =
        *want != std::array<uint64_t, 4>{st.worker_in, st.worker_out, st.server_in, st.server_out};
  if (c.mode == Mode::ring) {
    const Traffic m = model_ring(c.P, c.shape.params(), 4);
    uint64_t most[2] = {st.worker_out, st.worker_in};
    MPI_Allreduce(MPI_IN_PLACE, most, 2, MPI_UINT64_T, MPI_MAX, comm.mpi());
    bad = most[0] != m.sent_max_rank_B * c.iters || most[1] != m.recv_max_rank_B * c.iters;
  }
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, comm.mpi());
  if (bad) traffic = "DIFFERS";
  if (c.mode == Mode::mpi) traffic = "not counted";

  // Phases and bytes of every rank, on rank 0.
  Measured mine{double(worker),
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
  std::vector<Measured> all(rank == 0 ? comm.size() : 0);
  MPI_Gather(&mine, sizeof mine / sizeof(double), MPI_DOUBLE, all.data(),
             sizeof mine / sizeof(double), MPI_DOUBLE, 0, comm.mpi());
  std::vector<double> loss(c.iters, 0.0);
  st.loss.resize(c.iters, 0.0);
  MPI_Reduce(st.loss.data(), loss.data(), c.iters, MPI_DOUBLE, MPI_SUM, 0, comm.mpi());
  std::vector<uint64_t> hist(c.iters, 0);
  st.staleness.resize(c.iters, 0);
  MPI_Reduce(st.staleness.data(), hist.data(), c.iters, MPI_UINT64_T, MPI_SUM, 0, comm.mpi());

  // The final model, shard by shard, on rank 0.
  int n = static_cast<int>(owned.size());
  std::vector<int> counts(comm.size()), displs(comm.size());
  MPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm.mpi());
  for (int r = 1; r < comm.size(); ++r) displs[r] = displs[r - 1] + counts[r - 1];
  std::vector<float> packed(rank == 0 ? displs.back() + counts.back() : 0);
  MPI_Gatherv(owned.data(), n, MPI_FLOAT, packed.data(), counts.data(), displs.data(), MPI_FLOAT, 0,
              comm.mpi());

  int exit_code = 0;
  if (rank == 0) {
    std::vector<float> weights(c.shape.params());
    if (c.S == 0)
      weights = packed;
    else
      for (int k = 0; k < c.S; ++k) shards[k].unpack(packed.data() + displs[k], weights.data());

    const double it = c.iters;
    double compute = 0, push = 0, wait = 0, idle = 0, aggregate = 0, pull = 0, workers = 0,
           servers = 0;
    double max_b[5] = {};  // server in, server out, worker in, worker out, rank out
    for (const Measured& m : all) {
      workers += m.is_worker, servers += m.is_server;
      compute += m.compute * m.is_worker, push += m.push * m.is_worker;
      wait += m.wait * m.is_worker, idle += m.idle;
      aggregate += m.aggregate, pull += m.pull;
      const double b[5] = {m.server_in, m.server_out, m.worker_in, m.worker_out,
                           m.worker_out + m.server_out};
      for (int k = 0; k < 5; ++k) max_b[k] = std::max(max_b[k], b[k] / it);
    }
    const double per = 1e6 / it;
    compute *= per / workers, push *= per / workers, wait *= per / workers;
    const double doers = servers ? servers : workers;  // who aggregates
    aggregate *= per / doers, pull *= per / doers;
    // A worker of a dedicated server waits out the server's aggregation and
    // the pull; what is left of its wait is idle (other workers, staleness gate).
    idle = c.mode == Mode::ps          ? std::max(0.0, wait - aggregate - pull)
           : c.mode == Mode::colocated ? idle * per / workers
                                       : 0;

    // Taught formula (brief.md) and the exact bytes of the same quantity.
    const double M = double(c.shape.bytes());
    std::string formula;
    double taught = 0, exact = 0, measured = 0;
    if (c.mode == Mode::ps) {
      formula = c.S == 1 ? "P x model (server out)" : "P x model / S (server out)";
      taught = c.P * M / c.S;
      for (int r = 0; r < comm.size(); ++r)
        exact = std::max(exact, double((*expected_bytes(c, shards, r))[3]) / it);
      measured = max_b[1];
    } else {
      formula = "2(P-1)/P x model (rank out)";
      taught = 2.0 * (c.P - 1) / c.P * M;
      if (c.mode == Mode::colocated)
        for (int r = 0; r < comm.size(); ++r) {
          const auto want = *expected_bytes(c, shards, r);  // worker out + server out
          exact = std::max(exact, double(want[1] + want[3]) / it);
        }
      else
        exact = double(model_ring(c.P, c.shape.params(), 4).sent_max_rank_B);
      measured = max_b[4];
    }

    // Weights against serial SGD where the run is synchronous.
    std::string check = s.check ? "ok" : "off", note, diff;
    const bool synchronous =
        c.consistency == Consistency::bsp || (c.consistency == Consistency::ssp && c.tau == 0);
    const bool same_order =
        c.consistency == Consistency::bsp && (c.mode == Mode::ps || c.mode == Mode::colocated);
    int stalest = 0;
    for (int k = 0; k < c.iters; ++k)
      if (hist[k]) stalest = k;
    if (s.check && synchronous) {
      const std::vector<float> ref = train_serial(c);
      double worst = 0, scale = 0;
      for (size_t i = 0; i < ref.size(); ++i) {
        worst = std::max(worst, double(std::fabs(weights[i] - ref[i])));
        scale = std::max(scale, double(std::fabs(ref[i])));
      }
      const double rel = scale > 0 ? worst / scale : worst;
      diff = fmt::format("{:.3g}", rel);
      if (same_order ? rel != 0 : rel > kTolerance) {
        check = "FAIL";
        note = same_order ? fmt::format(
                                "weights differ from serial SGD by {:.3g} (must be equal: "
                                "the server sums in worker order)",
                                rel)
                          : fmt::format("weights differ from serial SGD by {:.3g} > {:g}", rel,
                                        kTolerance);
      }
    } else if (s.check) {
      note = name(c.consistency) +
             (c.consistency == Consistency::ssp ? fmt::format(" tau={}", c.tau) : "") +
             " is not synchronous: weights not compared with serial SGD";
    }
    if (s.check && c.consistency == Consistency::ssp && stalest > c.tau) {
      check = "FAIL";
      note = fmt::format("a gradient {} iterations stale, above tau = {}", stalest, c.tau);
    }
    if (s.check && traffic == "DIFFERS") {
      check = "FAIL";
      note = "counted bytes differ from the exact formula";
    }
    std::string hist_text;
    for (int k = 0; k < c.iters; ++k)
      if (hist[k]) hist_text += fmt::format("{}{}:{}", hist_text.empty() ? "" : " ", k, hist[k]);
    for (double& l : loss) l /= double(c.P) * c.batch;

    fmt::print(
        "{:>10} {:>6} {:>3} {:>3} {:>11} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>13} "
        "{:>13} {:>11} {:>7} {:>7} {:>5}\n",
        "mode", "cons", "P", "S", "model_B", "iter_us", "compute", "push", "aggreg", "pull", "idle",
        "measured_B", "exact_B", "traffic", "loss0", "lossN", "check");
    fmt::print(
        "{:>10} {:>6} {:>3} {:>3} {:>11} {:>9.0f} {:>9.0f} {:>9.0f} {:>9.0f} {:>9.0f} "
        "{:>9.0f} {:>13} {:>13.0f} {:>11} {:>7.4f} {:>7.4f} {:>5}\n",
        name(c.mode), name(c.consistency), c.P, c.S, c.shape.bytes(), elapsed * per, compute, push,
        aggregate, pull, idle,
        c.mode == Mode::mpi ? std::string("-") : fmt::format("{:.0f}", measured), exact, traffic,
        loss.front(), loss.back(), check);
    fmt::print("# measured_B: {}, per iteration; taught {:.0f}\n", formula, taught);
    if (!hist_text.empty())
      fmt::print("# staleness (iterations: gradients x servers): {}\n", hist_text);
    if (!diff.empty()) fmt::print("# weights vs serial SGD: max relative difference {}\n", diff);
    if (!note.empty()) fmt::print("# {}\n", note);
    std::fflush(stdout);

    auto opt_B = [&](double v, bool present) { return present ? fmt::format("{:.0f}", v) : ""; };
    std::vector<std::string> cells{"ps_sim",
                                   name(c.mode),
                                   name(c.consistency),
                                   fmt::format("{}", c.consistency == Consistency::ssp ? c.tau : 0),
                                   fmt::format("{}", c.P),
                                   fmt::format("{}", c.S),
                                   c.S ? name(c.placement) : "",
                                   fmt::format("{}", c.shape.params()),
                                   fmt::format("{}", c.shape.bytes()),
                                   fmt::format("{}", c.batch),
                                   fmt::format("{}", c.iters),
                                   fmt::format("{:g}", c.lr),
                                   c.straggler < 0 ? "" : fmt::format("{}", c.straggler),
                                   fmt::format("{:g}", c.slowdown),
                                   fmt::format("{:.1f}", elapsed * per),
                                   fmt::format("{:.1f}", compute),
                                   fmt::format("{:.1f}", push),
                                   fmt::format("{:.1f}", aggregate),
                                   fmt::format("{:.1f}", pull),
                                   fmt::format("{:.1f}", idle),
                                   opt_B(max_b[0], servers > 0),
                                   opt_B(max_b[1], servers > 0),
                                   opt_B(max_b[2], c.mode != Mode::mpi),
                                   opt_B(max_b[3], c.mode != Mode::mpi),
                                   opt_B(max_b[4], c.mode != Mode::mpi),
                                   fmt::format("{:.0f}", exact),
                                   csv_text(formula),
                                   fmt::format("{:.0f}", taught),
                                   traffic,
                                   fmt::format("{:.6f}", loss.front()),
                                   fmt::format("{:.6f}", loss.back()),
                                   diff,
                                   fmt::format("{}", stalest),
                                   hist_text,
                                   check,
                                   csv_text(note),
                                   csv_text(host),
                                   date,
                                   csv_text(mpi),
                                   csv_text(commlab_version())};
    csv.append_lines(fmt::format("{}\n", fmt::join(cells, ",")));
    std::string lines;
    for (int k = 0; k < c.iters; ++k)
      lines += fmt::format("{},{},{},{},{},{},{},{},{:.6f}\n", name(c.mode), name(c.consistency),
                           c.consistency == Consistency::ssp ? c.tau : 0, c.P, c.S,
                           c.S ? name(c.placement) : "", c.shape.bytes(), k, loss[k]);
    loss_csv.append_lines(lines);
    exit_code = check == "FAIL" ? kExitWrong : 0;
  }
  MPI_Bcast(&exit_code, 1, MPI_INT, 0, comm.mpi());
  MPI_Finalize();
  return exit_code;
}
