// all-gather: every rank ends with every rank's part, in rank order (N
// elements in all; rank r contributes part r). Against MPI_Allgather, or
// MPI_Allgatherv when P does not divide N (MPI_IN_PLACE with --in-place: each
// rank's part is already where it belongs).
#include "collectives/algorithms.hpp"
#include "core/device/nccl.hpp"
#include "library_parts.hpp"
#include "operation.hpp"

namespace commlab {

// Each algorithm's entry, defined in its own file (collectives/allgather.def).
#define COMMLAB_ALGORITHM(op, name) CollectiveAlgorithm op##_##name##_algorithm();
#include "collectives/allgather.def"
#undef COMMLAB_ALGORITHM

namespace {

void mpi_allgather(const CollectiveJob& j) {
  const MpiParts p(j.parts());
  const int me = j.comm.rank();
  const void* in = j.in_place() ? MPI_IN_PLACE : j.in;
  MPI_Datatype t = j.red.mpi_type();
  if (p.even)
    MPI_Allgather(in, p.counts[0], t, j.out, p.counts[0], t, j.comm.mpi());
  else
    MPI_Allgatherv(in, p.counts[me], t, j.out, p.counts.data(), p.displs.data(), t, j.comm.mpi());
}

void mpi_iallgather(const CollectiveJob& j, Requests& r) {
  const MpiParts& p = r.keep(MpiParts(j.parts()));
  const int me = j.comm.rank();
  const void* in = j.in_place() ? MPI_IN_PLACE : j.in;
  MPI_Datatype t = j.red.mpi_type();
  if (p.even)
    MPI_Iallgather(in, p.counts[0], t, j.out, p.counts[0], t, j.comm.mpi(), r.next());
  else
    MPI_Iallgatherv(in, p.counts[me], t, j.out, p.counts.data(), p.displs.data(), t, j.comm.mpi(),
                    r.next());
}

// NCCL has no v-variant: equal parts only. In place, this rank's part is already in out.
void nccl_allgather(const CollectiveJob& j) {
  const size_t per = j.count / j.comm.size();
  const void* in =
      j.in_place() ? static_cast<const char*>(j.out) + j.comm.rank() * per * j.esize() : j.in;
  j.nccl->allgather(in, j.out, per, j.red.dtype);
}

class Allgather : public Operation {
 public:
  Allgather() {
    name = "allgather";
    summary = "all-gather: every rank gets every rank's part, in rank order";
    algorithms = {
#define COMMLAB_ALGORITHM(op, name) op##_##name##_algorithm(),
#include "collectives/allgather.def"
#undef COMMLAB_ALGORITHM
    };
    library = {{"MPI_Allgather", "MPI_Allgatherv", mpi_allgather},
               {"ncclAllGather", "", nccl_allgather, "", Impl::nccl,
                [](int P, size_t N, bool) { return N % P == 0; }}};
    library[0].start = mpi_iallgather;
    library[0].nb_name = "MPI_Iallgather", library[0].nb_uneven_name = "MPI_Iallgatherv";
  }
  double busbw_factor(int P) const override { return double(P - 1) / P; }
  Layout layout(int P, int r, int, size_t N, bool in_place) const override {
    return {in_place ? 0 : Partition{N, P}.size(r), N};
  }
  std::optional<size_t> starts_as(int P, int r, int, size_t N, size_t i) const override {
    const Partition parts{N, P};
    if (parts.part_of(i) != r) return {};
    return i - parts.offset(r);
  }
  Source source(int P, int, int, size_t N, bool, size_t i) const override {
    return gathered_source(P, N, i);
  }
};

}  // namespace

std::unique_ptr<Operation> make_allgather() { return std::make_unique<Allgather>(); }

}  // namespace commlab
