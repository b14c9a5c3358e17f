#include "overlap.hpp"

#include <algorithm>
#include <chrono>
#include <vector>

namespace commlab {

NonBlocking library_nonblocking(std::function<void(Requests&)> start) {
  auto requests = std::make_shared<Requests>();
  return {[requests, start = std::move(start)] {
            *requests = {};
            start(*requests);
          },
          [requests] {
            int done = 0;
            MPI_Testall(int(requests->all.size()), requests->all.data(), &done,
                        MPI_STATUSES_IGNORE);
            return done != 0;
          },
          [requests] {
            MPI_Waitall(int(requests->all.size()), requests->all.data(), MPI_STATUSES_IGNORE);
          }};
}

double osu_overlap_pct(double pure_us, double cpu_us, double test_us, double overall_us) {
  if (pure_us <= 0) return 0;
  return std::max(0.0, 100 - 100 * (overall_us - (cpu_us - test_us)) / pure_us);
}

double imb_overlap_pct(double pure_us, double cpu_us, double overall_us) {
  const double longer = std::max(pure_us, cpu_us);
  if (longer <= 0) return 0;
  return 100 * std::clamp((pure_us + cpu_us - overall_us) / longer, 0.0, 1.0);
}

namespace {
// One pass of a 25 x 25 float kernel (OSU's compute_on_host is one of this size).
void compute_pass() {
  constexpr int kDim = 25;
  static float a[kDim][kDim], x[kDim];
  static volatile float sink = 0;
  for (int i = 0; i < kDim; ++i) {
    float s = 0;
    for (int j = 0; j < kDim; ++j) s += a[i][j] * a[j][i] + x[j];
    x[i] = s * 1e-3f;
  }
  sink = sink + x[0];
}

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void compute_for(double seconds) {
  const double until = now_s() + seconds;
  do compute_pass();
  while (now_s() < until);
}
}  // namespace

double compute_with_probes(double seconds, int probes, const std::function<bool()>& test) {
  if (probes <= 0) {
    compute_for(seconds);
    return 0;
  }
  double in_test_s = 0;
  for (int k = 0; k < probes; ++k) {
    compute_for(seconds / probes);
    const double t0 = now_s();
    test();
    in_test_s += now_s() - t0;
  }
  return in_test_s;
}

double model_overlap_pct(int rounds, int probes) {
  if (rounds <= 0) return 100;
  const double share = 1.0 / rounds;  // of the pure time, which the compute lasts
  double posted = 0;
  int done = 0;
  for (int k = 1; k <= probes && done < rounds; ++k) {
    const double now = double(k) / probes;
    if (now - posted >= share * (1 - 1e-9)) ++done, posted = now;
  }
  if (done == rounds) return 100;
  // After the compute: what the round in flight still needs, and the rest.
  const double exposed = share - std::min(share, 1 - posted) + (rounds - done - 1) * share;
  return std::max(0.0, 100 * (1 - exposed));
}

OverlapFigures time_overlap(MPI_Comm comm, const OverlapPass& pass) {
  double cpu_s = 0, test_s = 0, overall_s = 0;
  for (int i = 0; i < pass.warmup + pass.iters; ++i) {
    pass.prepare();
    MPI_Barrier(comm);
    const double t0 = MPI_Wtime();
    pass.nb.start();
    const double computing = MPI_Wtime();
    const double tested_s = compute_with_probes(pass.pure_us * 1e-6, pass.probes, pass.nb.test);
    const double cpu = MPI_Wtime() - computing;
    pass.nb.wait();
    if (i < pass.warmup) continue;
    overall_s += MPI_Wtime() - t0, cpu_s += cpu, test_s += tested_s;
  }
  const double n = pass.iters;
  const double mine[4] = {pass.pure_us, cpu_s / n * 1e6, test_s / n * 1e6, overall_s / n * 1e6};
  int P = 1;
  MPI_Comm_size(comm, &P);
  std::vector<double> all(4 * size_t(P));
  MPI_Allgather(mine, 4, MPI_DOUBLE, all.data(), 4, MPI_DOUBLE, comm);
  OverlapFigures f;
  f.probes = pass.probes;
  int longest = 0;
  for (int r = 0; r < P; ++r) {
    f.t_pure_us += all[4 * r] / P, f.t_cpu_us += all[4 * r + 1] / P;
    f.t_test_us += all[4 * r + 2] / P, f.t_overlap_us += all[4 * r + 3] / P;
    if (all[4 * r + 3] > all[4 * longest + 3]) longest = r;
  }
  f.overlap_pct = osu_overlap_pct(f.t_pure_us, f.t_cpu_us, f.t_test_us, f.t_overlap_us);
  const double* l = &all[4 * longest];
  f.overlap_imb_pct = imb_overlap_pct(l[0], l[1] - l[2], l[3]);
  return f;
}

}  // namespace commlab
