// broadcast(root): every rank ends with the root's buffer of N elements. One
// buffer per rank, so always "in place". Against MPI_Bcast.
#include "collectives/algorithms.hpp"
#include "core/device/nccl.hpp"
#include "operation.hpp"

namespace commlab {

// Each algorithm's entry, defined in its own file (collectives/bcast.def).
#define COMMLAB_ALGORITHM(op, name) CollectiveAlgorithm op##_##name##_algorithm();
#include "collectives/bcast.def"
#undef COMMLAB_ALGORITHM

namespace {

void mpi_bcast(const CollectiveJob& j) {
  MPI_Bcast(j.out, static_cast<int>(j.count), j.red.mpi_type(), j.root, j.comm.mpi());
}

void mpi_ibcast(const CollectiveJob& j, Requests& r) {
  MPI_Ibcast(j.out, static_cast<int>(j.count), j.red.mpi_type(), j.root, j.comm.mpi(), r.next());
}

void nccl_bcast(const CollectiveJob& j) {
  j.nccl->broadcast(j.out, j.out, j.count, j.red.dtype, j.root);
}

class Bcast : public Operation {
 public:
  Bcast() {
    name = "bcast";
    summary = "broadcast: every rank gets the root's buffer";
    in_place_form = InPlace::always;
    algorithms = {
#define COMMLAB_ALGORITHM(op, name) op##_##name##_algorithm(),
#include "collectives/bcast.def"
#undef COMMLAB_ALGORITHM
    };
    library = {{"MPI_Bcast", "", mpi_bcast}, {"ncclBroadcast", "", nccl_bcast, "", Impl::nccl}};
    library[0].start = mpi_ibcast, library[0].nb_name = "MPI_Ibcast";
  }
  double busbw_factor(int) const override { return 1; }
  Layout layout(int, int, int, size_t N, bool) const override { return {0, N}; }
  std::optional<size_t> starts_as(int, int r, int root, size_t, size_t i) const override {
    if (r == root) return i;
    return {};
  }
  Source source(int, int, int root, size_t, bool, size_t i) const override { return {root, i}; }
};

}  // namespace

std::unique_ptr<Operation> make_bcast() { return std::make_unique<Bcast>(); }

}  // namespace commlab
