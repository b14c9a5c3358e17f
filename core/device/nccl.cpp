#include "nccl.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "device.hpp"

#ifdef COMMLAB_HAVE_NCCL
#include <cuda_runtime.h>
#include <nccl.h>
#endif

namespace commlab {

#ifdef COMMLAB_HAVE_NCCL

namespace {

void check(ncclResult_t r, const char* what) {
  if (r != ncclSuccess)
    throw std::runtime_error(fmt::format("{}: {}", what, ncclGetErrorString(r)));
}

ncclDataType_t nccl_type(DType t) {
  switch (t) {
#define COMMLAB_DTYPE(name, cxx, mpi, nccl, ...) \
  case DType::name:                              \
    return nccl;
#include "core/vocabulary/dtypes.def"
#undef COMMLAB_DTYPE
  }
  throw std::logic_error("nccl_type: not a dtype");
}

ncclRedOp_t nccl_op(Op op) {
  switch (op) {
    case Op::sum:
      return ncclSum;
    case Op::prod:
      return ncclProd;
    case Op::max:
      return ncclMax;
    case Op::min:
      break;
  }
  return ncclMin;
}

cudaStream_t stream() { return static_cast<cudaStream_t>(gpu::stream()); }

}  // namespace

std::string Nccl::unavailable_reason(int local_ranks, int gpus) {
  if (local_ranks > gpus)
    return fmt::format("{} ranks share {} GPU{} on a node; NCCL needs one GPU per rank",
                       local_ranks, gpus, gpus == 1 ? "" : "s");
  return "";
}

std::string Nccl::version() {
  int v = 0;
  ncclGetVersion(&v);
  return fmt::format("NCCL {}.{}.{}", v / 10000, v / 100 % 100, v % 100);
}

Nccl::Nccl(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size_);
  ncclUniqueId id;
  if (rank == 0) check(ncclGetUniqueId(&id), "ncclGetUniqueId");
  MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, comm);
  ncclComm_t c;
  check(ncclCommInitRank(&c, size_, id, rank), "ncclCommInitRank");
  comm_ = c;
}

Nccl::~Nccl() {
  if (comm_) ncclCommDestroy(static_cast<ncclComm_t>(comm_));
}

#define COMMLAB_NCCL_COMM static_cast<ncclComm_t>(comm_)

void Nccl::allreduce(const void* in, void* out, size_t count, const Reduction& red) {
  check(ncclAllReduce(in, out, count, nccl_type(red.dtype), nccl_op(red.op), COMMLAB_NCCL_COMM,
                      stream()),
        "ncclAllReduce");
}

void Nccl::broadcast(const void* in, void* out, size_t count, DType t, int root) {
  check(ncclBroadcast(in, out, count, nccl_type(t), root, COMMLAB_NCCL_COMM, stream()),
        "ncclBroadcast");
}

void Nccl::reduce(const void* in, void* out, size_t count, const Reduction& red, int root) {
  check(ncclReduce(in, out, count, nccl_type(red.dtype), nccl_op(red.op), root, COMMLAB_NCCL_COMM,
                   stream()),
        "ncclReduce");
}

void Nccl::allgather(const void* in, void* out, size_t per_rank, DType t) {
  check(ncclAllGather(in, out, per_rank, nccl_type(t), COMMLAB_NCCL_COMM, stream()),
        "ncclAllGather");
}

void Nccl::reduce_scatter(const void* in, void* out, size_t per_rank, const Reduction& red) {
  check(ncclReduceScatter(in, out, per_rank, nccl_type(red.dtype), nccl_op(red.op),
                          COMMLAB_NCCL_COMM, stream()),
        "ncclReduceScatter");
}

void Nccl::exchange(const void* in, const size_t* send_counts, const size_t* send_displs, void* out,
                    const size_t* recv_counts, const size_t* recv_displs, DType t) {
  const size_t es = element_size(t);
  check(ncclGroupStart(), "ncclGroupStart");
  for (int r = 0; r < size_; ++r) {
    if (send_counts[r])
      check(ncclSend(static_cast<const char*>(in) + send_displs[r] * es, send_counts[r],
                     nccl_type(t), r, COMMLAB_NCCL_COMM, stream()),
            "ncclSend");
    if (recv_counts[r])
      check(ncclRecv(static_cast<char*>(out) + recv_displs[r] * es, recv_counts[r], nccl_type(t), r,
                     COMMLAB_NCCL_COMM, stream()),
            "ncclRecv");
  }
  check(ncclGroupEnd(), "ncclGroupEnd");
}

#else  // built without NCCL: its rows say so, and nothing below is reached

std::string Nccl::unavailable_reason(int, int) {
  return "not built (nccl.h was not found when commlab was configured)";
}
std::string Nccl::version() { return "none"; }
Nccl::Nccl(MPI_Comm) { throw std::logic_error("NCCL is not built in"); }
Nccl::~Nccl() = default;
void Nccl::allreduce(const void*, void*, size_t, const Reduction&) {}
void Nccl::broadcast(const void*, void*, size_t, DType, int) {}
void Nccl::reduce(const void*, void*, size_t, const Reduction&, int) {}
void Nccl::allgather(const void*, void*, size_t, DType) {}
void Nccl::reduce_scatter(const void*, void*, size_t, const Reduction&) {}
void Nccl::exchange(const void*, const size_t*, const size_t*, void*, const size_t*, const size_t*,
                    DType) {}

#endif

}  // namespace commlab
