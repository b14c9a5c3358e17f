#include "admission.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <vector>

#include "core/device.hpp"
#include "host.hpp"

namespace commlab {

static_assert(sizeof(Footprint) == 2 * sizeof(double), "gathered as two doubles");

// The fullest GPU's ranks on this node (collective): ranks on a node take
// its GPUs in turn (gpu::select), and ranks that each see one GPU
// (CUDA_VISIBLE_DEVICES per rank) may share it or not, which only the
// GPUs' addresses tell.
int ranks_on_fullest_gpu(MPI_Comm comm, const std::vector<int>& here, int me, const gpu::Inventory& inv) {
  const int index = int(std::find(here.begin(), here.end(), me) - here.begin());
  const std::vector<std::string> gpus = gather_words(comm, inv.bus_ids.at(index % inv.gpus));
  int sharing = 0;
  for (int r : here)
    sharing = std::max(sharing, int(std::count_if(here.begin(), here.end(),
                                                  [&](int q) { return gpus[q] == gpus[r]; })));
  return sharing;
}

std::string memory_problem(MPI_Comm comm, const Nodes& nodes, const Footprint& mine) {
  int me = 0, P = 1;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &P);
  std::vector<Footprint> all(P);
  MPI_Allgather(&mine, 2, MPI_DOUBLE, all.data(), 2, MPI_DOUBLE, comm);
  const std::vector<int>& here = nodes.ranks_on(nodes.of_rank()[me]);
  const int local = int(here.size());
  double host_B = 0, largest_gpu_B = 0;
  for (int r : here) host_B += all[r].host_B, largest_gpu_B = std::max(largest_gpu_B, all[r].gpu_B);
  const double GiB = 1 << 30, have = double(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGESIZE);
  // The GPUs are counted where every rank has one (a rank without says so
  // later, in one line); by all ranks or by none, since it is collective.
  int asks = largest_gpu_B > 0 && gpu::unavailable_reason().empty(), all_ask = 0;
  MPI_Allreduce(&asks, &all_ask, 1, MPI_INT, MPI_MIN, comm);
  gpu::Inventory inv;
  int sharing = 0;
  if (all_ask) inv = gpu::inventory(), sharing = ranks_on_fullest_gpu(comm, here, me, inv);
  if (!(host_B <= 0.9 * have))
    return fmt::format("the {} rank{} on this node need {:.1f} GiB of memory; it has {:.1f} GiB",
                       local, local == 1 ? "" : "s", host_B / GiB, have / GiB);
  const double gpu_B = largest_gpu_B * sharing;
  if (!all_ask || gpu_B <= 0.9 * inv.smallest_B) return "";
  return fmt::format("{} rank{} per GPU need {:.1f} GiB of GPU memory; the GPU has {:.1f} GiB",
                     sharing, sharing == 1 ? "" : "s", gpu_B / GiB, inv.smallest_B / GiB);
}

}  // namespace commlab
