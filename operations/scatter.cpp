// scatter(root): rank r ends with part r of the root's N elements. Against
// MPI_Scatter, or MPI_Scatterv when P does not divide N (MPI_IN_PLACE at the
// root with --in-place: its part stays where it is).
#include "collectives/algorithms.hpp"
#include "library_parts.hpp"
#include "operation.hpp"

namespace commlab {

namespace {

void mpi_scatter(const CollectiveJob& j) {
  const MpiParts p(j.parts());
  const int me = j.comm.rank();
  void* out = j.in_place() && me == j.root ? MPI_IN_PLACE : j.out;
  MPI_Datatype t = j.red.mpi_type();
  if (p.even)
    MPI_Scatter(j.in, p.counts[0], t, out, p.counts[0], t, j.root, j.comm.mpi());
  else
    MPI_Scatterv(j.in, p.counts.data(), p.displs.data(), t, out, p.counts[me], t, j.root,
                 j.comm.mpi());
}

void mpi_iscatter(const CollectiveJob& j, Requests& r) {
  const MpiParts& p = r.keep(MpiParts(j.parts()));
  const int me = j.comm.rank();
  void* out = j.in_place() && me == j.root ? MPI_IN_PLACE : j.out;
  MPI_Datatype t = j.red.mpi_type();
  if (p.even)
    MPI_Iscatter(j.in, p.counts[0], t, out, p.counts[0], t, j.root, j.comm.mpi(), r.next());
  else
    MPI_Iscatterv(j.in, p.counts.data(), p.displs.data(), t, out, p.counts[me], t, j.root,
                  j.comm.mpi(), r.next());
}

void nccl_scatter(const CollectiveJob& j) { nccl_root_parts(j, /*root_sends=*/true); }

class Scatter : public Operation {
 public:
  Scatter() {
    name = "scatter";
    summary = "scatter: rank r gets part r of the root's buffer";
    algorithms = {{"linear", scatter_linear, sized<model_scatter_linear>},
                  {"binomial", scatter_binomial, sized<model_scatter_binomial>},
                  {"bine", scatter_bine, sized<model_scatter_bine>}};
    // Bine moves the binomial tree's bytes over other links, and no MPI
    // library we build against runs it: a library row is not named for it.
    algorithm("bine").not_in_libraries = true;
    library = {{"MPI_Scatter", "MPI_Scatterv", mpi_scatter},
               {"ncclSend/ncclRecv", "", nccl_scatter, "", Impl::nccl,
                [](int, size_t, bool in_place) { return !in_place; }}};
    library[0].start = mpi_iscatter;
    library[0].nb_name = "MPI_Iscatter", library[0].nb_uneven_name = "MPI_Iscatterv";
  }
  double busbw_factor(int P) const override { return double(P - 1) / P; }
  Layout layout(int P, int r, int root, size_t N, bool in_place) const override {
    const size_t part = Partition{N, P}.size(r);
    if (in_place) return {0, r == root ? N : part};
    return {r == root ? N : 0, part};
  }
  // docs/formulas.md's known vector: the root's [10 20 30 40] gives rank r 10(r+1).
  int64_t input(const Pattern& pat, size_t, int r, size_t i) const override {
    return pat.fill == Fill::rank ? 10 * int64_t(i + 1) : pat.moved(r, i);
  }
  std::optional<size_t> starts_as(int, int r, int root, size_t, size_t i) const override {
    if (r == root) return i;
    return {};
  }
  Source source(int P, int r, int root, size_t N, bool in_place, size_t i) const override {
    if (in_place && r == root) return {root, i};  // the root's buffer, unchanged
    return {root, Partition{N, P}.offset(r) + i};
  }
};

}  // namespace

std::unique_ptr<Operation> make_scatter() { return std::make_unique<Scatter>(); }

}  // namespace commlab
