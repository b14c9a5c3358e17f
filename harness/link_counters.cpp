#include "link_counters.hpp"

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace commlab {

// /proc/net/dev: two heading lines, then one line a device,
// "  name: rx_bytes rx_packets ... (8 received) tx_bytes ...".
std::optional<uint64_t> devices_sent_B(std::istream& dev,
                                       const std::vector<std::string>& prefixes) {
  std::optional<uint64_t> total;
  std::string line;
  while (std::getline(dev, line)) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const size_t start = line.find_first_not_of(' ');
    const std::string name = line.substr(start, colon - start);
    bool ours = false;
    for (const auto& p : prefixes) ours = ours || name.rfind(p, 0) == 0;
    if (!ours) continue;
    std::istringstream fields(line.substr(colon + 1));
    uint64_t field = 0, tx_B = 0;
    for (int i = 0; i <= 8 && fields >> field; ++i) tx_B = field;
    if (!fields) continue;  // a line cut short: not a device's
    total = total.value_or(0) + tx_B;
  }
  return total;
}

LinkCounters::LinkCounters(MPI_Comm comm, bool leads_node, bool every_node)
    : leads_node_(leads_node) {
  const char* names = std::getenv("COMMLAB_LINK_DEVICES");
  std::istringstream words(names ? names : "");
  for (std::string w; words >> w;) prefixes_.push_back(w);
  int mine = active() && every_node, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm);
  if (!all) prefixes_.clear();
}

std::optional<uint64_t> LinkCounters::sent_B(MPI_Comm comm) const {
  // {bytes sent, nodes that could not read}, summed over the ranks.
  uint64_t mine[2] = {0, 0}, all[2] = {0, 0};
  if (leads_node_) {
    std::ifstream dev("/proc/net/dev");
    const auto sent_B = devices_sent_B(dev, prefixes_);
    mine[0] = sent_B.value_or(0);
    mine[1] = !sent_B;
  }
  MPI_Allreduce(mine, all, 2, MPI_UINT64_T, MPI_SUM, comm);
  if (all[1]) return std::nullopt;
  return all[0];
}

}  // namespace commlab
