#include "report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "allreduce_algos/ring.hpp"
#include "core/vocabulary/numbers.hpp"
#include "harness/host.hpp"
#include "harness/version.hpp"

namespace commlab::ps {

namespace {

// Relative to the largest weight, how far a synchronous mode that sums in
// another order than the serial reference (the ring, MPI, SSP one gradient at
// a time) may land: float32 rounding, over every iteration.
constexpr double kTolerance = 1e-4;

int tau(const Config& c) { return c.consistency == Consistency::ssp ? c.tau : 0; }

// mpi's traffic has no count; the rest of the lab calls that "" (a library call).
std::string traffic_word(TrafficCheck t) {
  return t == TrafficCheck::none ? "not counted" : name(t);
}
std::string weights_diff(const Report& r) {
  return r.weights_rel_diff ? fmt::format("{:.3g}", *r.weights_rel_diff) : "";
}
// iterations:gradients for each staleness seen, e.g. "0:40 1:8".
std::string staleness_hist(const Report& r) {
  std::string hist;
  for (size_t k = 0; k < r.staleness.size(); ++k)
    if (r.staleness[k]) hist += fmt::format("{}{}:{}", hist.empty() ? "" : " ", k, r.staleness[k]);
  return hist;
}

// How the run was set up, as both CSVs begin: columns for any record that
// points at its Config as `c`.
template <class Record>
std::vector<Column<Record>> setup_columns() {
  return {
      {"mode", [](const Record& r) { return name(r.c->mode); }},
      {"consistency", [](const Record& r) { return name(r.c->consistency); }},
      {"tau", [](const Record& r) { return fmt::format("{}", tau(*r.c)); }},
      {"P", [](const Record& r) { return fmt::format("{}", r.c->P); }},
      {"S", [](const Record& r) { return fmt::format("{}", r.c->S); }},
      {"placement", [](const Record& r) { return r.c->S ? name(r.c->placement) : ""; }},
  };
}

template <class Record>
std::vector<Column<Record>> joined(std::vector<Column<Record>> a,
                                   const std::vector<Column<Record>>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// Phases per iteration: means over the ranks that do them.
void summarize_phases(Report& r, const std::vector<Measured>& ranks, double elapsed_s) {
  const Config& c = *r.c;
  const double per = 1e6 / c.iters;  // seconds over the run to us per iteration
  double compute = 0, push = 0, wait = 0, idle = 0, aggregate = 0, pull = 0, workers = 0,
         servers = 0;
  for (const Measured& m : ranks) {
    workers += m.is_worker, servers += m.is_server;
    compute += m.compute_s * m.is_worker, push += m.push_s * m.is_worker;
    wait += m.wait_s * m.is_worker, idle += m.idle_s;
    aggregate += m.aggregate_s, pull += m.pull_s;
  }
  r.t_iter_us = elapsed_s * per;
  r.compute_us = compute * (per / workers), r.push_us = push * (per / workers);
  const double doers = servers ? servers : workers;  // who aggregates
  r.aggregate_us = aggregate * (per / doers), r.pull_us = pull * (per / doers);
  // A worker of a dedicated server waits out the server's aggregation and
  // the pull; what is left of its wait is idle (other workers, staleness gate).
  r.idle_us = c.mode == Mode::ps
                  ? std::max(0.0, wait * (per / workers) - r.aggregate_us - r.pull_us)
              : c.mode == Mode::colocated ? idle * per / workers
                                          : 0;
}

BusiestBytes busiest(const std::vector<Measured>& ranks, const Config& c) {
  const double it = c.iters;
  double server_in_B = 0, server_out_B = 0, worker_in_B = 0, worker_out_B = 0, rank_out_B = 0;
  for (const Measured& m : ranks) {
    server_in_B = std::max(server_in_B, m.server_in_B / it);
    server_out_B = std::max(server_out_B, m.server_out_B / it);
    worker_in_B = std::max(worker_in_B, m.worker_in_B / it);
    worker_out_B = std::max(worker_out_B, m.worker_out_B / it);
    rank_out_B = std::max(rank_out_B, (m.worker_out_B + m.server_out_B) / it);
  }
  BusiestBytes most;
  if (c.S > 0) most.server_in_B = server_in_B, most.server_out_B = server_out_B;
  if (c.mode != Mode::mpi)
    most.worker_in_B = worker_in_B, most.worker_out_B = worker_out_B, most.rank_out_B = rank_out_B;
  return most;
}

// The loss per example, and the staleness seen.
void summarize_training(Report& r, const Measurement& m) {
  const Config& c = *r.c;
  r.loss = m.loss;
  for (double& l : r.loss) l /= double(c.P) * c.batch;
  r.staleness = m.staleness;
  for (int k = 0; k < c.iters; ++k)
    if (r.staleness[k]) r.staleness_max = k;
}

// The taught formula, and the exact bytes of the same quantity.
void formulas(Report& r, const std::vector<Shard>& shards, int ranks) {
  const Config& c = *r.c;
  const double M = double(c.shape.bytes()), it = c.iters;
  if (c.mode == Mode::ps) {
    r.formula = c.S == 1 ? "P x model (server out)" : "P x model / S (server out)";
    r.taught_B = c.P * M / c.S;
    for (int k = 0; k < ranks; ++k)
      r.exact_B = std::max(r.exact_B, double(expected_bytes(c, shards, k)->server_out) / it);
    r.measured_B = r.max_per_iter.server_out_B.value_or(0);
    return;
  }
  r.formula = "2(P-1)/P x model (rank out)";
  r.taught_B = 2.0 * (c.P - 1) / c.P * M;
  if (c.mode == Mode::colocated)
    for (int k = 0; k < ranks; ++k) {
      const RoleBytes want = *expected_bytes(c, shards, k);
      r.exact_B = std::max(r.exact_B, double(want.worker_out + want.server_out) / it);
    }
  else
    r.exact_B =
        double(allreduce_ring_algorithm().model(c.P, c.shape.params(), 4, 0).sent_max_rank_B);
  r.measured_B = r.max_per_iter.rank_out_B.value_or(0);
}

void fail(Report& r, std::string why) {
  r.check = Check::fail;
  r.note = std::move(why);
}

// The final weights against serial SGD's.
void compare_with_serial(Report& r, const std::vector<float>& weights) {
  const Config& c = *r.c;
  const std::vector<float> ref = train_serial(c);
  double worst = 0, scale = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    worst = std::max(worst, double(std::fabs(weights[i] - ref[i])));
    scale = std::max(scale, double(std::fabs(ref[i])));
  }
  const double rel = scale > 0 ? worst / scale : worst;
  r.weights_rel_diff = rel;
  // The dedicated and colocated servers of bsp sum in worker order, as serial SGD does.
  const bool same_order =
      c.consistency == Consistency::bsp && (c.mode == Mode::ps || c.mode == Mode::colocated);
  if (same_order && rel != 0)
    fail(r, fmt::format("weights differ from serial SGD by {:.3g} (must be equal: the server "
                        "sums in worker order)",
                        rel));
  else if (!same_order && rel > kTolerance)
    fail(r, fmt::format("weights differ from serial SGD by {:.3g} > {:g}", rel, kTolerance));
}

// The weights against serial SGD where the run is synchronous, the staleness
// bound, and the bytes: ok, or fail with the last failed check's reason as
// the note (-c off leaves Check::off).
void judge(Report& r, bool check, const Measurement& m) {
  if (!check) return;
  const Config& c = *r.c;
  r.check = Check::ok;
  if (c.consistency == Consistency::bsp || (c.consistency == Consistency::ssp && c.tau == 0))
    compare_with_serial(r, m.weights);
  else
    r.note = name(c.consistency) +
             (c.consistency == Consistency::ssp ? fmt::format(" tau={}", c.tau) : "") +
             " is not synchronous: weights not compared with serial SGD";
  if (c.consistency == Consistency::ssp && r.staleness_max > c.tau)
    fail(r, fmt::format("a gradient {} iterations stale, above tau = {}", r.staleness_max, c.tau));
  if (r.traffic == TrafficCheck::differs) fail(r, "counted bytes differ from the exact formula");
  // Checked last, so that it is the note: a NaN compares false with every
  // bound above, and std::max keeps the old value, so none of them sees it.
  if (!(all_finite(m.weights.data(), m.weights.size()) && all_finite(m.loss.data(), m.loss.size())))
    fail(r, "the weights or the loss are not finite (NaN or inf): training diverged");
}

}  // namespace

const std::vector<Column<Report>>& report_schema() {
  using R = const Report&;
  auto num = [](double v, int digits) { return fmt::format("{:.{}f}", v, digits); };
  auto us = [num](double Report::*field) { return [=](R r) { return num(r.*field, 1); }; };
  auto most_B = [](std::optional<double> BusiestBytes::*field) {
    return [=](R r) {
      const std::optional<double>& v = r.max_per_iter.*field;
      return v ? fmt::format("{:.0f}", *v) : "";
    };
  };
  static const std::vector<Column<Report>> columns = joined(
      joined({{"program", [](R) { return std::string("ps_sim"); }}}, setup_columns<Report>()),
      {
          {"params", [](R r) { return fmt::format("{}", r.c->shape.params()); }},
          {"model_B", [](R r) { return fmt::format("{}", r.c->shape.bytes()); }},
          {"batch", [](R r) { return fmt::format("{}", r.c->batch); }},
          {"iters", [](R r) { return fmt::format("{}", r.c->iters); }},
          {"lr", [](R r) { return fmt::format("{:g}", r.c->lr); }},
          {"straggler",
           [](R r) {
             return r.c->straggler < 0 ? std::string() : fmt::format("{}", r.c->straggler);
           }},
          {"slowdown", [](R r) { return fmt::format("{:g}", r.c->slowdown); }},
          {"t_iter_us", us(&Report::t_iter_us)},
          {"compute_us", us(&Report::compute_us)},
          {"push_us", us(&Report::push_us)},
          {"aggregate_us", us(&Report::aggregate_us)},
          {"pull_us", us(&Report::pull_us)},
          {"idle_us", us(&Report::idle_us)},
          {"server_in_max_B", most_B(&BusiestBytes::server_in_B)},
          {"server_out_max_B", most_B(&BusiestBytes::server_out_B)},
          {"worker_in_max_B", most_B(&BusiestBytes::worker_in_B)},
          {"worker_out_max_B", most_B(&BusiestBytes::worker_out_B)},
          {"rank_out_max_B", most_B(&BusiestBytes::rank_out_B)},
          {"exact_max_B", [num](R r) { return num(r.exact_B, 0); }},
          {"taught_formula", [](R r) { return r.formula; }},
          {"taught_B", [num](R r) { return num(r.taught_B, 0); }},
          {"traffic", [](R r) { return traffic_word(r.traffic); }},
          {"loss_first", [num](R r) { return num(r.loss.front(), 6); }},
          {"loss_last", [num](R r) { return num(r.loss.back(), 6); }},
          {"weights_max_rel_diff", [](R r) { return weights_diff(r); }},
          {"staleness_max", [](R r) { return fmt::format("{}", r.staleness_max); }},
          {"staleness_hist", [](R r) { return staleness_hist(r); }},
          {"check", [](R r) { return name(r.check); }},
          {"note", [](R r) { return r.note; }},
          {"host", [](R r) { return r.host; }},
          {"date", [](R r) { return r.date; }},
          {"mpi_version", [](R r) { return r.mpi; }},
          {"commlab_version", [](R) { return commlab_version(); }},
      });
  return columns;
}

const std::vector<Column<LossRow>>& loss_schema() {
  using R = const LossRow&;
  static const std::vector<Column<LossRow>> columns =
      joined(setup_columns<LossRow>(),
             {
                 {"model_B", [](R r) { return fmt::format("{}", r.c->shape.bytes()); }},
                 {"iteration", [](R r) { return fmt::format("{}", r.iteration); }},
                 {"loss", [](R r) { return fmt::format("{:.6f}", r.loss); }},
             });
  return columns;
}

Report start_report(const Config& c) {
  Report r;
  r.c = &c;
  r.mpi = mpi_version(), r.host = hostname(), r.date = utc_now();
  return r;
}

void finish_report(Report& r, const Settings& s, const Measurement& m, int ranks) {
  summarize_phases(r, m.ranks, m.elapsed_s);
  r.max_per_iter = busiest(m.ranks, *r.c);
  summarize_training(r, m);
  formulas(r, s.shards, ranks);
  r.traffic = m.traffic;
  judge(r, s.check, m);
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
      traffic_word(r.traffic), r.loss.front(), r.loss.back(), name(r.check));
  fmt::print("# measured_B: {}, per iteration; taught {:.0f}\n", r.formula, r.taught_B);
  const std::string hist = staleness_hist(r), diff = weights_diff(r);
  if (!hist.empty()) fmt::print("# staleness (iterations: gradients x servers): {}\n", hist);
  if (!diff.empty()) fmt::print("# weights vs serial SGD: max relative difference {}\n", diff);
  if (!r.note.empty()) fmt::print("# {}\n", r.note);
  std::fflush(stdout);
}

std::string loss_lines(const Report& r) {
  std::string lines;
  for (int k = 0; k < r.c->iters; ++k) lines += csv_line(loss_schema(), LossRow{r.c, k, r.loss[k]});
  return lines;
}

}  // namespace commlab::ps
