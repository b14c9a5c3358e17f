// reduce(op, root): the root ends with the element-wise op over every rank's
// N elements; the other ranks' buffers stay as they were. Against MPI_Reduce
// (MPI_IN_PLACE at the root with --in-place).
#include "collectives/algorithms.hpp"
#include "core/device/nccl.hpp"
#include "operation.hpp"

namespace commlab {

// Each algorithm's entry, defined in its own file (collectives/reduce.def).
#define COMMLAB_ALGORITHM(op, name) CollectiveAlgorithm op##_##name##_algorithm();
#include "collectives/reduce.def"
#undef COMMLAB_ALGORITHM

namespace {

void mpi_reduce(const CollectiveJob& j) {
  const bool root_in_place = j.in_place() && j.comm.rank() == j.root;
  MPI_Reduce(root_in_place ? MPI_IN_PLACE : j.in, j.out, static_cast<int>(j.count),
             j.red.mpi_type(), j.red.mpi_op(), j.root, j.comm.mpi());
}

void mpi_ireduce(const CollectiveJob& j, Requests& r) {
  const bool root_in_place = j.in_place() && j.comm.rank() == j.root;
  MPI_Ireduce(root_in_place ? MPI_IN_PLACE : j.in, j.out, static_cast<int>(j.count),
              j.red.mpi_type(), j.red.mpi_op(), j.root, j.comm.mpi(), r.next());
}

void nccl_reduce(const CollectiveJob& j) { j.nccl->reduce(j.in, j.out, j.count, j.red, j.root); }

class Reduce : public Operation {
 public:
  Reduce() {
    name = "reduce";
    summary = "reduce: the root gets the element-wise op over every rank's buffer";
    reduces = true;
    algorithms = {
#define COMMLAB_ALGORITHM(op, name) op##_##name##_algorithm(),
#include "collectives/reduce.def"
#undef COMMLAB_ALGORITHM
    };
    library = {{"MPI_Reduce", "", mpi_reduce}, {"ncclReduce", "", nccl_reduce, "", Impl::nccl}};
    library[0].start = mpi_ireduce, library[0].nb_name = "MPI_Ireduce";
  }
  double busbw_factor(int) const override { return 1; }
  Layout layout(int, int r, int root, size_t N, bool in_place) const override {
    if (in_place) return {0, N};
    return {N, r == root ? N : 0};
  }
  std::optional<size_t> starts_as(int, int, int, size_t, size_t i) const override { return i; }
  Source source(int, int r, int root, size_t, bool, size_t i) const override {
    return {r == root ? kAllRanks : r, i};  // in place, the others' buffers are unchanged
  }
};

}  // namespace

std::unique_ptr<Operation> make_reduce() { return std::make_unique<Reduce>(); }

}  // namespace commlab
