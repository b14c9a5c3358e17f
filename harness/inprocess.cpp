#include "inprocess.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <deque>
#include <map>
#include <optional>
#include <thread>
#include <tuple>

#include "core/comm/executor.hpp"
#include "core/transports/make_transport.hpp"
#include "operations/truth.hpp"

namespace commlab {

std::string InProcessRun::describe() const {
  return fmt::format("{} {} P={} N={} {} {} root={}{} nodes={} segment={} B{}", op.name, algo.name,
                     P, N, name(dtype), name(op_kind), root, in_place ? " in place" : "",
                     fmt::join(nodes.of_rank(), ","), segment_B,
                     direct || algo.reads_peers
                         ? (private_buffers ? ", direct, private buffers" : ", direct")
                         : "");
}

std::string describe(const Sent& m) {
  const std::string what = chunks_text(m.chunk, m.last);
  return fmt::format("step {}: rank {} -> rank {}, {} B{}{}", m.step, m.from, m.to, m.bytes,
                     what.empty() ? "" : " (" + what + ")",
                     !m.seen     ? ""
                     : m.reduced ? ", reduced on arrival"
                                 : ", stored on arrival");
}

std::vector<double> values(DType t, const Snapshot& s) {
  return Buffer::from_bytes(t, s.bytes).values();
}

namespace {

// What the ranks of one in-process run share.
struct Shared {
  const InProcessRun& run;
  const Truth& truth;
  const Nodes& nodes;
  bool direct;
  RegionLayout at;
  HeapRegions* regions;  // over direct access
  InProcessResult& result;
};

// This rank's buffers: in its region over direct access (but a reading
// algorithm's on private buffers), else its own.
std::pair<Buffer, Buffer> buffers(const Shared& w, int me) {
  const InProcessRun& run = w.run;
  const Layout L = w.truth.layout(me);
  char* region = w.direct ? w.regions->base(me) : nullptr;
  const bool in_region = w.direct && !(run.private_buffers && run.algo.reads_peers);
  const size_t in = run.in_place ? 0 : L.in;
  if (!in_region) return {Buffer(run.dtype, in), Buffer(run.dtype, L.out)};
  return {Buffer::view(run.dtype, in, Device::host, region),
          Buffer::view(run.dtype, L.out, Device::host, region + w.at.out_at)};
}

// The schedule of one run of the algorithm, recorded (schedule.hpp).
Schedule record_schedule(const CollectiveJob& job, const InProcessRun& run,
                         const std::function<void()>& prepare) {
  prepare();
  return commlab::record_schedule(
      job.comm, [&] { run.algo.run(job); }, run.algo.name);
}

// The recorded schedule run non-blocking: run.replay_tests test calls, then
// a wait (or, negative, tests alone until done).
void replay(Comm& comm, const Schedule& schedule, int tests) {
  Executor ex(comm, schedule);
  ex.start();
  if (tests >= 0) {
    for (int i = 0; i < tests; ++i) ex.test();
    return ex.wait();
  }
  while (!ex.test()) std::this_thread::yield();  // P threads on a few cores
}

// One rank, on its thread: the run, its trace gathered, its result checked.
void run_rank(Transport& threads, const Shared& w) {
  const InProcessRun& run = w.run;
  const int me = threads.rank();
  Memory mem;
  std::unique_ptr<DirectTransport> peers;
  if (w.direct) peers = make_signalled(run.signals, threads, *w.regions, mem);
  Transport& transport = w.direct ? static_cast<Transport&>(*peers) : threads;
  Comm comm(transport, mem);
  if (w.direct) mem.place_scratch(w.regions->base(me) + w.at.scratch_at, w.at.scratch_B);
  // Named, not a structured binding: the lambdas below capture them.
  std::pair<Buffer, Buffer> pair = buffers(w, me);
  Buffer &input = pair.first, &out = pair.second;
  Buffer& before = run.in_place ? out : input;
  auto prepare = [&] {
    out.fill([](size_t) { return kJunk; });
    before.fill([&](size_t i) { return w.truth.before(me, i); });
  };
  const CollectiveJob job{comm,     before.data(), out.data(),    run.N,   {run.dtype, run.op_kind},
                          run.root, mem,           run.segment_B, &w.nodes};
  std::optional<Schedule> schedule;
  if (run.replay_tests) schedule = record_schedule(job, run, prepare);
  // Every message, for the ports' bytes; the states only when asked.
  Recorder recorder(run.trace ? Keep::states : Keep::messages);
  Attached attached(comm, recorder);
  prepare();
  comm.watch(out.data(), out.bytes());
  const uint64_t waits_before = mem.waits();
  try {
    if (schedule)
      replay(comm, *schedule, *run.replay_tests);
    else
      run.algo.run(job);
    mem.sync();  // the end of the call, as the programs' timing loop waits for it
  } catch (...) {
    if (w.direct) w.regions->fail();  // the others stop waiting for this rank
    throw;
  }
  if (run.trace) recorder.snapshot(mem);
  // Collective: every rank takes part; rank 0 keeps what is gathered.
  const bool keeper = me == 0;
  const std::vector<TraceEntry> sent = recorder.gather_trace(comm.transport(), keeper);
  const std::vector<TraceEntry> arrived = recorder.gather_arrivals(comm.transport(), keeper);
  const Traffic t = recorder.gather_counts(comm.transport(), w.nodes, sent);
  InProcessResult& result = w.result;
  if (keeper) result.counted = t, result.sent = sent, result.arrived = arrived;
  result.snapshots[me] = recorder.snapshots();
  result.outputs[me] = out.values();
  if (peers)
    result.costs[me] = {peers->received(), peers->receive_ops(), mem.waits() - waits_before};
  if (!run.op.has_data) return;
  const Mismatch m = compare(
      out, [&](size_t i) { return w.truth.after(me, i); }, w.truth.checked(me));
  if (m.wrong) result.wrong[me] = fmt::format("rank {}: {} wrong, {}", me, m.wrong, m.first);
}

}  // namespace

InProcessResult run_in_process(ThreadWorld& world, const InProcessRun& run) {
  Truth truth(run.op, {run.fill, run.dtype, run.op_kind, run.P}, run.root, run.N, run.in_place);
  truth.precompute();  // once, not once per thread
  InProcessResult result;
  result.wrong.resize(run.P);
  result.snapshots.resize(run.P);
  result.outputs.resize(run.P);
  result.costs.resize(run.P);
  // Where the ranks run: as asked, or one node.
  const Nodes nodes = run.nodes.empty() ? Nodes::blocks(run.P, run.P) : run.nodes;
  result.direct = run.direct || run.algo.reads_peers;
  const RegionLayout at = region_layout(truth, run.P, run.N, element_size(run.dtype));
  std::optional<HeapRegions> regions;
  if (result.direct) regions.emplace(run.P, at.bytes());
  const Shared shared{run, truth, nodes, result.direct, at, regions ? &*regions : nullptr, result};
  world.run([&](Transport& threads) { run_rank(threads, shared); });
  return result;
}

std::string InProcessResult::verdict(const Traffic& model) const {
  for (const std::string& w : wrong)
    if (!w.empty()) return w;
  const Traffic expected = direct ? model.pulled() : model;
  if (!counted.same_counts(expected))
    return fmt::format(
               "counted traffic differs from the model: sent max {} vs {}, recv max {} vs "
               "{}, total {} vs {}, msgs {} vs {}, steps {} vs {}, port {} vs {}, busiest link "
               "{} vs {}, hop-bytes {} vs {}",
               counted.sent_max_rank_B, model.sent_max_rank_B, counted.recv_max_rank_B,
               model.recv_max_rank_B, counted.sent_total_B, model.sent_total_B, counted.msgs_total,
               model.msgs_total, counted.steps, model.steps, counted.port_critical_B,
               model.port_critical_B, counted.link_critical_B, model.link_critical_B, counted.hop_B,
               model.hop_B) +
           (direct ? fmt::format(", read from peers {} vs {}", counted.peer_read_max_rank_B,
                                 expected.peer_read_max_rank_B)
                   : "");
  if (const auto d = first_difference(model))
    return fmt::format("message {} (by step, sender, receiver) differs from the model's: {} vs {}",
                       d->index + 1, d->counted ? describe(*d->counted) : "none",
                       d->model ? describe(*d->model) : "none");
  return "";
}

namespace {

bool before(const Sent& a, const Sent& b) {
  return std::tie(a.step, a.from, a.to, a.bytes) < std::tie(b.step, b.from, b.to, b.bytes);
}

bool same(const Sent& a, const Sent& b) {
  return std::tie(a.step, a.from, a.to, a.bytes) == std::tie(b.step, b.from, b.to, b.bytes) &&
         (a.reduced == b.reduced || !a.seen || !b.seen);
}

// What ran, message by message: each as its sender sent it, reduced or not
// as its receiver said (the first unmatched arrival of the same step and pair).
std::vector<Sent> counted_messages(const std::vector<TraceEntry>& sent,
                                   const std::vector<TraceEntry>& arrived) {
  // Each pair's arrivals in a step, in the order posted, as MPI matches them.
  std::map<std::tuple<int, int, int>, std::deque<const TraceEntry*>> waiting;
  for (const TraceEntry& a : arrived) waiting[{a.step, a.from, a.to}].push_back(&a);
  std::vector<Sent> all;
  for (const TraceEntry& e : sent) {
    bool reduced = e.reduced, seen = true;
    if (!e.read) {
      auto& queue = waiting[{e.step, e.from, e.to}];
      seen = !queue.empty() && !queue.front()->deferred;  // none: what its receiver did is unknown
      if (!queue.empty()) reduced = queue.front()->reduced, queue.pop_front();
    }
    all.push_back({e.step, e.from, e.to, e.bytes, reduced, e.chunk, seen, e.last_chunk});
  }
  std::stable_sort(all.begin(), all.end(), before);
  return all;
}

}  // namespace

std::optional<MessageDifference> InProcessResult::first_difference(const Traffic& model) const {
  const std::vector<Sent> ran = counted_messages(sent, arrived);
  std::vector<Sent> modelled;
  for (const Message& m : model.messages)
    modelled.push_back({m.step, m.from, m.to, m.bytes,
                        m.arrival != Arrival::stored && m.arrival != Arrival::read});
  std::stable_sort(modelled.begin(), modelled.end(), before);
  for (size_t i = 0; i < std::max(ran.size(), modelled.size()); ++i) {
    const bool in_ran = i < ran.size(), in_model = i < modelled.size();
    if (in_ran && in_model && same(ran[i], modelled[i])) continue;
    MessageDifference d{i, ran.size(), modelled.size(), {}, {}};
    if (in_ran) d.counted = ran[i];
    if (in_model) d.model = modelled[i];
    return d;
  }
  return std::nullopt;
}

}  // namespace commlab
