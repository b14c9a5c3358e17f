// One collective program: the operation's library call and its hand-written
// algorithms on the same data, for every dtype x op x size asked for.
#include "collective_program.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <fstream>
#include <iterator>

#include "collective_flags.hpp"
#include "core/comm/errors.hpp"
#include "core/comm/time_model.hpp"
#include "devices.hpp"
#include "hand_rows.hpp"
#include "host.hpp"
#include "library_rows.hpp"
#include "operations/predicted.hpp"
#include "program.hpp"
#include "shape_data.hpp"
#include "table.hpp"
#include "tuned.hpp"
#include "version.hpp"

namespace commlab {

namespace {

std::vector<std::string> names(const std::vector<CollectiveAlgorithm>& algorithms) {
  std::vector<std::string> v;
  for (const auto& a : algorithms) v.push_back(a.name);
  return v;
}

// The library call(s), then each hand-written algorithm asked for, on one shape.
std::vector<Row> rows_of_shape(const ProgramContext& ctx,
                               const std::vector<std::string>& algorithms, DType dtype, Op op_kind,
                               size_t N) {
  ShapeData d(ctx, dtype, op_kind, N);
  std::vector<Row> rows = library_rows(algorithms, d);
  if (ctx.runner.direct()) d.register_buffers();
  for (Row& row : hand_rows(algorithms, d)) rows.push_back(std::move(row));
  ctx.runner.time_kept(rows);  // --interleave: all of them together, while d holds their buffers
  return rows;
}

// A barrier's case: no buffers; checked by the operation itself.
Case case_without_data(const ProgramContext& ctx, const std::string& name, Impl impl,
                       void (*run)(const CollectiveJob&),
                       void (*start)(const CollectiveJob&, Requests&) = nullptr) {
  Case c;
  c.algorithm = name;
  c.impl = impl;
  c.prepare = [] {};
  Comm& comm = ctx.comm;
  Runner& runner = ctx.runner;
  auto job = [&comm, &runner, root = ctx.o.root] {
    return CollectiveJob{
        comm, nullptr,         nullptr,      0, {DType::float32, Op::sum}, root, comm.memory(),
        0,    &runner.nodes(), runner.nccl()};
  };
  c.run = [job, run] { run(job()); };
  c.check = [&op = ctx.op, &comm](const std::function<void()>& call) {
    return op.check(comm, call);
  };
  // --overlap: the library's non-blocking call (MPI_Ibarrier).
  if (start && ctx.o.overlap) {
    c.nb = library_nonblocking([job, start](Requests& r) { start(job(), r); });
  }
  return c;
}

// Barrier: the library's rows, told apart, then each hand-written algorithm asked for.
std::vector<Row> rows_without_data(const ProgramContext& ctx,
                                   const std::vector<std::string>& algorithms) {
  const int P = ctx.comm.size();
  const Shape shape{DType::float32, Op::sum, 0, 0, false, false};
  std::vector<Row> rows;
  std::vector<Traffic> models;
  for (const CollectiveAlgorithm& algo : ctx.op.algorithms)
    models.push_back(algo.model(P, 0, 0, ctx.o.root));
  for (const LibraryCall& lib : ctx.op.library) {
    if (ctx.o.overlap && !lib.start) continue;
    const LibraryName named = library_name(ctx.o, ctx.o.overlap ? lib.nb_name : lib.name, lib.impl);
    Case c = case_without_data(ctx, named.row, lib.impl, lib.run, lib.start);
    tell_apart(ctx, c, named.forced, models);
    rows.push_back(ctx.runner.measure(shape, c));
  }
  for (const CollectiveAlgorithm& algo : ctx.op.algorithms) {
    if (!ctx.picked(algorithms, algo.name)) continue;
    Case c = case_without_data(ctx, algo.name, Impl::hand, algo.run);
    if (ctx.o.overlap) c.algorithm += kNonBlocking, c.replay = true;
    c.model = algo.model(P, 0, 0, ctx.o.root);
    if (ctx.runner.direct()) c.model = c.model->pulled();
    rows.push_back(ctx.runner.measure(shape, c));
  }
  ctx.runner.time_kept(rows);
  return rows;
}

// --mpi-rules: the same file on every rank (a node-local copy that differs
// would have ranks pick different algorithms and wait for each other), or why not.
std::string rules_differ(MPI_Comm comm, const std::string& path) {
  if (path.empty() || !built_library()) return "";
  std::ifstream in(path, std::ios::binary);
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  const uint64_t mine = std::hash<std::string>{}(text);
  uint64_t least = 0, most = 0;
  MPI_Allreduce(&mine, &least, 1, MPI_UINT64_T, MPI_MIN, comm);
  MPI_Allreduce(&mine, &most, 1, MPI_UINT64_T, MPI_MAX, comm);
  return least == most ? "" : "--mpi-rules " + path + ": not the same file on every node";
}

// Heading lines: library flags another MPI cannot take; library rows uncounted.
void say_what_the_library_rows_lack(const Options& o, int P, bool counted, const std::string& pml) {
  if (!built_library() && !(o.mpi_algorithm + o.mpi_rules).empty())
    fmt::print("# --mpi-algorithm, --mpi-rules: skipped, {} is neither Open MPI nor MPICH\n",
               mpi_version());
  if (P > 1 && built_library() && *built_library() == MpiLibrary::mpich)
    fmt::print("# library rows not counted: MPICH has no hook that reports its messages\n");
  if (!pml.empty()) fmt::print("# pml: {} (OMPI_MCA_pml: mpirun --mca pml)\n", pml);
  if (P > 1 && built_with_open_mpi() && !counted)
    fmt::print(
        "# library rows not counted: Open MPI's monitoring reported no messages "
        "(pml_monitoring_enable 0, or a build without it)\n");
}

// Every size asked for, in bytes, each dtype's counts (one node's memory is
// probed at each: time_model.hpp, probe_copies).
std::vector<size_t> sizes_asked(const Options& o) {
  std::vector<size_t> sizes;
  for (DType dtype : o.dtypes)
    for (size_t count : o.counts_for(dtype)) sizes.push_back(count * element_size(dtype));
  return sizes;
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
    cost = probe_cost(comm, op.reduces ? &first : nullptr, runner.shares_gpu());
    if (op.reduces && o.device == Device::host) probe_copies(comm, sizes_asked(o), cost);
    if (comm.rank() == 0) fmt::print("# time model: {}\n", describe(cost));
  }
  if (comm.rank() == 0)
    say_what_the_library_rows_lack(o, comm.size(), runner.library_counted(), runner.info().pml);
  const ProgramContext ctx{runner, comm, o, op, cost};
  if (!op.has_data) {
    rows.emit(rows_without_data(ctx, algorithms));
    return runner.exit_code();
  }
  const std::vector<Op> ops = op.reduces ? o.ops : std::vector<Op>{Op::sum};
  for (DType dtype : o.dtypes)
    for (Op op_kind : ops)
      for (size_t count : o.counts_for(dtype))
        rows.emit(rows_of_shape(ctx, algorithms, dtype, op_kind, count));
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
        Parsed parsed =
            parse_options(n, args, program, description, version_text(program, mpi_version()));
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
        probe_scale_from_env();  // malformed settings of the environment: refused here
        signals_from_env();
        p.footprint = footprint(*op, o, P, rank);
        return p;
      },
      [&](const Options& o, Comm& comm, const Nodes& nodes) {
        return measure_all(*op, algorithms, o, comm, nodes);
      });
}

}  // namespace commlab
