// A run decided once, before anything is measured: the root, the nodes
// (real, or --node-size's blocks on COMMLAB_TOPOLOGY's network), the device,
// the transport and who signals over direct access, each refusal agreed by
// every rank (one line, exit 2: agree_or_exit); then what it builds from
// them: the memory the algorithms copy and reduce through, the transport on
// the Comm, NCCL, the clock offsets, the links' counters, and what every row
// says of the run (RunInfo). The Runner (runner.hpp) only measures on it.
#pragma once
#include <string>
#include <vector>

#include "core/comm/clock.hpp"
#include "core/comm/comm.hpp"
#include "core/comm/nodes.hpp"
#include "core/device/memory.hpp"
#include "core/transports/direct_transport.hpp"
#include "devices.hpp"
#include "link_counters.hpp"
#include "options.hpp"
#include "results.hpp"

namespace commlab {

class RunSetup {
 public:
  // Collective. `nodes`: where the ranks really run.
  RunSetup(Comm& comm, const Options& opts, const Nodes& nodes);

  Memory& memory() { return mem_; }
  // Where jobs run: the real nodes, or blocks of --node-size ranks.
  const Nodes& nodes() const { return nodes_; }
  Nccl* nccl() { return device_.nccl.get(); }  // null: no NCCL rows
  TransportKind transport() const { return device_.transport; }
  bool direct() const { return device_.transport == TransportKind::direct; }
  // Ranks share one GPU over direct access: the time model is the GPU's memory.
  bool shares_gpu() const { return direct() && device_.ranks_per_gpu > 1; }
  // Whether library rows are counted (Open MPI's monitoring, library_monitor.hpp).
  bool library_counted() const { return library_counted_; }
  const RunInfo& info() const { return info_; }  // what every row says of the run
  std::string heading_lines(bool has_data) const { return device_.heading(has_data); }
  const ClockOffset& clock() const { return clock_; }  // this rank's clock to rank 0's
  LinkCounters& links() { return links_; }
  // MPI_COMM_WORLD's rank r is rank_of_world()[r] of the run's communicator.
  const std::vector<int>& rank_of_world() const { return rank_of_world_; }

  // COMMLAB_LATE_RANK=R:MS (tests, bench/straggler.sh): rank R arrives MS
  // milliseconds late at every timed call.
  struct Late {
    int rank = -1;
    double by_s = 0;
  };
  const Late& late() const { return late_; }

  // The direct transport (--transport direct) runs on registered buffers,
  // laid out alike in every rank's region (RegionLayout). Collective, every
  // rank asking the same layout: the memory's scratch now lives there.
  // Earlier pointers into the region are gone.
  struct Registered {
    char *in, *out;
  };
  Registered register_buffers(const RegionLayout& layout);

 private:
  std::string pretend_on_network(const Topology& network);
  void describe_run();

  Comm& comm_;
  const Options& opts_;
  ClockOffset clock_;
  Late late_;
  Memory mem_;
  DeviceSetup device_;
  Nodes nodes_;
  LinkCounters links_;  // the links' own counters, where the network has them
  RunInfo info_;
  bool library_counted_ = false;    // the MPI reports the library's messages
  std::vector<int> rank_of_world_;  // MPI_COMM_WORLD's ranks in this Comm's
};

}  // namespace commlab
