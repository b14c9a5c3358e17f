// scatter(root): rank r ends with part r of the root's N elements; gather(root):
// the root ends with every rank's part, in rank order (N elements in all;
// rank r contributes part r). One operation with a direction: its buffers,
// its fill and its right answer are each other's mirror image. Against
// MPI_Scatter and MPI_Gather, or their v-variants when P does not divide N
// (MPI_IN_PLACE at the root with --in-place: its own part stays, or is
// already, where it belongs).
#include "collectives/algorithms.hpp"
#include "library_parts.hpp"
#include "operation.hpp"

namespace commlab {

// Each algorithm's entry, defined in its own file (collectives/scatter.def,
// collectives/gather.def).
#define COMMLAB_ALGORITHM(op, name) CollectiveAlgorithm op##_##name##_algorithm();
#include "collectives/gather.def"
#include "collectives/scatter.def"
#undef COMMLAB_ALGORITHM

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

// Which way the parts go: out of the root (scatter) or into it (gather).
enum class Flow { from_root, to_root };

class RootedParts : public Operation {
 public:
  explicit RootedParts(Flow flow) : from_root_(flow == Flow::from_root) {
    name = from_root_ ? "scatter" : "gather";
    summary = from_root_ ? "scatter: rank r gets part r of the root's buffer"
                         : "gather: the root gets every rank's part, in rank order";
    if (from_root_)
      algorithms = {
#define COMMLAB_ALGORITHM(op, name) op##_##name##_algorithm(),
#include "collectives/scatter.def"
#undef COMMLAB_ALGORITHM
      };
    else
      algorithms = {
#define COMMLAB_ALGORITHM(op, name) op##_##name##_algorithm(),
#include "collectives/gather.def"
#undef COMMLAB_ALGORITHM
      };
    const auto nccl = [](bool root_sends) {  // NCCL has neither: grouped sends and receives
      return root_sends ? +[](const CollectiveJob& j) { nccl_root_parts(j, true); }
                        : +[](const CollectiveJob& j) { nccl_root_parts(j, false); };
    };
    library = {{from_root_ ? "MPI_Scatter" : "MPI_Gather",
                from_root_ ? "MPI_Scatterv" : "MPI_Gatherv", from_root_ ? mpi_scatter : mpi_gather},
               {"ncclSend/ncclRecv", "", nccl(from_root_), "", Impl::nccl,
                [](int, size_t, bool in_place) { return !in_place; }}};
    library[0].start = from_root_ ? mpi_iscatter : mpi_igather;
    library[0].nb_name = from_root_ ? "MPI_Iscatter" : "MPI_Igather";
    library[0].nb_uneven_name = from_root_ ? "MPI_Iscatterv" : "MPI_Igatherv";
  }
  double busbw_factor(int P) const override { return double(P - 1) / P; }
  // Not in place: the root's N on its side of the call, a part on the other.
  Layout layout(int P, int r, int root, size_t N, bool in_place) const override {
    const size_t part = Partition{N, P}.size(r), whole = r == root ? N : 0;
    if (in_place) return {0, r == root ? N : part};
    return from_root_ ? Layout{whole, part} : Layout{part, whole};
  }
  // docs/formulas.md's known vector for scatter: the root's [10 20 30 40]
  // gives rank r 10(r+1).
  int64_t input(const Pattern& pat, size_t N, int r, size_t i) const override {
    if (from_root_ && pat.fill == Fill::rank) return 10 * int64_t(i + 1);
    return Operation::input(pat, N, r, i);
  }
  // In place: scatter's root holds its whole buffer; gather's root its own
  // part, where it belongs (the rest is room), the others their part.
  std::optional<size_t> starts_as(int P, int r, int root, size_t N, size_t i) const override {
    if (from_root_) return r == root ? std::optional<size_t>(i) : std::nullopt;
    if (r != root) return i;
    const Partition parts{N, P};
    if (parts.part_of(i) != r) return {};
    return i - parts.offset(r);
  }
  Source source(int P, int r, int root, size_t N, bool in_place, size_t i) const override {
    if (!from_root_) {
      if (r != root) return {r, i};  // in place, the others' buffers are unchanged
      return gathered_source(P, N, i);
    }
    if (in_place && r == root) return {root, i};  // the root's buffer, unchanged
    return {root, Partition{N, P}.offset(r) + i};
  }

 private:
  bool from_root_;
};

}  // namespace

std::unique_ptr<Operation> make_scatter() { return std::make_unique<RootedParts>(Flow::from_root); }
std::unique_ptr<Operation> make_gather() { return std::make_unique<RootedParts>(Flow::to_root); }

}  // namespace commlab
