#include "hand_rows.hpp"

#include <fmt/format.h>

#include <utility>

#include "operations/predicted.hpp"

namespace commlab {

namespace {

// The rows to make, by name and algorithm index, and each one's model and
// predicted time, computed once: a row and auto's choice share them.
struct Planned {
  std::vector<std::pair<std::string, size_t>> rows;
  std::vector<Predicted> predicted;
  std::string auto_near;  // what auto chose between (near_fastest)
};

Planned plan(const std::vector<std::string>& algorithms, const ShapeData& d) {
  const ProgramContext& ctx = d.ctx;
  const size_t n = ctx.op.algorithms.size();
  Planned p{{}, std::vector<Predicted>(n), {}};
  for (size_t i = 0; i < n; ++i)
    if (ctx.picked(algorithms, ctx.op.algorithms[i].name))
      p.rows.emplace_back(ctx.op.algorithms[i].name, i);
  const bool with_auto = ctx.picked(algorithms, kAuto);
  if (with_auto)
    p.predicted = predict(ctx.op, ctx.cost, d.job);
  else
    for (const auto& [name, i] : p.rows)
      p.predicted[i] = predict(ctx.op.algorithms[i], ctx.cost, d.job);
  if (ctx.o.device == Device::host) {
    // One node's memory as the resource (docs/time-model.md): over MPI on
    // one node it prices the algorithms, and so auto's choice.
    add_memory_loads(p.predicted, ctx.op, d.job, d.in_place, ctx.runner.direct());
    if (d.job.nodes.count() <= 1 && !ctx.runner.direct())
      price_by_memory(p.predicted, ctx.cost, d.job);
  }
  price_own_copies(p.predicted, ctx.op, ctx.cost, d.job, d.in_place);  // a shared GPU's
  if (d.direct) d.direct->price_copies(p.predicted, ctx.op, ctx.cost, double(d.N * d.red.esize()));
  if (with_auto) {
    p.rows.emplace_back(kAuto, fastest(ctx.op, p.predicted, ctx.runner.direct()));
    p.auto_near = near_fastest(ctx.op, p.predicted, ctx.runner.direct());
  }
  return p;
}

// The library's result a hand-written one is compared with: the call it
// pairs with, else the first; null where no library call ran (sendrecv's
// under --overlap: there is no MPI_Isendrecv before MPI 4.0).
const Buffer* library_result(const ShapeData& d, const std::string& algorithm) {
  for (const auto& [pairs_with, result] : d.lib_results)
    if (pairs_with == algorithm) return &result;
  return d.lib_results.empty() ? nullptr : &d.lib_results.front().second;
}

// One node's memory on host buffers (time_model.hpp): the schedule's loads
// (plan's), and the probe's copy rates at the row's size.
void add_memory(Row& row, const ShapeData& d, const Predicted& p) {
  const ProgramContext& ctx = d.ctx;
  if (!p.memory) return;
  row.memory = p.memory;
  if (ctx.cost.copy_alone.bytes.empty()) return;
  const uint64_t N_B = d.N * d.red.esize();
  row.copy_alone_GBps = copy_GBps(ctx.cost.copy_alone, double(N_B));
  row.copy_together_GBps = copy_GBps(ctx.cost.copy_together, double(N_B));
}

}  // namespace

std::vector<Row> hand_rows(const std::vector<std::string>& algorithms, ShapeData& d) {
  const ProgramContext& ctx = d.ctx;
  const Planned planned = plan(algorithms, d);
  std::vector<Row> rows;
  Buffer& out = d.hand_out.emplace(d.direct ? d.direct->result(d.red.dtype, d.L.out, ctx.o.device)
                                            : Buffer(d.red.dtype, d.L.out, ctx.o.device));
  for (const auto& [row_name, i] : planned.rows) {
    const CollectiveAlgorithm& algo = ctx.op.algorithms[i];
    const Buffer* lib = library_result(d, algo.name);
    Case c = d.make_case(row_name, Impl::hand, algo.run, out, algo.reads_peers);
    // --overlap: run from its recorded schedule, non-blocking (ring_nb).
    if (ctx.o.overlap) c.algorithm += kNonBlocking, c.replay = true;
    c.check = [&out, &d, lib](const std::function<void()>&) {
      Mismatch m = compare(out, *d.exact, d.checked);
      std::optional<uint64_t> vs_lib;
      if (lib) vs_lib = compare(out, *lib, d.checked).wrong;
      return Verdict{m.wrong, vs_lib, m.first};
    };
    const Predicted& p = planned.predicted[i];
    c.model = ctx.runner.direct() ? p.model.pulled() : p.model;
    c.t_model_us = p.us;
    if (row_name == kAuto) c.chose = algo.name;
    c.time_scale = algo.time_scale;
    if (algo.taught_T) {
      c.taught_formula = algo.taught_formula;
      c.taught_T_B = algo.taught_T(d.P, double(d.N * d.red.esize()));
    }
    Row row = ctx.runner.measure(d.shape, c);
    if (row.note.empty() && algo.remark) row.note = algo.remark(d.P);
    if (row_name == kAuto && !planned.auto_near.empty())
      row.note += fmt::format("{}predicted within {:.0f}% of it: {}", row.note.empty() ? "" : "; ",
                              100 * kNearFastest, planned.auto_near);
    if (d.direct) row.buffers = d.direct->buffers();
    add_memory(row, d, p);
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace commlab
