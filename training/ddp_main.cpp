// ddp_step: a data-parallel training step as PyTorch's DDP runs it
// (ddp_step.hpp), for each bucket size and each all-reduce: MPI_Iallreduce
// and the hand-written ones replayed non-blocking. Each row: the step, the
// backward alone, the buckets' all-reduces alone, what of them the step
// could not hide (exposed) and the overlap, with the time model's step; the
// gradient checked exactly, the hand-written buckets' traffic counted
// against their model. Docs: docs/ddp.md.
#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <numeric>

#include "core/comm/errors.hpp"
#include "core/comm/time_model.hpp"
#include "ddp_cli.hpp"
#include "ddp_step.hpp"
#include "harness/host.hpp"
#include "harness/program.hpp"
#include "harness/results.hpp"
#include "harness/runner.hpp"
#include "harness/version.hpp"
#include "operations/operation.hpp"
#include "operations/predicted.hpp"

using namespace commlab;
using namespace commlab::ddp;

namespace {

struct DdpRow {
  std::string algorithm, impl;
  int P = 0, layers = 0, hidden = 0, batch = 0, buckets = 0, iters = 0;
  uint64_t grad_B = 0, bucket_cap_B = 0;
  double t_step_us = 0, t_compute_us = 0, t_comm_us = 0, model_comm_us = 0, model_step_us = 0;
  std::optional<BucketedStep::Counted> counted;
  uint64_t wrong = 0;
  Check check = Check::off;
  double exposed_us() const { return std::max(0.0, t_step_us - t_compute_us); }
  // DDP's overlap: the share of the communication the step hid.
  double overlap_pct() const {
    return t_comm_us > 0 ? 100 * std::max(0.0, 1 - exposed_us() / t_comm_us) : 100;
  }
};

const std::vector<Column<DdpRow>>& schema() {
  auto fixed = [](double v) { return fmt::format("{:.3f}", v); };
  static const std::vector<Column<DdpRow>> columns{
      {"program", [](const DdpRow&) { return std::string("ddp_step"); }},
      {"algorithm", [](const DdpRow& r) { return r.algorithm; }},
      {"impl", [](const DdpRow& r) { return r.impl; }},
      {"P", [](const DdpRow& r) { return std::to_string(r.P); }, Kind::integer},
      {"layers", [](const DdpRow& r) { return std::to_string(r.layers); }, Kind::integer},
      {"hidden", [](const DdpRow& r) { return std::to_string(r.hidden); }, Kind::integer},
      {"batch", [](const DdpRow& r) { return std::to_string(r.batch); }, Kind::integer},
      {"grad_B", [](const DdpRow& r) { return std::to_string(r.grad_B); }, Kind::integer},
      {"bucket_cap_B", [](const DdpRow& r) { return std::to_string(r.bucket_cap_B); },
       Kind::integer},
      {"buckets", [](const DdpRow& r) { return std::to_string(r.buckets); }, Kind::integer},
      {"iters", [](const DdpRow& r) { return std::to_string(r.iters); }, Kind::integer},
      {"t_step_us", [=](const DdpRow& r) { return fixed(r.t_step_us); }, Kind::real},
      {"t_compute_us", [=](const DdpRow& r) { return fixed(r.t_compute_us); }, Kind::real},
      {"t_comm_us", [=](const DdpRow& r) { return fixed(r.t_comm_us); }, Kind::real},
      {"t_exposed_us", [=](const DdpRow& r) { return fixed(r.exposed_us()); }, Kind::real},
      {"overlap_pct", [=](const DdpRow& r) { return fixed(r.overlap_pct()); }, Kind::real},
      {"model_comm_us", [=](const DdpRow& r) { return fixed(r.model_comm_us); }, Kind::real},
      {"model_step_us", [=](const DdpRow& r) { return fixed(r.model_step_us); }, Kind::real},
      {"sent_max_rank_B",
       [](const DdpRow& r) {
         return r.counted ? std::to_string(r.counted->counted.sent_max_rank_B) : "";
       },
       Kind::integer},
      {"model_sent_max_rank_B",
       [](const DdpRow& r) {
         return r.counted ? std::to_string(r.counted->model.sent_max_rank_B) : "";
       },
       Kind::integer},
      {"traffic",
       [](const DdpRow& r) {
         return r.counted ? std::string(r.counted->exact ? "exact" : "DIFFERS") : "";
       }},
      {"wrong", [](const DdpRow& r) { return std::to_string(r.wrong); }, Kind::integer},
      {"check", [](const DdpRow& r) { return name(r.check); }},
      {"host", [](const DdpRow&) { return hostname(); }},
      {"date", [](const DdpRow&) { return utc_now(); }},
      {"mpi_version", [](const DdpRow&) { return mpi_version(); }},
      {"commlab_version", [](const DdpRow&) { return commlab_version(); }},
  };
  return columns;
}

// The mean over the iterations of each one's slowest rank, in us; before
// each, untimed, `prepare`.
template <class Prepare, class Work>
double timed_us(Comm& comm, const Settings& s, Prepare prepare, Work work) {
  std::vector<double> mine;
  for (int i = 0; i < s.warmup + s.iters; ++i) {
    prepare();
    MPI_Barrier(comm.mpi());
    const double t0 = MPI_Wtime();
    work(i >= s.warmup);
    if (i >= s.warmup) mine.push_back((MPI_Wtime() - t0) * 1e6);
  }
  std::vector<double> slowest(mine.size());
  MPI_Allreduce(mine.data(), slowest.data(), int(mine.size()), MPI_DOUBLE, MPI_MAX, comm.mpi());
  return std::accumulate(slowest.begin(), slowest.end(), 0.0) / double(slowest.size());
}

// Each layer's end from the start of backward: this rank's sums over the
// timed iterations, as their mean on the slowest rank.
std::vector<double> layer_ends_us(Comm& comm, const std::vector<double>& sums_us, int iters) {
  std::vector<double> slowest(sums_us.size(), 0.0);
  MPI_Allreduce(sums_us.data(), slowest.data(), int(sums_us.size()), MPI_DOUBLE, MPI_MAX,
                comm.mpi());
  for (double& t : slowest) t /= iters;
  return slowest;
}

// The time model's all-reduce of each bucket: the hand-written algorithm's,
// or for MPI_Iallreduce the fastest hand-written one's (what -a auto runs).
std::vector<double> model_comm_us(const CostModel& cost, const Nodes& nodes, int P,
                                  const Bucketing& b, const std::string& algorithm) {
  static const auto op = make_operation("allreduce");
  std::vector<double> us;
  for (const Range& r : b.buckets) {
    const JobShape shape{P, r.count, sizeof(float), 0, nodes};
    if (!algorithm.empty()) {
      us.push_back(predict(op->algorithm(algorithm), cost, shape).us);
      continue;
    }
    const std::vector<Predicted> all = predict(*op, cost, shape);
    us.push_back(all[fastest(*op, all, false)].us);
  }
  return us;
}

struct Run {
  Comm& comm;
  const Nodes& nodes;
  const Settings& s;
  const CostModel& cost;
};

DdpRow measure(const Run& run, const Bucketing& b, size_t cap_B, const std::string& algorithm) {
  const Settings& s = run.s;
  BucketedStep step(run.comm, run.nodes, s, b, algorithm);
  DdpRow r;
  r.algorithm = algorithm.empty() ? "MPI_Iallreduce" : algorithm + kNonBlocking;
  r.impl = algorithm.empty() ? "mpi" : "hand";
  r.P = run.comm.size(), r.layers = s.layers, r.hidden = s.hidden, r.batch = s.batch;
  r.grad_B = uint64_t(s.layers) * s.hidden * s.hidden * sizeof(float);
  r.bucket_cap_B = cap_B, r.buckets = int(b.buckets.size()), r.iters = s.iters;
  std::vector<double> end_sums_us(size_t(s.layers), 0.0), ends_us;
  auto nothing = [] {};
  auto inputs = [&] { step.fill(); };
  r.t_compute_us = timed_us(run.comm, s, nothing, [&](bool timed) {
    ends_us.clear();
    step.backward(&ends_us);
    if (timed)
      for (int l = 0; l < s.layers; ++l) end_sums_us[l] += ends_us[l];
  });
  r.t_comm_us = timed_us(run.comm, s, inputs, [&](bool) { step.communicate(); });
  r.t_step_us = timed_us(run.comm, s, inputs, [&](bool) { step.step(); });
  if (s.check) {
    uint64_t mine = step.wrong();
    MPI_Allreduce(&mine, &r.wrong, 1, MPI_UINT64_T, MPI_SUM, run.comm.mpi());
    r.counted = step.count();
    r.check = r.wrong == 0 && (!r.counted || r.counted->exact) ? Check::ok : Check::fail;
  }
  const std::vector<double> comm_us = model_comm_us(run.cost, run.nodes, r.P, b, algorithm);
  r.model_comm_us = std::accumulate(comm_us.begin(), comm_us.end(), 0.0);
  r.model_step_us = model_step_us(layer_ends_us(run.comm, end_sums_us, s.iters), b, comm_us);
  return r;
}

void print_heading(const Settings& s, int P, uint64_t grad_B, const CostModel& cost) {
  fmt::print(
      "# ddp_step  P={}  layers={}  hidden={}  batch={}  gradient={} B  iters={}  warmup={}\n", P,
      s.layers, s.hidden, s.batch, grad_B, s.iters, s.warmup);
  fmt::print("# {}, {}, commlab {}\n", mpi_version(), utc_now(), commlab_version());
  fmt::print("# time model: {}\n", describe(cost));
  fmt::print("{:>12} {:>7}  {:<22} {:>11} {:>11} {:>11} {:>11} {:>8} {:>11} {:<7} {}\n",
             "bucket_cap_B", "buckets", "algorithm", "step_us", "compute_us", "comm_us",
             "exposed_us", "overlap%", "model_us", "traffic", "check");
}

void print_row(const DdpRow& r) {
  fmt::print(
      "{:>12} {:>7}  {:<22} {:>11.1f} {:>11.1f} {:>11.1f} {:>11.1f} {:>8.1f} {:>11.1f} {:<7} {}\n",
      r.bucket_cap_B, r.buckets, r.algorithm, r.t_step_us, r.t_compute_us, r.t_comm_us,
      r.exposed_us(), r.overlap_pct(), r.model_step_us,
      r.counted ? (r.counted->exact ? "exact" : "DIFFERS") : "-", name(r.check));
}

// The bucket capacity with the shortest step, measured and modelled, per all-reduce.
void print_best(const std::vector<DdpRow>& rows) {
  std::vector<std::string> names;
  for (const DdpRow& r : rows)
    if (std::find(names.begin(), names.end(), r.algorithm) == names.end())
      names.push_back(r.algorithm);
  for (const std::string& n : names) {
    const DdpRow *measured = nullptr, *modelled = nullptr;
    for (const DdpRow& r : rows) {
      if (r.algorithm != n) continue;
      if (!measured || r.t_step_us < measured->t_step_us) measured = &r;
      if (!modelled || r.model_step_us < modelled->model_step_us) modelled = &r;
    }
    fmt::print("# {}: best bucket measured {} B ({:.1f} us), the model's {} B ({:.1f} us)\n", n,
               measured->bucket_cap_B, measured->t_step_us, modelled->bucket_cap_B,
               modelled->model_step_us);
  }
}

int run_steps(const Settings& s, Comm& comm, const Nodes& nodes) {
  LinesFile csv;
  std::string error;
  if (comm.rank() == 0 && !s.csv.empty()) try {
      csv = LinesFile(s.csv, csv_header(schema()), "--csv");
    } catch (const UsageError& e) {
      error = e.what();
    }
  agree_or_exit(comm.mpi(), error);
  const Reduction sum{DType::float32, Op::sum};
  const CostModel cost = probe_cost(comm, &sum);
  const uint64_t grad_B = uint64_t(s.layers) * s.hidden * s.hidden * sizeof(float);
  if (comm.rank() == 0) print_heading(s, comm.size(), grad_B, cost);
  std::vector<std::string> impls = s.algorithms;
  if (s.library) impls.insert(impls.begin(), "");
  std::vector<DdpRow> rows;
  bool failed = false;
  for (double MiB : s.bucket_MiB) {
    const size_t cap_B = size_t(MiB * 1024 * 1024);
    const Bucketing b = bucket(s.layers, size_t(s.hidden) * s.hidden, sizeof(float), cap_B);
    for (const std::string& algorithm : impls) {
      DdpRow r = measure({comm, nodes, s, cost}, b, cap_B, algorithm);
      failed |= r.check == Check::fail;
      if (comm.rank() == 0) print_row(r), csv.append_lines(csv_line(schema(), r));
      rows.push_back(std::move(r));
    }
  }
  if (comm.rank() == 0) print_best(rows);
  return failed ? kExitWrong : 0;
}

}  // namespace

int main(int argc, char** argv) {
  return run_program<Settings>(argc, argv, parse_settings, run_steps);
}
