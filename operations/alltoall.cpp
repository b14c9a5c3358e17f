// all-to-all: each rank's N elements are P blocks, block j for rank j; rank r
// ends with block r of every rank, in rank order (P blocks of the size of
// part r). Against MPI_Alltoall, or MPI_Alltoallv when P does not divide N.
// In place (MPI_IN_PLACE) needs equal blocks, so P must divide N.
#include <fmt/format.h>

#include <algorithm>

#include "collectives/algorithms.hpp"
#include "core/device/nccl.hpp"
#include "library_parts.hpp"
#include "operation.hpp"

namespace commlab {

// Each algorithm's entry, defined in its own file (collectives/alltoall.def).
#define COMMLAB_ALGORITHM(op, name) CollectiveAlgorithm op##_##name##_algorithm();
#include "collectives/alltoall.def"
#undef COMMLAB_ALGORITHM

namespace {

// MPI's counts: the even call's, or the v-variant's, each rank receiving
// its own block's size from every rank.
struct AlltoallCounts {
  MpiParts sent;
  std::vector<int> rcounts, rdispls;
};
AlltoallCounts alltoall_counts(const CollectiveJob& j) {
  AlltoallCounts c{MpiParts(j.parts()), {}, {}};
  const int P = j.comm.size(), me = j.comm.rank();
  if (c.sent.even) return c;
  c.rcounts.assign(P, c.sent.counts[me]);
  for (int r = 0; r < P; ++r) c.rdispls.push_back(r * c.sent.counts[me]);
  return c;
}

void mpi_alltoall(const CollectiveJob& j) {
  const AlltoallCounts c = alltoall_counts(j);
  const MpiParts& p = c.sent;
  const void* in = j.in_place() ? MPI_IN_PLACE : j.in;
  MPI_Datatype t = j.red.mpi_type();
  if (p.even)
    MPI_Alltoall(in, p.counts[0], t, j.out, p.counts[0], t, j.comm.mpi());
  else
    MPI_Alltoallv(in, p.counts.data(), p.displs.data(), t, j.out, c.rcounts.data(),
                  c.rdispls.data(), t, j.comm.mpi());
}

void mpi_ialltoall(const CollectiveJob& j, Requests& r) {
  const AlltoallCounts& c = r.keep(alltoall_counts(j));
  const MpiParts& p = c.sent;
  const void* in = j.in_place() ? MPI_IN_PLACE : j.in;
  MPI_Datatype t = j.red.mpi_type();
  if (p.even)
    MPI_Ialltoall(in, p.counts[0], t, j.out, p.counts[0], t, j.comm.mpi(), r.next());
  else
    MPI_Ialltoallv(in, p.counts.data(), p.displs.data(), t, j.out, c.rcounts.data(),
                   c.rdispls.data(), t, j.comm.mpi(), r.next());
}

// Grouped ncclSend/ncclRecv, as nccl-tests does it: block r of the input to
// rank r; rank r's block for me lands at r x my block.
void nccl_alltoall(const CollectiveJob& j) {
  const Partition blocks = j.parts();
  const int P = j.comm.size(), me = j.comm.rank();
  std::vector<size_t> sc(P), sd(P), rc(P, blocks.size(me)), rd(P);
  for (int r = 0; r < P; ++r) {
    sc[r] = blocks.size(r);
    sd[r] = blocks.offset(r);
    rd[r] = r * blocks.size(me);
  }
  j.nccl->exchange(j.in, sc.data(), sd.data(), j.out, rc.data(), rd.data(), j.red.dtype);
}

class Alltoall : public Operation {
 public:
  Alltoall() {
    name = "alltoall";
    summary = "all-to-all: rank r gets block r of every rank's buffer, in rank order";
    algorithms = {
#define COMMLAB_ALGORITHM(op, name) op##_##name##_algorithm(),
#include "collectives/alltoall.def"
#undef COMMLAB_ALGORITHM
    };
    library = {{"MPI_Alltoall", "MPI_Alltoallv", mpi_alltoall},
               {"ncclSend/ncclRecv", "", nccl_alltoall, "", Impl::nccl,
                [](int, size_t, bool in_place) { return !in_place; }}};
    library[0].start = mpi_ialltoall;
    library[0].nb_name = "MPI_Ialltoall", library[0].nb_uneven_name = "MPI_Ialltoallv";
  }
  double busbw_factor(int P) const override { return double(P - 1) / P; }
  Layout layout(int P, int r, int, size_t N, bool in_place) const override {
    const size_t got = P * Partition{N, P}.size(r);
    return {in_place ? 0 : N, in_place ? N : got};
  }
  std::optional<size_t> starts_as(int, int, int, size_t, size_t i) const override { return i; }
  Source source(int P, int r, int, size_t N, bool, size_t i) const override {
    const Partition blocks{N, P};
    const size_t mine = blocks.size(r);  // > 0, or there is no element i
    return {static_cast<int>(i / mine), blocks.offset(r) + i % mine};
  }
  // Bine holds, sends and gathers up to P blocks of the largest size in
  // three buffers (alltoall_bine.cpp): three times N, or more when P does
  // not divide it.
  size_t scratch_count(int P, size_t N, size_t largest) const override {
    return std::max(2 * largest, 3 * size_t(P) * Partition{N, P}.size(0));
  }
  std::string refuse(int P, size_t N, bool in_place) const override {
    if (!in_place || N % P == 0) return "";
    return fmt::format(
        "--in-place: alltoall in place needs equal blocks, so a count divisible by P = {}; {} is "
        "not",
        P, N);
  }
};

}  // namespace

std::unique_ptr<Operation> make_alltoall() { return std::make_unique<Alltoall>(); }

}  // namespace commlab
