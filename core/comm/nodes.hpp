// Which node each rank runs on. The hierarchical all-reduce groups by it, the
// time model counts the bytes through each node's port by it, and GPUs are
// shared out by a rank's place on its node; the other algorithms never look.
// Part of where a job runs, not of how its bytes move: the harness works it
// out once and hands it to whoever needs it.
#pragma once
#include <mpi.h>

#include <cstddef>
#include <string>
#include <vector>

#include "topology.hpp"
#include "traffic.hpp"

namespace commlab {

// Node numbers 0, 1, ... in order of each node's lowest rank.
class Nodes {
 public:
  Nodes() = default;
  explicit Nodes(std::vector<int> node_of_rank);
  // Ranks 0 .. k-1 on node 0, k .. 2k-1 on node 1, ... (the last may hold fewer).
  static Nodes blocks(int P, int ranks_per_node);
  bool empty() const { return of_rank_.empty(); }
  const std::vector<int>& of_rank() const { return of_rank_; }
  int count() const { return int(groups_.size()); }
  const std::vector<int>& ranks_on(int node) const { return groups_[node]; }  // the first leads
  const std::vector<int>& leaders() const { return leaders_; }  // each node's first rank
  size_t largest() const { return largest_; }                   // ranks on the fullest node
  // The network between the nodes (the switch unless told), and each rank's
  // node as the network numbers them (by default, of_rank()).
  const Topology& network() const { return network_; }
  const std::vector<int>& on_network() const { return place_.empty() ? of_rank_ : place_; }
  void set_network(Topology network, std::vector<int> place_of_rank);

 private:
  std::vector<int> of_rank_, leaders_, place_;
  Topology network_;
  std::vector<std::vector<int>> groups_;
  size_t largest_ = 0;
};

// The nodes of `comm`'s ranks, from MPI's shared-memory split: each node is
// named by its lowest rank, numbered in order of those (collective).
Nodes nodes_of(MPI_Comm comm);

// The network the nodes are on, from COMMLAB_TOPOLOGY (topology.hpp's names;
// unset: the switch), their order on it from COMMLAB_NODE_ORDER (a file of
// host names, one a node, the first node 0; unset: in order of each node's
// lowest rank), set on `nodes` (collective). "" or the one line that says
// what is wrong, the same on every rank.
std::string place_on_network(MPI_Comm comm, Nodes& nodes);

// The figures of `t` that depend on where its messages' ranks ran: the bytes
// through the busiest node's port, and over the nodes' network the busiest
// link's and the hop-bytes (traffic.hpp), step by step.
void count_where(Traffic& t, const std::vector<Message>& messages, const Nodes& nodes);

// A rank's place on its node: its rank among the node's ranks, and how many
// there are (GPUs are shared out by it).
struct NodePlace {
  int rank, size;
};
NodePlace place_on_node(const Nodes& nodes, int rank);

}  // namespace commlab
