// all-reduce(op): every rank ends with the element-wise op over every rank's
// N elements. Against MPI_Allreduce (MPI_IN_PLACE with --in-place) and
// ncclAllReduce. The algorithms are in allreduce_algos/, one file each.
#include "allreduce_algos/algorithms.hpp"
#include "core/device/nccl.hpp"
#include "operation.hpp"

namespace commlab {

namespace {

// MPI 3 counts are int: reduce in pieces, which is the same thing
// element-wise. call(in, out, n) for each piece; in is MPI_IN_PLACE in place.
template <class Call>
void in_pieces(const CollectiveJob& j, Call call) {
  const size_t piece = size_t{1} << 30, es = j.esize();
  size_t done = 0;
  do {
    const int n = static_cast<int>(std::min(piece, j.count - done));
    const void* in = j.in_place() ? MPI_IN_PLACE : static_cast<const char*>(j.in) + done * es;
    call(in, static_cast<char*>(j.out) + done * es, n);
    done += n;
  } while (done < j.count);
}

void mpi_allreduce(const CollectiveJob& j) {
  in_pieces(j, [&j](const void* in, void* out, int n) {
    MPI_Allreduce(in, out, n, j.red.mpi_type(), j.red.mpi_op(), j.comm.mpi());
  });
}

// Each piece its own request.
void mpi_iallreduce(const CollectiveJob& j, Requests& r) {
  in_pieces(j, [&j, &r](const void* in, void* out, int n) {
    MPI_Iallreduce(in, out, n, j.red.mpi_type(), j.red.mpi_op(), j.comm.mpi(), r.next());
  });
}

void nccl_allreduce(const CollectiveJob& j) { j.nccl->allreduce(j.in, j.out, j.count, j.red); }

class Allreduce : public Operation {
 public:
  Allreduce() {
    name = "allreduce";
    summary = "all-reduce: every rank gets the element-wise op over every rank's buffer";
    reduces = true;
    int_counts = false;
    offers_auto = true;
    algorithms = {
#define COMMLAB_ALLREDUCE(name) allreduce_##name##_algorithm(),
#include "allreduce_algos/algorithms.def"
#undef COMMLAB_ALLREDUCE
    };
    library = {{"MPI_Allreduce", "", mpi_allreduce},
               {"ncclAllReduce", "", nccl_allreduce, "", Impl::nccl}};
    library[0].start = mpi_iallreduce, library[0].nb_name = "MPI_Iallreduce";
  }
  double busbw_factor(int P) const override { return P > 1 ? 2.0 * (P - 1) / P : 0.0; }
  Layout layout(int, int, int, size_t N, bool in_place) const override {
    return {in_place ? 0 : N, N};
  }
  std::optional<size_t> starts_as(int, int, int, size_t, size_t i) const override { return i; }
  Source source(int, int, int, size_t, bool, size_t i) const override { return {kAllRanks, i}; }
};

}  // namespace

std::unique_ptr<Operation> make_allreduce() { return std::make_unique<Allreduce>(); }

}  // namespace commlab
