#include "admission.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <vector>

#include "core/device/device.hpp"
#include "devices.hpp"
#include "host.hpp"

namespace commlab {

static_assert(sizeof(Footprint) == 2 * sizeof(double), "gathered as two doubles");

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
  if (all_ask) {
    // The GPU each rank will take: its node's GPUs in turn, as gpu::select does.
    inv = gpu::inventory();
    const int index = int(std::find(here.begin(), here.end(), me) - here.begin());
    sharing = gpu_sharing(nodes, gather_words(comm, inv.bus_ids.at(index % inv.gpus))).most_on_one;
  }
  if (!(host_B <= 0.9 * have))
    return fmt::format("the {} rank{} on this node need {:.1f} GiB of memory; it has {:.1f} GiB",
                       local, local == 1 ? "" : "s", host_B / GiB, have / GiB);
  const double gpu_B = largest_gpu_B * sharing;
  if (!all_ask || gpu_B <= 0.9 * inv.smallest_B) return "";
  return fmt::format("{} rank{} per GPU need {:.1f} GiB of GPU memory; the GPU has {:.1f} GiB",
                     sharing, sharing == 1 ? "" : "s", gpu_B / GiB, inv.smallest_B / GiB);
}

}  // namespace commlab
