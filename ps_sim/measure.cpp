#include "measure.hpp"

#include <mpi.h>

#include "allreduce_algos/ring.hpp"
#include "core/comm/recorder.hpp"

namespace commlab::ps {

namespace {

// Every rank in its role, counting from here; the slowest rank's seconds.
double train(Comm& comm, const Config& c, const std::vector<Shard>& shards, RankStats& st,
             Packed& owned) {
  MPI_Barrier(comm.mpi());
  Recorder counted;
  Attached attached(comm, counted);
  const double t0 = MPI_Wtime();
  owned = c.mode == Mode::ps          ? train_parameter_server(comm, counted, c, shards, st)
          : c.mode == Mode::colocated ? train_colocated(comm, counted, c, shards, st)
                                      : train_allreduce(comm, counted, c, st);
  double elapsed_s = MPI_Wtime() - t0;
  MPI_Allreduce(MPI_IN_PLACE, &elapsed_s, 1, MPI_DOUBLE, MPI_MAX, comm.mpi());
  return elapsed_s;
}

// Every rank against its exact bytes; the ring against its model (collective).
TrafficCheck check_traffic(Comm& comm, const Config& c, const std::vector<Shard>& shards,
                           const RankStats& st) {
  if (c.mode == Mode::mpi) return TrafficCheck::none;  // MPI_Allreduce's bytes are its own
  int bad = 0;
  if (auto want = expected_bytes(c, shards, comm.rank())) bad = *want != st.bytes;
  if (c.mode == Mode::ring) {
    const Traffic m = allreduce_ring_algorithm().model(c.P, c.shape.params(), 4, 0);
    RoleBytes most = st.bytes;  // what the busiest rank moved, role by role
    static_assert(sizeof most == 4 * sizeof(uint64_t), "reduced as four uint64_t");
    MPI_Allreduce(MPI_IN_PLACE, &most, 4, MPI_UINT64_T, MPI_MAX, comm.mpi());
    bad = most.worker_out != m.sent_max_rank_B * c.iters ||
          most.worker_in != m.recv_max_rank_B * c.iters;
  }
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, comm.mpi());
  return bad ? TrafficCheck::differs : TrafficCheck::exact;
}

Measured figures(const Config& c, int rank, const RankStats& st) {
  const bool worker = c.mode == Mode::ps ? rank >= c.S : true;
  const bool server = c.mode == Mode::ps ? rank < c.S : c.mode == Mode::colocated;
  return {double(worker),
          double(server),
          st.compute,
          st.push,
          st.wait,
          st.idle,
          st.aggregate,
          st.pull,
          double(st.bytes.worker_in),
          double(st.bytes.worker_out),
          double(st.bytes.server_in),
          double(st.bytes.server_out)};
}

// Each rank's figures, the loss and the staleness, on rank 0 (collective).
void gather_figures(Comm& comm, const Config& c, RankStats& st, Measurement& m) {
  const Measured mine = figures(c, comm.rank(), st);
  const int doubles = sizeof mine / sizeof(double);
  m.ranks.resize(comm.rank() == 0 ? comm.size() : 0);
  MPI_Gather(&mine, doubles, MPI_DOUBLE, m.ranks.data(), doubles, MPI_DOUBLE, 0, comm.mpi());
  m.loss.assign(c.iters, 0.0);
  st.loss.resize(c.iters, 0.0);
  MPI_Reduce(st.loss.data(), m.loss.data(), c.iters, MPI_DOUBLE, MPI_SUM, 0, comm.mpi());
  m.staleness.assign(c.iters, 0);
  st.staleness.resize(c.iters, 0);
  MPI_Reduce(st.staleness.data(), m.staleness.data(), c.iters, MPI_UINT64_T, MPI_SUM, 0,
             comm.mpi());
}

// The final model on rank 0, shard by shard (collective).
std::vector<float> gather_model(Comm& comm, const Config& c, const std::vector<Shard>& shards,
                                const Packed& owned) {
  int n = static_cast<int>(owned.size());
  std::vector<int> counts(comm.size()), displs(comm.size());
  MPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm.mpi());
  for (int r = 1; r < comm.size(); ++r) displs[r] = displs[r - 1] + counts[r - 1];
  std::vector<float> packed(comm.rank() == 0 ? displs.back() + counts.back() : 0);
  MPI_Gatherv(owned.data(), n, MPI_FLOAT, packed.data(), counts.data(), displs.data(), MPI_FLOAT, 0,
              comm.mpi());
  if (comm.rank() != 0) return {};
  if (c.S == 0) return packed;
  std::vector<float> weights(c.shape.params(), 0.0f);
  for (int k = 0; k < c.S; ++k) shards[k].unpack(packed.data() + displs[k], weights.data());
  return weights;
}

}  // namespace

Measurement measure(Comm& comm, const Config& c, const std::vector<Shard>& shards) {
  RankStats st;
  Packed owned;
  Measurement m;
  m.elapsed_s = train(comm, c, shards, st, owned);
  m.traffic = check_traffic(comm, c, shards, st);
  gather_figures(comm, c, st, m);
  m.weights = gather_model(comm, c, shards, owned);
  return m;
}

}  // namespace commlab::ps
