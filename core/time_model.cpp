#include "time_model.hpp"

#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>

namespace commlab {

namespace {

// One-way time of a `bytes` message between ranks 0 and 1, the best of `reps` round trips.
double one_way_us(Comm& comm, void* buf, size_t bytes, int reps) {
  double best_s = 1e300;
  for (int i = 0; i < reps; ++i) {
    MPI_Barrier(comm.mpi());
    const double t0 = MPI_Wtime();
    if (comm.rank() == 0) {
      comm.send(1, buf, bytes, {0});
      comm.recv(1, buf, bytes, {1});
    } else if (comm.rank() == 1) {
      comm.recv(0, buf, bytes, {0});
      comm.send(0, buf, bytes, {1});
    }
    comm.memory().sync();
    best_s = std::min(best_s, MPI_Wtime() - t0);
  }
  return best_s / 2 * 1e6;
}

}  // namespace

CostModel probe_cost(Comm& comm, const Reduction& red) {
  constexpr size_t kBig_B = size_t{1} << 20;
  Memory& mem = comm.memory();
  char* room = static_cast<char*>(mem.scratch(2 * kBig_B));
  double figures[3] = {0, 0, 0};  // alpha_us, beta_us_per_B, gamma_us_per_B
  if (comm.size() > 1) {
    const double small_us = one_way_us(comm, room, 8, 50);
    const double big_us = one_way_us(comm, room, kBig_B, 5);
    figures[0] = small_us;
    figures[1] = std::max(0.0, big_us - small_us) / double(kBig_B);
  }
  if (comm.rank() == 0) {
    double best_s = 1e300;
    for (int i = 0; i < 5; ++i) {
      const double t0 = MPI_Wtime();
      mem.reduce(red, room, room + kBig_B, kBig_B / red.esize());
      mem.sync();
      best_s = std::min(best_s, MPI_Wtime() - t0);
    }
    figures[2] = best_s * 1e6 / double(kBig_B);
  }
  MPI_Bcast(figures, 3, MPI_DOUBLE, 0, comm.mpi());
  comm.reset_counts();
  return {figures[0], figures[1], figures[2], "probe"};
}

std::string describe(const CostModel& m) {
  auto rate = [](double us_per_B) {
    return us_per_B > 0 ? fmt::format("{:.2f} GB/s", 1e-3 / us_per_B) : std::string("-");
  };
  return fmt::format("alpha {:.2f} us, beta 1/{}, gamma 1/{} ({})", m.alpha_us,
                     rate(m.beta_us_per_B), rate(m.gamma_us_per_B), m.source);
}

size_t best_segment_B(const CostModel& m, size_t chunk_B, size_t esize) {
  if (chunk_B == 0 || m.gamma_us_per_B <= 0) return chunk_B;
  const double best = std::sqrt(m.alpha_us * double(chunk_B) / m.gamma_us_per_B);
  const size_t elems = std::max<size_t>(1, size_t(std::min(best, double(chunk_B))) / esize);
  return elems * esize;
}

}  // namespace commlab
