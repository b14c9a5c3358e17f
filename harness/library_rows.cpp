#include "library_rows.hpp"

#include "tuned.hpp"

namespace commlab {

LibraryName library_name(const Options& o, const std::string& call, Impl impl) {
  const MpiLibrary* library = built_library();
  const TunedCall* tuned = library ? tuned_call(call, *library) : nullptr;
  if (impl != Impl::mpi || !tuned) return {call, ""};
  if (!o.mpi_rules.empty()) return {call + ":rules", ""};
  if (o.mpi_algorithm.empty() || !tuned_number(*tuned, o.mpi_algorithm)) return {call, ""};
  return {call + ":" + o.mpi_algorithm, o.mpi_algorithm};
}

void tell_apart(const ProgramContext& ctx, Case& c, const std::string& forced,
                const std::vector<Traffic>& models) {
  if (c.impl != Impl::mpi || !ctx.runner.library_counted()) return;
  c.forced = forced;
  for (size_t i = 0; i < models.size(); ++i) {
    const CollectiveAlgorithm& algo = ctx.op.algorithms[i];
    // A library passes messages: what reads peers' memory (two_shot moves
    // the ring's bytes in as many reads) is not what it ran.
    if (algo.reads_peers) continue;
    // Nor is it named for a schedule our time model shaped (the segment):
    // which library rows it matched would move with the machine's speed.
    if (algo.shaped_by_timing && algo.name != forced) continue;
    // Nor for a schedule no library we build against has (Swing): its bytes
    // per rank are those of the classic one it reorders.
    if (algo.not_in_libraries) continue;
    c.known.emplace_back(algo.name, models[i]);
    if (algo.name == forced) c.model = models[i];
  }
}

namespace {

// A library call counted on d's shape: told apart by every algorithm's
// model, and held to the forced one's and to its taught formula.
void expect_counted(Case& c, const std::string& forced, const ShapeData& d) {
  const ProgramContext& ctx = d.ctx;
  if (c.impl != Impl::mpi || !ctx.runner.library_counted()) return;
  // Open MPI's segmented ring, forced without a segment size, sends one
  // segment per chunk: ours is held to that, or to --segment.
  JobShape job = d.job;
  job.segment_B = ctx.o.segment_B.value_or(0);
  std::vector<Traffic> models;
  for (const CollectiveAlgorithm& algo : ctx.op.algorithms) models.push_back(algo.model(job));
  tell_apart(ctx, c, forced, models);
  if (!c.model) return;
  const CollectiveAlgorithm& algo = ctx.op.algorithm(forced);
  if (!algo.taught_T) return;
  c.taught_formula = algo.taught_formula;
  c.taught_T_B = algo.taught_T(d.P, double(d.N * d.red.esize()));
}

// Whether this call runs here: one paired with an algorithm only beside it;
// NCCL's only with NCCL, and where it has a form for the shape.
bool runs(const LibraryCall& lib, const std::vector<std::string>& algorithms, const ShapeData& d) {
  if (!lib.pairs_with.empty() && !d.ctx.picked(algorithms, lib.pairs_with)) return false;
  if (lib.impl != Impl::nccl) return true;
  return d.ctx.runner.nccl() && (!lib.usable || lib.usable(d.P, d.N, d.in_place));
}

}  // namespace

std::vector<Row> library_rows(const std::vector<std::string>& algorithms, ShapeData& d) {
  const ProgramContext& ctx = d.ctx;
  std::vector<Row> rows;
  for (const LibraryCall& lib : ctx.op.library) {
    if (!runs(lib, algorithms, d)) continue;
    if (ctx.o.overlap && !lib.start) continue;  // no non-blocking form (sendrecv's, NCCL's)
    Buffer& out =
        d.lib_results.emplace_back(lib.pairs_with, Buffer(d.red.dtype, d.L.out, ctx.o.device))
            .second;
    const bool even = lib.uneven_name.empty() || d.N % d.P == 0;
    const std::string call = !ctx.o.overlap ? (even ? lib.name : lib.uneven_name)
                             : even         ? lib.nb_name
                                            : lib.nb_uneven_name;
    const LibraryName named = library_name(ctx.o, call, lib.impl);
    Case c = d.make_case(named.row, lib.impl, lib.run, out);
    if (ctx.o.overlap) d.start_nonblocking(c, lib.start, out);
    expect_counted(c, named.forced, d);
    c.check = [&out, &d](const std::function<void()>&) {
      Mismatch m = compare(out, *d.exact, d.checked);
      return Verdict{m.wrong, std::nullopt, m.first};
    };
    if (!lib.pairs_with.empty()) c.time_scale = ctx.op.algorithm(lib.pairs_with).time_scale;
    rows.push_back(ctx.runner.measure(d.shape, c));
  }
  return rows;
}

}  // namespace commlab
