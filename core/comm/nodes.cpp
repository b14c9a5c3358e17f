#include "nodes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>

#include "core/vocabulary/usage_error.hpp"

namespace commlab {

Nodes::Nodes(std::vector<int> node_of_rank) : of_rank_(std::move(node_of_rank)) {
  for (int r = 0; r < int(of_rank_.size()); ++r) {
    const int node = of_rank_[r];
    if (node >= int(groups_.size())) groups_.resize(node + 1);
    groups_[node].push_back(r);
  }
  for (const auto& g : groups_) {
    leaders_.push_back(g.empty() ? -1 : g.front());
    largest_ = std::max(largest_, g.size());
  }
}

Nodes Nodes::blocks(int P, int ranks_per_node) {
  std::vector<int> of_rank;
  for (int r = 0; r < P; ++r) of_rank.push_back(r / ranks_per_node);
  return Nodes(std::move(of_rank));
}

Nodes nodes_of(MPI_Comm comm) {
  int me, P;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &P);
  MPI_Comm node;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int lowest = me;
  MPI_Allreduce(MPI_IN_PLACE, &lowest, 1, MPI_INT, MPI_MIN, node);
  MPI_Comm_free(&node);
  std::vector<int> lowest_of(P);
  MPI_Allgather(&lowest, 1, MPI_INT, lowest_of.data(), 1, MPI_INT, comm);
  std::vector<int> number(P, -1), of_rank;
  int next = 0;
  for (int r = 0; r < P; ++r) {
    int& mine = number[lowest_of[r]];
    if (mine < 0) mine = next++;
    of_rank.push_back(mine);
  }
  return Nodes(std::move(of_rank));
}

void Nodes::set_network(Topology network, std::vector<int> place_of_rank) {
  network_ = std::move(network);
  place_ = std::move(place_of_rank);
}

namespace {

// Each rank's position in COMMLAB_NODE_ORDER's list of host names.
std::string order_from_file(MPI_Comm comm, const std::string& path, std::vector<int>& place) {
  std::ifstream in(path);
  if (!in) return fmt::format("COMMLAB_NODE_ORDER={}: cannot be read", path);
  const std::vector<std::string> order{std::istream_iterator<std::string>(in), {}};
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int len = 0, P = 1;
  MPI_Get_processor_name(name, &len);
  MPI_Comm_size(comm, &P);
  const int mine = int(std::find(order.begin(), order.end(), name) - order.begin());
  place.assign(size_t(P), 0);
  MPI_Allgather(&mine, 1, MPI_INT, place.data(), 1, MPI_INT, comm);
  for (int r = 0; r < P; ++r)
    if (place[size_t(r)] == int(order.size()))
      return fmt::format("COMMLAB_NODE_ORDER={}: rank {}'s host is not in it", path, r);
  return "";
}

}  // namespace

std::string place_on_network(MPI_Comm comm, Nodes& nodes) {
  const char* name = std::getenv("COMMLAB_TOPOLOGY");
  const char* order = std::getenv("COMMLAB_NODE_ORDER");
  if (!name || !*name) return "";
  Topology network;
  try {
    network = Topology::parse(name);
  } catch (const UsageError& e) {
    const std::string what = e.what(), flag = "--topology ";  // parse() names the flag
    return "COMMLAB_TOPOLOGY=" + (what.rfind(flag, 0) == 0 ? what.substr(flag.size()) : what);
  }
  std::vector<int> place;
  if (order && *order) {
    if (std::string error = order_from_file(comm, order, place); !error.empty()) return error;
  }
  const std::vector<int>& at = place.empty() ? nodes.of_rank() : place;
  const int most = at.empty() ? 0 : *std::max_element(at.begin(), at.end()) + 1;
  if (network.nodes() && most > network.nodes())
    return fmt::format("COMMLAB_TOPOLOGY={} has {} nodes; the ranks ran on {}", name,
                       network.nodes(), most);
  nodes.set_network(std::move(network), std::move(place));
  return "";
}

void count_where(Traffic& t, const std::vector<Message>& messages, const Nodes& nodes) {
  t.port_critical_B = port_critical_B(messages, nodes.of_rank());
  const LinkLoad load = link_load(messages, nodes.on_network(), nodes.network());
  t.link_critical_B = load.link_critical_B;
  t.hop_B = load.hop_B;
}

NodePlace place_on_node(const Nodes& nodes, int rank) {
  const std::vector<int>& mine = nodes.ranks_on(nodes.of_rank()[rank]);
  return {int(std::find(mine.begin(), mine.end(), rank) - mine.begin()), int(mine.size())};
}

}  // namespace commlab
