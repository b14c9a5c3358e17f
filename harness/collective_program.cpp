// One collective program: the operation's library call and its hand-written
// algorithms on the same data, for every dtype x op x size asked for.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <climits>
#include <fstream>
#include <iterator>
#include <limits>
#include <optional>

#include "core/errors.hpp"
#include "core/time_model.hpp"
#include "host.hpp"
#include "operation.hpp"
#include "program.hpp"
#include "runner.hpp"
#include "table.hpp"
#include "tuned.hpp"

namespace commlab {

namespace {

std::vector<std::string> names(const std::vector<CollectiveAlgorithm>& algorithms) {
  std::vector<std::string> v;
  for (const auto& a : algorithms) v.push_back(a.name);
  return v;
}

bool picked(const std::vector<std::string>& algorithms, const std::string& name) {
  return std::find(algorithms.begin(), algorithms.end(), name) != algorithms.end();
}

// The MPI calls an operation's library rows make (even and uneven forms).
std::vector<std::string> mpi_calls(const Operation& op) {
  std::vector<std::string> calls;
  for (const LibraryCall& lib : op.library)
    if (lib.impl == Impl::mpi)
      for (const std::string& call : {lib.name, lib.uneven_name})
        if (!call.empty()) calls.push_back(call);
  return calls;
}

// --mpi-algorithm list: the algorithms Open MPI has for the operation's
// call (its even form), one a line; none with another MPI.
std::string mpi_algorithm_list(const Operation& op) {
  const std::vector<std::string> calls = mpi_calls(op);
  const TunedCall* tuned = calls.empty() ? nullptr : tuned_call(calls.front());
  if (!built_with_open_mpi() || !tuned) return "";
  return fmt::format("{}\n", fmt::join(tuned->algorithms, "\n"));
}

// --mpi-algorithm names one of Open MPI's algorithms for this operation's
// calls, and --mpi-rules a file Open MPI reads; with another MPI both are
// skipped (said in the heading), not refused.
void refuse_bad_library_flags(const Operation& op, const Options& o, int P) {
  if (!built_with_open_mpi()) return;
  if (!o.mpi_rules.empty()) {
    const std::string problem = rules_problem(o.mpi_rules);
    if (!problem.empty()) throw UsageError(problem);
  }
  if (o.mpi_algorithm.empty()) return;
  std::string choices;
  for (const std::string& call : mpi_calls(op)) {
    const TunedCall* tuned = tuned_call(call);
    if (!tuned) continue;
    if (tuned_number(*tuned, o.mpi_algorithm)) {
      // Open MPI refuses it mid-run (MPI_ERR_UNSUPPORTED_OPERATION) at any other P.
      if (o.mpi_algorithm == "two_proc" && P != 2)
        throw UsageError(
            fmt::format("--mpi-algorithm two_proc: Open MPI runs it at P = 2 only, not {}", P));
      return;
    }
    choices += fmt::format("{}{}: {}", choices.empty() ? "" : "; ", call,
                           fmt::join(tuned->algorithms, ", "));
  }
  throw UsageError(choices.empty()
                       ? "--mpi-algorithm: Open MPI has no algorithms to force for " + op.name
                       : fmt::format("--mpi-algorithm {}: not one of Open MPI's ({})",
                                     o.mpi_algorithm, choices));
}

// The algorithms asked for that this transport can run: those that read
// peers' memory only on the direct transport. Named with -a elsewhere: refused.
std::vector<std::string> runnable(const Operation& op, const Options& o,
                                  std::vector<std::string> algorithms) {
  if (o.transport == TransportKind::direct) return algorithms;
  std::vector<std::string> kept;
  for (const std::string& a : algorithms) {
    const auto it = std::find_if(op.algorithms.begin(), op.algorithms.end(),
                                 [&](const CollectiveAlgorithm& c) { return c.name == a; });
    if (it == op.algorithms.end() || !it->reads_peers) {
      kept.push_back(a);
      continue;
    }
    if (!o.algorithms.empty())
      throw UsageError("-a " + a + ": it reads peers' memory, which only --transport direct maps");
  }
  return kept;
}

// Everything about the flags that needs P, on every rank alike.
void refuse_bad_input(const Operation& op, const Options& o, int P) {
  refuse_bad_library_flags(op, o, P);
  if (o.registered && o.transport != TransportKind::direct)
    throw UsageError("--registered: only with --transport direct (the buffers peers map)");
  if (o.registered && !op.has_data)
    throw UsageError("--registered: " + op.name + " has no buffers");
  if (o.in_place && op.in_place_form == InPlace::never)
    throw UsageError("--in-place: " + op.name + " has no in-place form");
  if (!op.has_data) return;
  for (DType t : o.dtypes)
    for (size_t n : o.counts_for(t)) {
      if (op.int_counts && n > size_t(INT_MAX))
        throw UsageError(
            fmt::format("{} elements: MPI counts are int, so {} takes at most {} elements of {}", n,
                        op.name, INT_MAX, name(t)));
      std::string why = op.refuse(P, n, o.in_place);
      if (!why.empty()) throw UsageError(why);
    }
}

// What this rank holds at most over the shapes asked for, in units of its
// largest buffer: the input, the exact answer, a result per library call, one
// for the hand-written algorithms, and scratch of up to two; on GPUs the host
// holds only the library call's two page-locked copies (LibraryStaging). On
// the direct transport, its region too: region_layout's, sized by the
// largest rank's buffers (a root's may be P times the others'), and at
// least the time model's probe, which the runner registers first.
Footprint footprint(const Operation& op, const Options& o, int P, int rank) {
  const bool direct = o.transport == TransportKind::direct;
  double largest_B = 0, region_B = direct ? double(kProbeScratch_B) : 0;
  const bool in_place =
      op.in_place_form == InPlace::always || (op.in_place_form == InPlace::optional && o.in_place);
  for (DType t : o.dtypes)
    for (size_t n : op.has_data ? o.counts_for(t) : std::vector<size_t>{}) {
      const double esize = double(element_size(t));
      const Layout L = op.layout(P, rank, o.root < P ? o.root : 0, n, in_place);
      largest_B = std::max(largest_B, double(std::max(L.in, L.out)) * esize);
      size_t in = 0, out = 0;
      for (int r = 0; direct && r < P; ++r) {
        const Layout R = op.layout(P, r, o.root < P ? o.root : 0, n, in_place);
        in = std::max(in, R.in), out = std::max(out, R.out);
      }
      region_B = std::max(region_B, double(in + out + 2 * std::max({in, out, n})) * esize);
    }
  const double buffers = op.has_data ? 5.0 + double(op.library.size()) : 0;
  if (o.device == Device::cuda) return {2 * largest_B, buffers * largest_B + region_B};
  return {buffers * largest_B + region_B, 0};
}

class ShapeRun {
 public:
  ShapeRun(Runner& runner, Comm& comm, const Options& o, const Operation& op, const CostModel& cost)
      : runner_(runner), comm_(comm), o_(o), op_(op), cost_(cost) {}

  // What a run of N elements depends on; the segment is --segment or the
  // time model's best for one chunk.
  JobShape job_shape(size_t N, size_t esize) const {
    const int P = comm_.size();
    const size_t segment_B = o_.segment_B
                                 ? *o_.segment_B
                                 : best_segment_B(cost_, Partition{N, P}.largest() * esize, esize);
    return {P, N, esize, o_.root, runner_.nodes(), segment_B};
  }

  // The library call(s), then each hand-written algorithm asked for, on one shape.
  std::vector<Row> measure(const std::vector<std::string>& algorithms, DType dtype, Op op_kind,
                           size_t N) {
    OneShape d(*this, dtype, op_kind, N);
    std::vector<Row> rows = library_rows(algorithms, d);
    if (runner_.direct())
      d.reg = runner_.register_buffers(region_layout(d.truth, d.P, d.N, d.red.esize()));
    for (Row& row : hand_rows(algorithms, d)) rows.push_back(std::move(row));
    return rows;
  }

  // Barrier: no buffers; each implementation checked by the operation itself.
  std::vector<Row> measure_without_data(const std::vector<std::string>& algorithms) {
    const int P = comm_.size();
    const Shape shape{DType::float32, Op::sum, 0, 0, false, false};
    auto make_case = [&](const std::string& name, Impl impl, auto run) {
      Case c;
      c.algorithm = name;
      c.impl = impl;
      c.prepare = [] {};
      c.run = [this, run] {
        run(CollectiveJob{comm_,
                          nullptr,
                          nullptr,
                          0,
                          {DType::float32, Op::sum},
                          o_.root,
                          comm_.memory(),
                          0,
                          &runner_.nodes(),
                          runner_.nccl()});
      };
      c.check = [this, run = c.run] { return op_.check(comm_, run); };
      return c;
    };
    std::vector<Row> rows;
    std::vector<Traffic> models;
    for (const CollectiveAlgorithm& algo : op_.algorithms)
      models.push_back(algo.model(P, 0, 0, o_.root));
    for (const LibraryCall& lib : op_.library) {
      const LibraryName named = library_name(lib.name, lib.impl);
      Case c = make_case(named.row, lib.impl, lib.run);
      tell_apart(c, named.forced, models);
      rows.push_back(runner_.measure(shape, c));
    }
    for (const CollectiveAlgorithm& algo : op_.algorithms) {
      if (!picked(algorithms, algo.name)) continue;
      Case c = make_case(algo.name, Impl::hand, algo.run);
      c.model = algo.model(P, 0, 0, o_.root);
      if (runner_.direct()) c.model = c.model->pulled();
      rows.push_back(runner_.measure(shape, c));
    }
    return rows;
  }

 private:
  // A library call's row name, and the algorithm forced on it: Open MPI's,
  // where --mpi-algorithm names one of this call's (MPI_Allreduce:ring), or
  // its rules file's choice (MPI_Allreduce:rules).
  struct LibraryName {
    std::string row, forced;
  };
  LibraryName library_name(const std::string& call, Impl impl) const {
    const TunedCall* tuned = tuned_call(call);
    if (impl != Impl::mpi || !built_with_open_mpi() || !tuned) return {call, ""};
    if (!o_.mpi_rules.empty()) return {call + ":rules", ""};
    if (o_.mpi_algorithm.empty() || !tuned_number(*tuned, o_.mpi_algorithm)) return {call, ""};
    return {call + ":" + o_.mpi_algorithm, o_.mpi_algorithm};
  }

  // Where the library's messages are counted: the hand-written algorithms'
  // models (in their order) that tell which one the library ran, and the
  // forced algorithm's own, if it is one of ours, to compare it with.
  void tell_apart(Case& c, const std::string& forced, const std::vector<Traffic>& models) const {
    if (c.impl != Impl::mpi || !runner_.library_counted()) return;
    c.forced = forced;
    for (size_t i = 0; i < models.size(); ++i) {
      // A library passes messages: what reads peers' memory (two_shot moves
      // the ring's bytes in as many reads) is not what it ran.
      if (op_.algorithms[i].reads_peers) continue;
      // Nor is it named for a schedule our time model shaped (the segment):
      // which library rows it matched would move with the machine's speed.
      if (op_.algorithms[i].shaped_by_timing && op_.algorithms[i].name != forced) continue;
      c.known.emplace_back(op_.algorithms[i].name, models[i]);
      if (op_.algorithms[i].name == forced) c.model = models[i];
    }
  }

  // One shape on this rank: what every implementation's case shares.
  struct OneShape;
  // A library call counted on d's shape: told apart by every algorithm's
  // model, and held to the forced one's and to its taught formula.
  void expect_counted(Case& c, const std::string& forced, const OneShape& d) const {
    if (c.impl != Impl::mpi || !runner_.library_counted()) return;
    // Open MPI's segmented ring, forced without a segment size, sends one
    // segment per chunk: ours is held to that, or to --segment.
    JobShape job = d.job;
    job.segment_B = o_.segment_B.value_or(0);
    std::vector<Traffic> models;
    for (const CollectiveAlgorithm& algo : op_.algorithms) models.push_back(algo.model(job));
    tell_apart(c, forced, models);
    if (!c.model) return;
    const CollectiveAlgorithm& algo = op_.algorithm(forced);
    if (!algo.taught_T) return;
    c.taught_formula = algo.taught_formula;
    c.taught_T_B = algo.taught_T(d.P, double(d.N * d.red.esize()));
  }

  struct OneShape {
    OneShape(const ShapeRun& run, DType dtype, Op op_kind, size_t count)
        : P(run.comm_.size()),
          me(run.comm_.rank()),
          N(count),
          in_place(run.op_.in_place_form == InPlace::always ||
                   (run.op_.in_place_form == InPlace::optional && run.o_.in_place)),
          truth(run.op_, {run.o_.show ? Fill::rank : Fill::pattern, dtype, op_kind, P}, run.o_.root,
                N, in_place),
          L(truth.layout(me)),
          checked(truth.checked(me)),
          red{dtype, op_kind},
          shape{dtype, op_kind, N, run.op_.busbw_factor(P), run.op_.reduces, true},
          job(run.job_shape(N, red.esize())),
          // Out of place: this rank's input. In place: what its one buffer holds before each run.
          input(dtype, in_place ? L.out : L.in, run.o_.device) {
      input.fill([&](size_t i) { return truth.before(me, i); });
      if (run.o_.check) {  // the exact answer, once per shape and only when results are checked
        exact.emplace(dtype, checked, run.o_.device);
        exact->fill([&](size_t i) { return truth.after(me, i); });
      }
    }
    int P, me;
    size_t N;
    bool in_place;
    Truth truth;
    Layout L;
    size_t checked;
    Reduction red;
    Shape shape;
    JobShape job;
    Buffer input;
    std::optional<Buffer> exact;
    std::optional<Runner::Registered> reg;                    // the direct transport's buffers
    std::vector<std::pair<std::string, Buffer>> lib_results;  // by the algorithm each pairs with
    std::vector<std::unique_ptr<LibraryStaging>> stagings;
  };

  // A hand-written case on the direct transport. By default the user's
  // buffers are private: the input is copied into the registered one and
  // the result out of it inside the timed call, as a library on private
  // memory pays for it. (An algorithm that reads peers' memory is handed the
  // user's buffers and copies what its peers read itself, as vLLM's does:
  // the plain case.) --registered: `out` is the registered buffer itself
  // and the input is put in place before the run (untimed).
  template <class Job>
  void run_registered(Case& c, const OneShape& d, Job job, Buffer& out) {
    const Runner::Registered reg = *d.reg;
    const Buffer& input = d.input;
    Memory& mem = comm_.memory();
    const bool in_place = d.in_place;
    char* from = in_place ? reg.out : reg.in;
    c.watched = reg.out;
    if (o_.registered) {
      c.prepare = [&mem, &input, from] {
        mem.copy(from, input.data(), input.bytes());
        mem.sync();
      };
      c.run = [job, from, reg] { job(from, reg.out); };
    } else {
      // What is copied out must be this row's result, not an earlier row's
      // left in the registered buffer: it starts as junk, as `out` does.
      mem.copy(reg.out, out.data(), out.bytes());
      mem.sync();
      c.run = [job, &mem, &input, &out, from, reg, in_place] {
        mem.copy(from, in_place ? out.data() : input.data(), input.bytes());
        job(from, reg.out);
        mem.copy(out.data(), reg.out, out.bytes());
      };
    }
  }

  // A case that runs `run` on d's input into `out`.
  Case make_case(OneShape& d, const std::string& name, Impl impl, void (*run)(const CollectiveJob&),
                 Buffer& out, bool reads_peers = false) {
    Case c;
    c.algorithm = name;
    c.impl = impl;
    out.fill([](size_t) { return kJunk; });  // a result never written shows as wrong
    const bool in_place = d.in_place;
    Buffer& input = d.input;
    c.prepare = [&out, &input, in_place] {
      if (in_place) out.copy_from(input);
    };
    auto job = [this, run, N = d.N, red = d.red, root = o_.root, segment_B = d.job.segment_B](
                   const void* from, void* to) {
      run(CollectiveJob{comm_, from, to, N, red, root, comm_.memory(), segment_B, &runner_.nodes(),
                        runner_.nccl()});
    };
    if (impl == Impl::mpi) {  // on GPU buffers, MPI may need host copies
      LibraryStaging* staging =
          d.stagings.emplace_back(std::make_unique<LibraryStaging>(runner_.transport(), input, out))
              .get();
      c.run = [staging, job, in_place] { staging->run(in_place, job); };
    } else if (d.reg && (o_.registered || !reads_peers)) {
      run_registered(c, d, job, out);
    } else {
      c.run = [job, &out, &input, in_place] {
        job(in_place ? out.data() : input.data(), out.data());
      };
    }
    c.input = &input;
    c.output = &out;
    return c;
  }

  std::vector<Row> library_rows(const std::vector<std::string>& algorithms, OneShape& d) {
    std::vector<Row> rows;
    d.lib_results.reserve(op_.library.size());  // cases keep references to the results
    for (const LibraryCall& lib : op_.library) {
      if (!lib.pairs_with.empty() && !picked(algorithms, lib.pairs_with)) continue;
      if (lib.impl == Impl::nccl &&
          (!runner_.nccl() || (lib.usable && !lib.usable(d.P, d.N, d.in_place))))
        continue;
      Buffer& out =
          d.lib_results.emplace_back(lib.pairs_with, Buffer(d.red.dtype, d.L.out, o_.device))
              .second;
      const LibraryName named = library_name(
          lib.uneven_name.empty() || d.N % d.P == 0 ? lib.name : lib.uneven_name, lib.impl);
      Case c = make_case(d, named.row, lib.impl, lib.run, out);
      expect_counted(c, named.forced, d);
      c.check = [&] {
        Mismatch m = compare(out, *d.exact, d.checked);
        return Verdict{m.wrong, std::nullopt, m.first};
      };
      if (!lib.pairs_with.empty()) c.time_scale = op_.algorithm(lib.pairs_with).time_scale;
      rows.push_back(runner_.measure(d.shape, c));
    }
    return rows;
  }

  // On the direct transport with private buffers the timed call also
  // copies: the input in, and the result out for an algorithm that sends
  // from registered memory (run_registered). Each copy is priced as a read
  // from a peer: an exchange without its fixed cost.
  void with_private_copies(std::vector<Predicted>& predicted, const OneShape& d) const {
    if (!d.reg || o_.registered) return;
    const double bytes = double(d.N * d.red.esize());
    const double copy_us = std::max(0.0, cost_.exchange.at(bytes) - cost_.exchange.at(0));
    for (size_t i = 0; i < predicted.size(); ++i)
      predicted[i].us += (op_.algorithms[i].reads_peers ? 1 : 2) * copy_us;
  }

  // Each algorithm asked for, then auto: a row of its own, named auto.
  std::vector<Row> hand_rows(const std::vector<std::string>& algorithms, OneShape& d) {
    // Each algorithm's model and predicted time, once: its row and auto's choice share them.
    const size_t n = op_.algorithms.size();
    std::vector<Predicted> predicted(n);
    std::vector<std::pair<std::string, size_t>> hand;
    for (size_t i = 0; i < n; ++i)
      if (picked(algorithms, op_.algorithms[i].name)) hand.emplace_back(op_.algorithms[i].name, i);
    if (picked(algorithms, kAuto)) {
      predicted = predict(op_, cost_, d.job);
      with_private_copies(predicted, d);
      hand.emplace_back(kAuto, fastest(op_, predicted, runner_.direct()));
    } else {
      for (const auto& [name, i] : hand) predicted[i] = predict(op_.algorithms[i], cost_, d.job);
      with_private_copies(predicted, d);
    }

    std::vector<Row> rows;
    // --registered: the result is the registered buffer itself.
    Buffer out = d.reg && o_.registered ? Buffer::view(d.red.dtype, d.L.out, o_.device, d.reg->out)
                                        : Buffer(d.red.dtype, d.L.out, o_.device);
    for (const auto& [row_name, i] : hand) {
      const CollectiveAlgorithm& algo = op_.algorithms[i];
      const Buffer* lib = &d.lib_results.front().second;  // the one it pairs with, else the first
      for (const auto& [pairs_with, result] : d.lib_results)
        if (pairs_with == algo.name) lib = &result;
      Case c = make_case(d, row_name, Impl::hand, algo.run, out, algo.reads_peers);
      c.check = [&, lib] {
        Mismatch m = compare(out, *d.exact, d.checked);
        return Verdict{m.wrong, compare(out, *lib, d.checked).wrong, m.first};
      };
      c.model = runner_.direct() ? predicted[i].model.pulled() : predicted[i].model;
      c.t_model_us = predicted[i].us;
      if (row_name == kAuto) c.chose = algo.name;
      c.time_scale = algo.time_scale;
      if (algo.taught_T) {
        c.taught_formula = algo.taught_formula;
        c.taught_T_B = algo.taught_T(d.P, double(d.N * d.red.esize()));
      }
      Row row = runner_.measure(d.shape, c);
      if (row.note.empty() && algo.remark) row.note = algo.remark(d.P);
      if (d.reg && o_.registered) row.buffers = Buffers::registered;
      rows.push_back(std::move(row));
    }
    return rows;
  }

  Runner& runner_;
  Comm& comm_;
  const Options& o_;
  const Operation& op_;
  const CostModel& cost_;
};

}  // namespace

Predicted predict(const CollectiveAlgorithm& algo, const CostModel& cost, const JobShape& shape) {
  Traffic model = algo.model(shape);
  const double us = cost.predict_us(model);
  return {std::move(model), us};
}

std::vector<Predicted> predict(const Operation& op, const CostModel& cost, const JobShape& shape) {
  std::vector<Predicted> all;
  for (const CollectiveAlgorithm& a : op.algorithms) all.push_back(predict(a, cost, shape));
  return all;
}

size_t fastest(const Operation& op, const std::vector<Predicted>& predicted, bool maps_peers) {
  size_t best = 0;
  double best_us = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < predicted.size(); ++i)
    if ((maps_peers || !op.algorithms[i].reads_peers) && predicted[i].us < best_us)
      best = i, best_us = predicted[i].us;
  return best;
}

namespace {

// --mpi-rules: the same file on every rank (a node-local copy that differs
// would have ranks pick different algorithms and wait for each other), or why not.
std::string rules_differ(MPI_Comm comm, const std::string& path) {
  if (path.empty() || !built_with_open_mpi()) return "";
  std::ifstream in(path, std::ios::binary);
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  const uint64_t mine = std::hash<std::string>{}(text);
  uint64_t least = 0, most = 0;
  MPI_Allreduce(&mine, &least, 1, MPI_UINT64_T, MPI_MIN, comm);
  MPI_Allreduce(&mine, &most, 1, MPI_UINT64_T, MPI_MAX, comm);
  return least == most ? "" : "--mpi-rules " + path + ": not the same file on every node";
}

// Heading lines: library flags another MPI cannot take; library rows uncounted.
void say_what_the_library_rows_lack(const Options& o, int P, bool counted) {
  if (!built_with_open_mpi() && !(o.mpi_algorithm + o.mpi_rules).empty())
    fmt::print("# --mpi-algorithm, --mpi-rules: skipped, {} is not Open MPI\n", mpi_version());
  if (P > 1 && built_with_open_mpi() && !counted)
    fmt::print(
        "# library rows not counted: Open MPI's monitoring reported no messages "
        "(pml_monitoring_enable 0, or a build without it)\n");
}

// Every shape asked for, each a row per implementation; the time model's
// costs measured once, first.
int measure_all(const Operation& op, const std::vector<std::string>& algorithms, const Options& o,
                Comm& comm, const Nodes& nodes) {
  agree_or_exit(comm.mpi(), rules_differ(comm.mpi(), o.mpi_rules));
  Runner runner(comm, o, nodes);
  RowWriter rows(comm.mpi(), o);
  rows.heading(runner.info(), runner.heading_lines(op.has_data));
  CostModel cost;
  if (op.has_data) {
    // The reduction's cost only where the operation reduces; measured for
    // the first dtype and op asked for.
    const Reduction first{o.dtypes.front(), o.ops.front()};
    cost = probe_cost(comm, op.reduces ? &first : nullptr);
    if (comm.rank() == 0) fmt::print("# time model: {}\n", describe(cost));
  }
  if (comm.rank() == 0) say_what_the_library_rows_lack(o, comm.size(), runner.library_counted());
  ShapeRun shapes(runner, comm, o, op, cost);
  if (!op.has_data) {
    rows.emit(shapes.measure_without_data(algorithms));
    return runner.exit_code();
  }
  const std::vector<Op> ops = op.reduces ? o.ops : std::vector<Op>{Op::sum};
  for (DType dtype : o.dtypes)
    for (Op op_kind : ops)
      for (size_t count : o.counts_for(dtype))
        rows.emit(shapes.measure(algorithms, dtype, op_kind, count));
  return runner.exit_code();
}

}  // namespace

int collective_main(int argc, char** argv, const std::string& operation,
                    const std::string& only_algorithm) {
  const std::unique_ptr<Operation> op = make_operation(operation);
  std::vector<std::string> known = names(op->algorithms);
  if (op->offers_auto) known.push_back(kAuto);
  std::string program = op->name, what = "hand-written algorithms";
  if (!only_algorithm.empty()) {
    op->algorithm(only_algorithm);  // it must exist
    known = {only_algorithm};
    program += "_" + only_algorithm;
    what = "the hand-written " + only_algorithm;
  }
  const std::string description = program + ": " + op->summary + "; " + what +
                                  " beside the library, checked, timed and counted";
  std::vector<std::string> algorithms;
  prepare_library(argc, argv, mpi_calls(*op));  // before MPI_Init, which reads it
  return run_program<Options>(
      argc, argv,
      [&](int n, char** args, int P, int rank) {
        Parsed parsed = parse_options(n, args, program, description);
        Parse<Options> p;
        p.help = parsed.help;
        if (!parsed.run) return p;
        if (parsed.opts.mpi_algorithm == "list") {  // for scripts: one name a line
          p.help = mpi_algorithm_list(*op);
          return p;
        }
        Options& o = p.settings.emplace(std::move(parsed.opts));
        // A lecture's example, not a sweep: P elements, one chunk per rank.
        if (o.show_default_count) o.counts = {size_t(P)};
        // A program named for an algorithm that reads peers' memory runs where it can.
        if (!only_algorithm.empty() && op->algorithm(only_algorithm).reads_peers && !o.transport)
          o.transport = TransportKind::direct;
        algorithms = runnable(*op, o, pick_algorithms(o, known));
        refuse_bad_input(*op, o, P);
        probe_scale_from_env();  // a malformed test setting: refused here, on every rank
        p.footprint = footprint(*op, o, P, rank);
        return p;
      },
      [&](const Options& o, Comm& comm, const Nodes& nodes) {
        return measure_all(*op, algorithms, o, comm, nodes);
      });
}

}  // namespace commlab
