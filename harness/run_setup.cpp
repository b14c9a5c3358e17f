#include "run_setup.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <numeric>

#include "core/comm/errors.hpp"
#include "core/comm/time_model.hpp"
#include "host.hpp"
#include "library_monitor.hpp"
#include "tuned.hpp"
#include "version.hpp"

namespace commlab {

namespace {

// COMMLAB_LATE_RANK=R:MS: "" and the rank and delay, or why not.
std::string late_from_env(int P, int& rank, double& by_s) {
  const char* text = std::getenv("COMMLAB_LATE_RANK");
  if (!text || !*text) return "";
  char* end = nullptr;
  const long r = std::strtol(text, &end, 10);
  const double ms = *end == ':' ? std::strtod(end + 1, &end) : -1;
  if (end == text || *end || r < 0 || r >= P || !(ms >= 0 && ms <= 10000))
    return fmt::format("COMMLAB_LATE_RANK '{}': want RANK:MS, a rank below {} and 0 to 10000 ms",
                       text, P);
  rank = int(r), by_s = ms / 1e3;
  return "";
}

// Whether `rank` is its node's first, the one that reads the node's links.
bool leads_its_node(const Nodes& nodes, int rank) {
  if (nodes.empty()) return rank == 0;
  const std::vector<int>& first = nodes.leaders();
  return std::find(first.begin(), first.end(), rank) != first.end();
}

}  // namespace

// --node-size: the blocks of ranks stand for nodes on the network
// COMMLAB_TOPOLOGY names (one machine standing for a ring of them, say), in
// order; "" or why they cannot.
std::string RunSetup::pretend_on_network(const Topology& network) {
  if (network.kind == Topology::Kind::ideal_switch) return "";
  const int count = nodes_.count();
  if (network.nodes() && count > network.nodes())
    return fmt::format("--node-size {}: {} nodes of {} ranks, and COMMLAB_TOPOLOGY={} has {}",
                       opts_.node_size, count, opts_.node_size, network.describe(),
                       network.nodes());
  nodes_.set_network(network, {});
  return "";
}

RunSetup::RunSetup(Comm& comm, const Options& opts, const Nodes& nodes)
    : comm_(comm),
      opts_(opts),
      mem_(opts.device),
      nodes_(opts.node_size > 0 ? Nodes::blocks(comm.size(), opts.node_size) : nodes),
      // The real nodes, not --node-size's blocks: each namespace read once.
      links_(comm.mpi(), leads_its_node(nodes, comm.rank()),
             nodes.network().nodes() <= nodes.count()) {
  agree_or_exit(comm.mpi(), opts.root < comm.size() ? ""
                                                    : fmt::format("-r {}: root must be below the "
                                                                  "number of ranks, {}",
                                                                  opts.root, comm.size()));
  if (opts.node_size > 0) agree_or_exit(comm.mpi(), pretend_on_network(nodes.network()));
  agree_or_exit(comm.mpi(), late_from_env(comm.size(), late_.rank, late_.by_s));
  clock_ = offset_to_rank0(comm.mpi(), 10);
  device_ = set_up_device(comm.mpi(), opts, nodes);
  comm.use(mem_, device_.transport, device_.signals);
  if (direct())  // the time model's probe sends from the registered region
    register_buffers(RegionLayout::of(0, 0, kProbeScratch_B));
  describe_run();
  library_counted_ = library_counting(comm.mpi());
  MPI_Group world, mine;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Comm_group(comm.mpi(), &mine);
  int world_size = 0;
  MPI_Group_size(world, &world_size);
  std::vector<int> world_ranks(world_size);
  std::iota(world_ranks.begin(), world_ranks.end(), 0);
  rank_of_world_.resize(world_size);
  MPI_Group_translate_ranks(world, world_size, world_ranks.data(), mine, rank_of_world_.data());
  MPI_Group_free(&world);
  MPI_Group_free(&mine);
}

// What every row says of the run.
void RunSetup::describe_run() {
  info_.program = opts_.program;
  info_.device = name(opts_.device);
  info_.host = hostname();
  info_.date = utc_now();
  info_.mpi_version = mpi_version();
  info_.commlab_version = commlab_version();
  info_.P = comm_.size();
  info_.root = opts_.root;
  info_.iters = opts_.iters;
  const Load load = load_at_start(comm_.mpi());
  info_.busy_at_start = load.busy, info_.cores_per_node = load.cores;
  info_.warmup = opts_.warmup;
  info_.in_place = opts_.in_place;
  info_.transport = device_.transport;
  info_.ranks_per_gpu = device_.ranks_per_gpu;
  info_.placement = gather_placement(comm_.mpi());
  info_.network = nodes_.network().describe();
  // Rows whose links are read one by one (the emulated ring's counters), and
  // the direct transport, whose buffers are registered between the library's
  // rows and the hand-written ones, are timed one row after another.
  info_.interleaved = opts_.interleave && !links_.active() && !direct();
  if (const char* pml = std::getenv("OMPI_MCA_pml"); pml && built_with_open_mpi()) info_.pml = pml;
}

RunSetup::Registered RunSetup::register_buffers(const RegionLayout& layout) {
  Peers& peers = *comm_.transport().peers();
  peers.reserve(layout.bytes());
  char* region = peers.region();
  mem_.place_scratch(region + layout.scratch_at, layout.scratch_B);
  return {region, region + layout.out_at};
}

}  // namespace commlab
