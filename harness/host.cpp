#include "host.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace commlab {

std::string mpi_version() {
  char v[MPI_MAX_LIBRARY_VERSION_STRING];
  int n = 0;
  MPI_Get_library_version(v, &n);
  std::string s(v, n);
  return s.substr(0, s.find_first_of(",\n"));
}

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::string hostname() {
  char buf[256] = {};
  gethostname(buf, sizeof buf - 1);
  return buf;
}

std::vector<std::string> gather_words(MPI_Comm comm, const std::string& mine) {
  int P = 1;
  MPI_Comm_size(comm, &P);
  std::vector<char> cell(kHostnameMax, '\0'), all(size_t(P) * kHostnameMax);
  const std::string cut = mine.substr(0, kHostnameMax - 1);
  std::copy(cut.begin(), cut.end(), cell.begin());
  MPI_Allgather(cell.data(), kHostnameMax, MPI_CHAR, all.data(), kHostnameMax, MPI_CHAR, comm);
  std::vector<std::string> words;
  for (int r = 0; r < P; ++r) words.emplace_back(all.data() + size_t(r) * kHostnameMax);
  return words;
}

Placement gather_placement(MPI_Comm comm) { return placement_of(gather_words(comm, hostname())); }

std::string misread_launch() {
  // srun with an MPI plugin this MPI does not speak starts each task as an
  // MPI job of its own: P = 1 in every one. A launcher's children are told
  // their world's size (mpirun's OMPI_COMM_WORLD_SIZE, hydra's PMI_SIZE), and
  // its daemons may sit in a step of several tasks, so only a direct launch
  // is checked.
  const char* tasks = std::getenv("SLURM_STEP_NUM_TASKS");
  int P = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  if (P != 1 || !tasks || std::atoi(tasks) <= 1 || std::getenv("OMPI_COMM_WORLD_SIZE") ||
      std::getenv("PMI_SIZE"))
    return "";
  return fmt::format(
      "srun started {} tasks but each is an MPI job of 1 rank: srun's MPI plugin does not match "
      "this MPI (set SRUN_MPI to one that `srun --mpi=list` names, e.g. pmix)",
      tasks);
}

void print_in_rank_order(MPI_Comm comm, const std::string& line) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int len = static_cast<int>(line.size());
  std::vector<int> lens(size), displs(size);
  MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, comm);
  int total = 0;
  for (int r = 0; r < size; ++r) displs[r] = total, total += lens[r];
  std::vector<char> all(rank == 0 ? total : 0);
  MPI_Gatherv(line.data(), len, MPI_CHAR, all.data(), lens.data(), displs.data(), MPI_CHAR, 0,
              comm);
  if (rank != 0) return;
  for (int r = 0; r < size; ++r)
    fmt::print("{}\n", std::string_view(all.data() + displs[r], lens[r]));
  std::fflush(stdout);
}

namespace {
// The busy and the total CPU time of the node so far (/proc/stat's first line).
std::pair<double, double> cpu_times() {
  std::ifstream stat("/proc/stat");
  std::string cpu;
  double user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  stat >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal;
  const double busy = user + nice + system + irq + softirq + steal;
  return {busy, busy + idle + iowait};
}
}  // namespace

Load load_at_start(MPI_Comm comm) {
  constexpr auto kQuiet = std::chrono::milliseconds(200);
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Barrier(comm);
  const auto before = cpu_times();
  std::this_thread::sleep_for(kQuiet);  // every rank: a barrier would spin
  const auto after = cpu_times();
  double figures[2] = {0, double(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)))};
  const double total = after.second - before.second;
  if (rank == 0 && total > 0)
    figures[0] = std::clamp((after.first - before.first) / total, 0.0, 1.0);
  MPI_Bcast(figures, 2, MPI_DOUBLE, 0, comm);
  MPI_Barrier(comm);
  return {figures[0], int(figures[1])};
}

}  // namespace commlab
