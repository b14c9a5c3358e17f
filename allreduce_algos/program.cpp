// One all-reduce program: a hand-written algorithm beside MPI_Allreduce on the
// same data, for every dtype x op x size asked for.
#include "program.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "allreduce.hpp"
#include "core/bench.hpp"
#include "core/errors.hpp"
#include "core/pattern.hpp"

namespace commlab {

namespace {

// MPI 3 counts are int: reduce in pieces, which is the same thing element-wise.
void mpi_allreduce(const void* in, void* out, size_t count, const Reduction& red, MPI_Comm comm) {
  const size_t piece = size_t{1} << 30, esize = red.esize();
  size_t done = 0;
  do {
    int n = static_cast<int>(std::min(piece, count - done));
    const void* src =
        in == MPI_IN_PLACE ? MPI_IN_PLACE : static_cast<const char*>(in) + done * esize;
    MPI_Allreduce(src, static_cast<char*>(out) + done * esize, n, red.mpi_type(), red.mpi_op(),
                  comm);
    done += n;
  } while (done < count);
}

// The hand-written algorithm and MPI_Allreduce on the same data, one shape.
std::vector<Row> measure_shape(Runner& runner, Comm& comm, const Options& o,
                               const AllreduceAlgorithm& algo, DType dtype, Op op, size_t count) {
  const int P = comm.size(), me = comm.rank();
  const Pattern pat{o.show ? Fill::rank : Fill::pattern, dtype, op, P};
  const Reduction red{dtype, op};
  const Device where = o.device;
  Buffer input(dtype, count, where), output(dtype, count, where), lib(dtype, count, where);
  input.fill([&](size_t i) { return pat.value(me, i); });
  // The exact answer, computed once (each element folds over every rank) and
  // only when results are checked.
  std::optional<Buffer> exact;
  if (o.check) {
    exact.emplace(dtype, count, where);
    exact->fill([&](size_t i) { return pat.reduced(i); });
  }
  auto reset = [&](Buffer& b) {
    return [&] {
      if (o.in_place) b.copy_from(input);
    };
  };

  // A library's all-reduce into `out`, checked against the exact answer.
  auto library = [&](const char* name, const char* impl, Buffer& out, std::function<void()> run) {
    Case c;
    c.algorithm = name;
    c.impl = impl;
    c.prepare = reset(out);
    c.run = std::move(run);
    c.check = [&] {
      Mismatch m = compare(out, *exact);
      return Verdict{m.wrong, std::nullopt, m.first};
    };
    return c;
  };
  LibraryStaging staging(comm, input, lib);
  Case mpi = library("MPI_Allreduce", "mpi", lib, [&] {
    staging.run(o.in_place, [&](const void* in, void* out) {
      mpi_allreduce(o.in_place ? MPI_IN_PLACE : in, out, count, red, comm.mpi());
    });
  });

  Case hand;
  hand.algorithm = algo.name;
  hand.impl = "hand";
  hand.prepare = reset(output);
  hand.run = [&] {
    if (!o.in_place) output.copy_from(input);
    algo.run({comm, output.data(), count, red, o.root, comm.memory()});
  };
  hand.check = [&] {
    Mismatch m = compare(output, *exact);
    return Verdict{m.wrong, compare(output, lib).wrong, m.first};
  };
  hand.model = algo.model(P, count, red.esize());
  hand.taught_formula = algo.taught_formula;
  hand.taught_T_B = algo.taught_T(P, double(count * red.esize()));
  hand.input = &input;
  hand.output = &output;

  const Shape shape{dtype, op, count, P > 1 ? 2.0 * (P - 1) / P : 0.0};
  Row lib_row = runner.measure(shape, mpi);  // first: the hand result is compared with it
  Row hand_row = runner.measure(shape, hand);
  if (!runner.nccl()) return {hand_row, lib_row};

  Buffer nccl_out(dtype, count, where);
  Case nccl = library("ncclAllReduce", "nccl", nccl_out, [&] {
    runner.nccl()->allreduce(o.in_place ? nccl_out.data() : input.data(), nccl_out.data(), count,
                             red);
  });
  return {hand_row, lib_row, runner.measure(shape, nccl)};
}

}  // namespace

int allreduce_main(int argc, char** argv, const std::string& algorithm) {
  const AllreduceAlgorithm& algo = find_allreduce(algorithm);
  const std::string program = "allreduce_" + algo.name;
  return program_main(
      argc, argv, program,
      program + ": hand-written " + algo.name +
          " all-reduce beside MPI_Allreduce, checked, timed and counted",
      // Per rank: the input, two results, the exact answer and the algorithm's scratch.
      5, [&](const Options& o, int) { pick_algorithms(o, {algo.name}); },  // -a: only its own
      [&](Runner& runner, Comm& comm, const Options& o) {
        for (DType dtype : o.dtypes)
          for (Op op : o.ops)
            for (size_t count : o.counts_for(dtype))
              runner.emit(measure_shape(runner, comm, o, algo, dtype, op, count));
      });
}

}  // namespace commlab
