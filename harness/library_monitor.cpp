#include "library_monitor.hpp"

#include <dlfcn.h>

#include <cstddef>

namespace commlab {

namespace {
bool open_ = false;
std::vector<LibrarySend> sent_;
}  // namespace

void library_window_open() {
  sent_.clear();
  open_ = true;
}

std::vector<LibrarySend> library_window_close() {
  open_ = false;
  return std::move(sent_);
}

bool library_counting(MPI_Comm comm) {
  int P = 0;
  MPI_Comm_size(comm, &P);
  if (P == 1) return true;  // nothing to send, and nothing counted is right
  library_window_open();
  MPI_Barrier(comm);
  const int mine = !library_window_close().empty();
  int all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm);
  return all == 1;
}

}  // namespace commlab

// Open MPI 4.x's monitoring calls this for every message its pml sends
// (ompi/mca/common/monitoring/common_monitoring.h), with the destination's
// rank in MPI_COMM_WORLD. The executable exports it (CMake: the link option
// --dynamic-list=harness/library_monitor.exports), so the component's call lands here first.
extern "C" void mca_common_monitoring_record_pml(int world_rank, size_t data_size, int tag) {
  using Next = void (*)(int, size_t, int);
  static const Next next =
      reinterpret_cast<Next>(dlsym(RTLD_NEXT, "mca_common_monitoring_record_pml"));
  if (commlab::open_) commlab::sent_.push_back({world_rank, uint64_t(data_size)});
  if (next) next(world_rank, data_size, tag);
}
