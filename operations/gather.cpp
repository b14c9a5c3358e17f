// gather(root): the root ends with every rank's part, in rank order (N
// elements in all; rank r contributes part r). Against MPI_Gather, or
// MPI_Gatherv when P does not divide N (MPI_IN_PLACE at the root with
// --in-place: its own part is already where it belongs).
#include "collectives/algorithms.hpp"
#include "library_parts.hpp"
#include "operation.hpp"

namespace commlab {

namespace {

void mpi_gather(const CollectiveJob& j) {
  const MpiParts p(j.parts());
  const int me = j.comm.rank();
  const void* in = j.in_place() && me == j.root ? MPI_IN_PLACE : j.in;
  MPI_Datatype t = j.red.mpi_type();
  if (p.even)
    MPI_Gather(in, p.counts[0], t, j.out, p.counts[0], t, j.root, j.comm.mpi());
  else
    MPI_Gatherv(in, p.counts[me], t, j.out, p.counts.data(), p.displs.data(), t, j.root,
                j.comm.mpi());
}

void mpi_igather(const CollectiveJob& j, Requests& r) {
  const MpiParts& p = r.keep(MpiParts(j.parts()));
  const int me = j.comm.rank();
  const void* in = j.in_place() && me == j.root ? MPI_IN_PLACE : j.in;
  MPI_Datatype t = j.red.mpi_type();
  if (p.even)
    MPI_Igather(in, p.counts[0], t, j.out, p.counts[0], t, j.root, j.comm.mpi(), r.next());
  else
    MPI_Igatherv(in, p.counts[me], t, j.out, p.counts.data(), p.displs.data(), t, j.root,
                 j.comm.mpi(), r.next());
}

void nccl_gather(const CollectiveJob& j) { nccl_root_parts(j, /*root_sends=*/false); }

class Gather : public Operation {
 public:
  Gather() {
    name = "gather";
    summary = "gather: the root gets every rank's part, in rank order";
    algorithms = {{"linear", gather_linear, sized<model_gather_linear>},
                  {"binomial", gather_binomial, sized<model_gather_binomial>},
                  {"bine", gather_bine, sized<model_gather_bine>}};
    // Bine moves the binomial tree's bytes over other links, and no MPI
    // library we build against runs it: a library row is not named for it.
    algorithm("bine").not_in_libraries = true;
    library = {{"MPI_Gather", "MPI_Gatherv", mpi_gather},
               {"ncclSend/ncclRecv", "", nccl_gather, "", Impl::nccl,
                [](int, size_t, bool in_place) { return !in_place; }}};
    library[0].start = mpi_igather;
    library[0].nb_name = "MPI_Igather", library[0].nb_uneven_name = "MPI_Igatherv";
  }
  double busbw_factor(int P) const override { return double(P - 1) / P; }
  Layout layout(int P, int r, int root, size_t N, bool in_place) const override {
    const size_t part = Partition{N, P}.size(r);
    if (in_place) return {0, r == root ? N : part};
    return {part, r == root ? N : 0};
  }
  // In place the root's own part starts where it belongs; the rest is room.
  std::optional<size_t> starts_as(int P, int r, int root, size_t N, size_t i) const override {
    if (r != root) return i;
    const Partition parts{N, P};
    if (parts.part_of(i) != r) return {};
    return i - parts.offset(r);
  }
  Source source(int P, int r, int root, size_t N, bool, size_t i) const override {
    if (r != root) return {r, i};  // in place, the others' buffers are unchanged
    return gathered_source(P, N, i);
  }
};

}  // namespace

std::unique_ptr<Operation> make_gather() { return std::make_unique<Gather>(); }

}  // namespace commlab
