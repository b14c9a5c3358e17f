#include "inprocess.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace commlab {

std::string InProcessRun::describe() const {
  return fmt::format("{} {} P={} N={} {} {} root={}{} nodes={} segment={} B", op.name, algo.name,
                     P, N, name(dtype), name(op_kind), root, in_place ? " in place" : "",
                     fmt::join(nodes.of_rank(), ","), segment_B);
}

namespace {

std::vector<double> values_of(const Buffer& b) {
  std::vector<double> v(b.count());
  for (size_t i = 0; i < v.size(); ++i) v[i] = b.at(i);
  return v;
}

}  // namespace

std::vector<double> values(DType t, const Snapshot& s) { return values_of(Buffer::from_bytes(t, s.bytes)); }

InProcessResult run_in_process(ThreadWorld& world, const InProcessRun& run) {
  Truth truth(run.op, {run.fill, run.dtype, run.op_kind, run.P}, run.root, run.N, run.in_place);
  truth.precompute();  // once, not once per thread
  InProcessResult result;
  result.wrong.resize(run.P);
  result.snapshots.resize(run.P);
  result.outputs.resize(run.P);
  // Where the ranks run: as asked, or one node.
  const Nodes nodes = run.nodes.empty() ? Nodes::blocks(run.P, run.P) : run.nodes;
  world.run([&](Transport& transport) {
    const int me = transport.rank();
    Memory mem;
    Comm comm(transport, mem);
    // Every message, for the ports' bytes; the states only when asked.
    Recorder recorder(run.trace ? Keep::states : Keep::messages);
    Attached attached(comm, recorder);
    const Layout L = truth.layout(me);
    Buffer input(run.dtype, run.in_place ? 0 : L.in), out(run.dtype, L.out);
    Buffer& before = run.in_place ? out : input;
    out.fill([](size_t) { return kJunk; });
    before.fill([&](size_t i) { return truth.before(me, i); });
    comm.watch(out.data(), out.bytes());
    run.algo.run({comm, before.data(), out.data(), run.N, {run.dtype, run.op_kind}, run.root, mem,
                  run.segment_B, &nodes});
    if (run.trace) recorder.snapshot(mem);
    const Traffic t = recorder.gather_counts(transport, nodes);
    if (me == 0) result.counted = t;
    result.snapshots[me] = recorder.snapshots();
    result.outputs[me] = values_of(out);
    if (!run.op.has_data) return;
    const Mismatch m = compare(
        out, [&](size_t i) { return truth.after(me, i); }, truth.checked(me));
    if (m.wrong) result.wrong[me] = fmt::format("rank {}: {} wrong, {}", me, m.wrong, m.first);
  });
  return result;
}

std::string InProcessResult::verdict(const Traffic& model) const {
  for (const std::string& w : wrong)
    if (!w.empty()) return w;
  if (!counted.same_counts(model))
    return fmt::format(
        "counted traffic differs from the model: sent max {} vs {}, recv max {} vs "
        "{}, total {} vs {}, msgs {} vs {}, steps {} vs {}, port {} vs {}",
        counted.sent_max_rank_B, model.sent_max_rank_B, counted.recv_max_rank_B,
        model.recv_max_rank_B, counted.sent_total_B, model.sent_total_B, counted.msgs_total,
        model.msgs_total, counted.steps, model.steps, counted.port_critical_B,
        model.port_critical_B);
  return "";
}

}  // namespace commlab
