// barrier: nobody leaves until everybody has arrived. No data, so the check
// is about time: one rank at a time arrives late (it sleeps first), and every
// rank's departure must come after that arrival. The ranks' clocks are put on
// rank 0's (core/comm/clock.hpp), each offset known within its error, and
// a rank is called early only when it left before the late one arrived even
// allowing for those bounds. Against MPI_Barrier.
#include "barrier.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <thread>

#include "collectives/algorithms.hpp"
#include "core/comm/clock.hpp"
#include "operation.hpp"

namespace commlab {

// Each algorithm's entry, defined in its own file (collectives/barrier.def).
#define COMMLAB_ALGORITHM(op, name) CollectiveAlgorithm op##_##name##_algorithm();
#include "collectives/barrier.def"
#undef COMMLAB_ALGORITHM

namespace {

constexpr double kLateBy_s = 0.02;

void mpi_barrier(const CollectiveJob& j) { MPI_Barrier(j.comm.mpi()); }
void mpi_ibarrier(const CollectiveJob& j, Requests& r) { MPI_Ibarrier(j.comm.mpi(), r.next()); }

// Each rank in turn arrives late; rank 0 counts the ranks that left too early.
Verdict check_barrier(Comm& comm, const std::function<void()>& barrier) {
  const int P = comm.size(), me = comm.rank();
  const ClockOffset clock = offset_to_rank0(comm.mpi());
  Verdict v;
  for (int late = 0; late < P; ++late) {
    MPI_Barrier(comm.mpi());
    double enter = 0;
    if (me == late) {
      std::this_thread::sleep_for(std::chrono::duration<double>(kLateBy_s));
      enter = MPI_Wtime() + clock.to_rank0_s;
    }
    barrier();
    const double mine[3] = {MPI_Wtime() + clock.to_rank0_s, clock.error_s, enter};
    std::vector<double> all(3 * P);
    MPI_Gather(mine, 3, MPI_DOUBLE, all.data(), 3, MPI_DOUBLE, 0, comm.mpi());
    if (me != 0) continue;
    BarrierTiming t{all[3 * late + 2], all[3 * late + 1], {}, {}};
    for (int r = 0; r < P; ++r) t.exit.push_back(all[3 * r]), t.exit_err.push_back(all[3 * r + 1]);
    for (int r : early_leavers(t)) {
      if (v.wrong++ == 0)
        v.note = fmt::format("rank {} left {:.0f} us before rank {} arrived", r,
                             (t.enter - t.exit[r]) * 1e6, late);
    }
  }
  return v;
}

class Barrier : public Operation {
 public:
  Barrier() {
    name = "barrier";
    summary = "barrier: nobody leaves until everybody has arrived";
    in_place_form = InPlace::never;
    has_data = false;
    algorithms = {
#define COMMLAB_ALGORITHM(op, name) op##_##name##_algorithm(),
#include "collectives/barrier.def"
#undef COMMLAB_ALGORITHM
    };
    library = {{"MPI_Barrier", "", mpi_barrier}};
    library[0].start = mpi_ibarrier, library[0].nb_name = "MPI_Ibarrier";
  }
  double busbw_factor(int) const override { return 0; }
  Layout layout(int, int, int, size_t, bool) const override { return {}; }
  std::optional<size_t> starts_as(int, int, int, size_t, size_t) const override { return {}; }
  Source source(int, int, int, size_t, bool, size_t i) const override { return {0, i}; }
  Verdict check(Comm& comm, const std::function<void()>& run) const override {
    return check_barrier(comm, run);
  }
};

}  // namespace

std::vector<int> early_leavers(const BarrierTiming& t) {
  std::vector<int> early;
  for (size_t r = 0; r < t.exit.size(); ++r)
    if (t.exit[r] + t.exit_err[r] < t.enter - t.enter_err) early.push_back(static_cast<int>(r));
  return early;
}

std::unique_ptr<Operation> make_barrier() { return std::make_unique<Barrier>(); }

}  // namespace commlab
