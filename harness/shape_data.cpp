#include "shape_data.hpp"

#include <algorithm>

#include "allreduce_algos/segmented_ring.hpp"

namespace commlab {

JobShape ProgramContext::job_shape(size_t N, size_t esize) const {
  const int P = comm.size();
  const size_t segment_B =
      o.segment_B ? *o.segment_B : best_segment_B(cost, Partition{N, P}.largest() * esize, esize);
  return {P, N, esize, o.root, runner.nodes(), segment_B};
}

bool ProgramContext::picked(const std::vector<std::string>& algorithms,
                            const std::string& name) const {
  return std::find(algorithms.begin(), algorithms.end(), name) != algorithms.end();
}

namespace {
bool is_in_place(const Operation& op, const Options& o) {
  return op.in_place_form == InPlace::always ||
         (op.in_place_form == InPlace::optional && o.in_place);
}
}  // namespace

ShapeData::ShapeData(const ProgramContext& c, DType dtype, Op op_kind, size_t count)
    : ctx(c),
      P(c.comm.size()),
      me(c.comm.rank()),
      N(count),
      in_place(is_in_place(c.op, c.o)),
      truth(c.op, {c.o.show ? Fill::rank : Fill::pattern, dtype, op_kind, P}, c.o.root, N,
            in_place),
      L(truth.layout(me)),
      checked(truth.checked(me)),
      red{dtype, op_kind},
      shape{dtype, op_kind, N, c.op.busbw_factor(P), c.op.reduces, true},
      job(c.job_shape(N, red.esize())),
      // Out of place: this rank's input. In place: what its one buffer holds before each run.
      input(dtype, in_place ? L.out : L.in, c.o.device) {
  input.fill([&](size_t i) { return truth.before(me, i); });
  if (c.o.check) {  // the exact answer, once per shape and only when results are checked
    exact.emplace(dtype, checked, c.o.device);
    exact->fill([&](size_t i) { return truth.after(me, i); });
  }
}

void ShapeData::register_buffers() {
  direct.emplace(ctx.runner, region_layout(truth, P, N, red.esize()), ctx.o.registered);
}

Case ShapeData::make_case(const std::string& name, Impl impl, void (*run)(const CollectiveJob&),
                          Buffer& out, bool reads_peers) {
  Case c;
  c.algorithm = name;
  c.impl = impl;
  out.fill([](size_t) { return kJunk; });  // a result never written shows as wrong
  const bool keep_in_place = in_place;
  Buffer& in = input;
  c.prepare = [&out, &in, keep_in_place] {
    if (keep_in_place) out.copy_from(in);
  };
  Comm& comm = ctx.comm;
  auto call = [this, run](const void* from, void* to) { run(job_on(from, to)); };
  if (impl == Impl::mpi) {  // on GPU buffers, MPI may need host copies
    LibraryStaging* staging =
        stagings_.emplace_back(std::make_unique<LibraryStaging>(ctx.runner.transport(), in, out))
            .get();
    c.run = [staging, call, keep_in_place] { staging->run(keep_in_place, call); };
  } else if (direct && direct->runs_registered(reads_peers)) {
    direct->wire(c, call, in, out, in_place, comm.memory());
  } else {
    c.run = [call, &out, &in, keep_in_place] {
      call(keep_in_place ? out.data() : in.data(), out.data());
    };
  }
  c.input = &in;
  c.output = &out;
  return c;
}

CollectiveJob ShapeData::job_on(const void* from, void* to) const {
  Comm& comm = ctx.comm;
  return {comm,
          from,
          to,
          N,
          red,
          ctx.o.root,
          comm.memory(),
          job.segment_B,
          &ctx.runner.nodes(),
          ctx.runner.nccl()};
}

void ShapeData::start_nonblocking(Case& c, void (*start)(const CollectiveJob&, Requests&),
                                  Buffer& out) {
  const void* from = in_place ? out.data() : input.data();
  c.nb = library_nonblocking(
      [this, start, from, &out](Requests& r) { start(job_on(from, out.data()), r); });
}

}  // namespace commlab
