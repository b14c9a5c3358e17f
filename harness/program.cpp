#include "program.hpp"

#include <fmt/format.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "core/comm/errors.hpp"
#include "host.hpp"

namespace commlab {

namespace {
// The first collective connects the ranks. Open MPI's TCP transport can
// lose a connect race there (open-mpi/ompi#10734: "Operation now in
// progress (115)") and then waits for ever; one that has not finished in
// this long never did on the emulated clusters, where it takes a second.
constexpr auto kFirstCollectiveTimeout = std::chrono::seconds(120);
constexpr int kExitNotConnected = 3;  // docs/usage.md, exit status
}  // namespace

void start_mpi(int* argc, char*** argv) {
  init_mpi(argc, argv);
  // A watchdog, not MPI: it only ends the process, which srun or mpirun
  // sees and ends the job.
  std::mutex m;
  std::condition_variable cv;
  bool started = false;
  std::thread watchdog([&] {
    std::unique_lock lock(m);
    if (cv.wait_for(lock, kFirstCollectiveTimeout, [&] { return started; })) return;
    std::fprintf(stderr,
                 "error: the ranks did not connect within %lld s (the first collective did not "
                 "finish; Open MPI's TCP transport can lose a connect race, open-mpi/ompi#10734): "
                 "run it again\n",
                 static_cast<long long>(kFirstCollectiveTimeout.count()));
    std::fflush(stderr);
    std::_Exit(kExitNotConnected);
  });
  agree_or_exit(MPI_COMM_WORLD, misread_launch());
  {
    std::lock_guard lock(m);
    started = true;
  }
  cv.notify_one();
  watchdog.join();
}

void print_help(Comm& comm, const std::string& help) {
  if (comm.rank() == 0) fmt::print("{}", help);
}

void abort_all(Comm& comm, const std::exception& e) {
  fmt::print(stderr, "error: rank {}: {}\n", comm.rank(), e.what());
  std::fflush(stderr);
  MPI_Abort(comm.mpi(), kExitWrong);
  std::abort();  // MPI_Abort does not return
}

int finish(int rc) {
  MPI_Finalize();
  return rc;
}

}  // namespace commlab
