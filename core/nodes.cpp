#include "nodes.hpp"

#include <algorithm>

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

NodePlace place_on_node(const Nodes& nodes, int rank) {
  const std::vector<int>& mine = nodes.ranks_on(nodes.of_rank()[rank]);
  return {int(std::find(mine.begin(), mine.end(), rank) - mine.begin()), int(mine.size())};
}

}  // namespace commlab
