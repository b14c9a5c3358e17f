// reduce-scatter(op): rank r ends with part r of the element-wise op over
// every rank's N elements. Against MPI_Reduce_scatter_block, or
// MPI_Reduce_scatter when P does not divide N (MPI_IN_PLACE with --in-place:
// the input is the whole buffer and the result lands at its front).
#include "collectives/algorithms.hpp"
#include "core/device/nccl.hpp"
#include "library_parts.hpp"
#include "operation.hpp"

namespace commlab {

// Each algorithm's entry, defined in its own file (collectives/reduce_scatter.def).
#define COMMLAB_ALGORITHM(op, name) CollectiveAlgorithm op##_##name##_algorithm();
#include "collectives/reduce_scatter.def"
#undef COMMLAB_ALGORITHM

namespace {

void mpi_reduce_scatter(const CollectiveJob& j) {
  const MpiParts p(j.parts());
  const void* in = j.in_place() ? MPI_IN_PLACE : j.in;
  if (p.even)
    MPI_Reduce_scatter_block(in, j.out, p.counts[0], j.red.mpi_type(), j.red.mpi_op(),
                             j.comm.mpi());
  else
    MPI_Reduce_scatter(in, j.out, p.counts.data(), j.red.mpi_type(), j.red.mpi_op(), j.comm.mpi());
}

void mpi_ireduce_scatter(const CollectiveJob& j, Requests& r) {
  const MpiParts& p = r.keep(MpiParts(j.parts()));
  const void* in = j.in_place() ? MPI_IN_PLACE : j.in;
  if (p.even)
    MPI_Ireduce_scatter_block(in, j.out, p.counts[0], j.red.mpi_type(), j.red.mpi_op(),
                              j.comm.mpi(), r.next());
  else
    MPI_Ireduce_scatter(in, j.out, p.counts.data(), j.red.mpi_type(), j.red.mpi_op(), j.comm.mpi(),
                        r.next());
}

// Equal parts, out of place: NCCL's in-place form keeps the result at this
// rank's offset, not at the front as MPI's does.
void nccl_reduce_scatter(const CollectiveJob& j) {
  j.nccl->reduce_scatter(j.in, j.out, j.count / j.comm.size(), j.red);
}

class ReduceScatter : public Operation {
 public:
  ReduceScatter() {
    name = "reduce_scatter";
    summary = "reduce-scatter: rank r gets part r of the element-wise op over every rank's buffer";
    reduces = true;
    algorithms = {
#define COMMLAB_ALGORITHM(op, name) op##_##name##_algorithm(),
#include "collectives/reduce_scatter.def"
#undef COMMLAB_ALGORITHM
    };
    library = {{"MPI_Reduce_scatter_block", "MPI_Reduce_scatter", mpi_reduce_scatter},
               {"ncclReduceScatter", "", nccl_reduce_scatter, "", Impl::nccl,
                [](int P, size_t N, bool in_place) { return N % P == 0 && !in_place; }}};
    library[0].start = mpi_ireduce_scatter;
    library[0].nb_name = "MPI_Ireduce_scatter_block",
    library[0].nb_uneven_name = "MPI_Ireduce_scatter";
  }
  double busbw_factor(int P) const override { return double(P - 1) / P; }
  Layout layout(int P, int r, int, size_t N, bool in_place) const override {
    const size_t part = Partition{N, P}.size(r);
    if (in_place) return {0, N, part};  // only the front holds a result
    return {N, part};
  }
  // docs/formulas.md's known vector: [1 10 100 1000] x r gives rank r 6 x 10^r at P = 4.
  int64_t input(const Pattern& pat, size_t N, int r, size_t i) const override {
    if (pat.fill != Fill::rank) return pat.value(r, i);
    int64_t v = r;
    for (int k = Partition{N, pat.P}.part_of(i) % 7; k > 0; --k) v *= 10;
    return v;
  }
  std::optional<size_t> starts_as(int, int, int, size_t, size_t i) const override { return i; }
  Source source(int P, int r, int, size_t N, bool, size_t i) const override {
    return {kAllRanks, Partition{N, P}.offset(r) + i};
  }
};

}  // namespace

std::unique_ptr<Operation> make_reduce_scatter() { return std::make_unique<ReduceScatter>(); }

}  // namespace commlab
