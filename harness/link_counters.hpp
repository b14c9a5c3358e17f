// The links' own byte counters. On a network the harness can read, the
// kernel counts every byte each link out of a node sends, TCP/IP's headers
// and acknowledgements and MPI's own control messages included; a row's
// links_sent_B is their sum over every node's links, a call, beside the
// hop-bytes its messages imply (hop_B). The emulated ring
// (slurm/cluster_up.sh TOPOLOGY=ring) names its links in
// COMMLAB_LINK_DEVICES, as prefixes of device names ("cmlr cmll"): each
// node's namespace holds its own two, and /proc/net/dev is the namespace's.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <istream>
#include <optional>
#include <string>
#include <vector>

namespace commlab {

// The bytes sent so far by the devices listed in `dev` (/proc/net/dev's
// format) whose names begin with one of `prefixes`; none when no device's does.
std::optional<uint64_t> devices_sent_B(std::istream& dev, const std::vector<std::string>& prefixes);

class LinkCounters {
 public:
  // From COMMLAB_LINK_DEVICES (collective: every rank must have it, or none
  // reads). `leads_node`: this rank reads its node's links (one rank a node,
  // or they count twice). `every_node`: a rank runs on every node of the
  // network; where one does not (P below a ring's nodes), routes still
  // cross its links and nobody would read them, so the rows leave the cell
  // empty rather than count less than was sent.
  LinkCounters(MPI_Comm comm, bool leads_node, bool every_node);
  bool active() const { return !prefixes_.empty(); }
  // Collective: what every node's links have sent so far, summed over the
  // nodes, or none where some node could not read its counters.
  std::optional<uint64_t> sent_B(MPI_Comm comm) const;

 private:
  std::vector<std::string> prefixes_;
  bool leads_node_;
};

}  // namespace commlab
