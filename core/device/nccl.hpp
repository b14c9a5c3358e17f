// NCCL, the library GPU rows are also measured against: a communicator over
// the same ranks, one GPU each, bootstrapped over MPI (rank 0's unique id,
// broadcast). Every call is queued on the harness's stream.
#pragma once
#include <mpi.h>

#include <cstddef>
#include <string>

#include "reduce.hpp"

namespace commlab {

class Nccl {
 public:
  // "" when NCCL rows can run, else why not (not built, ranks sharing a GPU).
  // `local_ranks` and `gpus`: the most ranks and the fewest GPUs of any node.
  static std::string unavailable_reason(int local_ranks, int gpus);
  static std::string version();  // e.g. "NCCL 2.28.9"

  explicit Nccl(MPI_Comm comm);  // collective
  ~Nccl();
  Nccl(const Nccl&) = delete;
  Nccl& operator=(const Nccl&) = delete;

  void allreduce(const void* in, void* out, size_t count, const Reduction& red);
  void broadcast(const void* in, void* out, size_t count, DType t, int root);
  void reduce(const void* in, void* out, size_t count, const Reduction& red, int root);
  void allgather(const void* in, void* out, size_t per_rank, DType t);
  void reduce_scatter(const void* in, void* out, size_t per_rank, const Reduction& red);
  // Point to point, grouped: each rank sends send_counts[r] elements from
  // in + send_displs[r] to rank r and receives likewise (what NCCL's own
  // tests call alltoallv). A zero count is skipped.
  void exchange(const void* in, const size_t* send_counts, const size_t* send_displs, void* out,
                const size_t* recv_counts, const size_t* recv_displs, DType t);

 private:
  // Unused where NCCL is not built in (the members stay, one class either way).
  [[maybe_unused]] void* comm_ = nullptr;  // ncclComm_t
  [[maybe_unused]] int size_ = 1;
};

}  // namespace commlab
