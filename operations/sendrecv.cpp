// send/recv: in each pair of ranks (0,1), (2,3), ... each gets the other's
// buffer. N = the message, per rank. Measured as a blocking ping-pong (latency:
// the one-way time; bandwidth: N / that) and as a non-blocking exchange,
// against MPI_Send/MPI_Recv and MPI_Isend/MPI_Irecv called directly.
#include "collectives/algorithms.hpp"
#include "operation.hpp"

namespace commlab {

// Each algorithm's entry, defined in its own file (collectives/sendrecv.def).
#define COMMLAB_ALGORITHM(op, name) CollectiveAlgorithm op##_##name##_algorithm();
#include "collectives/sendrecv.def"
#undef COMMLAB_ALGORITHM

namespace {

void mpi_pingpong(const CollectiveJob& j) {
  const int me = j.comm.rank(), peer = sendrecv_peer(j.comm.size(), me);
  if (peer < 0) return;
  const int n = static_cast<int>(j.count);
  MPI_Datatype t = j.red.mpi_type();
  MPI_Comm c = j.comm.mpi();
  if (me % 2 == 0) {
    MPI_Send(j.in, n, t, peer, 0, c);
    MPI_Recv(j.out, n, t, peer, 0, c, MPI_STATUS_IGNORE);
  } else {
    MPI_Recv(j.out, n, t, peer, 0, c, MPI_STATUS_IGNORE);
    MPI_Send(j.in, n, t, peer, 0, c);
  }
}

void mpi_exchange(const CollectiveJob& j) {
  const int peer = sendrecv_peer(j.comm.size(), j.comm.rank());
  if (peer < 0) return;
  const int n = static_cast<int>(j.count);
  MPI_Request req[2];
  MPI_Irecv(j.out, n, j.red.mpi_type(), peer, 0, j.comm.mpi(), &req[0]);
  MPI_Isend(j.in, n, j.red.mpi_type(), peer, 0, j.comm.mpi(), &req[1]);
  MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
}

class Sendrecv : public Operation {
 public:
  Sendrecv() {
    name = "sendrecv";
    summary =
        "point to point: ping-pong latency and bandwidth, and a non-blocking exchange, in pairs "
        "(0,1), (2,3), ...";
    in_place_form = InPlace::never;
    // One ping-pong run is a round trip: report half of it.
    algorithms = {
#define COMMLAB_ALGORITHM(op, name) op##_##name##_algorithm(),
#include "collectives/sendrecv.def"
#undef COMMLAB_ALGORITHM
    };
    library = {{"MPI_Send/MPI_Recv", "", mpi_pingpong, "pingpong"},
               {"MPI_Isend/MPI_Irecv", "", mpi_exchange, "exchange"}};
  }
  double busbw_factor(int) const override { return 1; }
  Layout layout(int P, int r, int, size_t N, bool) const override {
    const size_t n = sendrecv_peer(P, r) < 0 ? 0 : N;
    return {n, n};
  }
  std::optional<size_t> starts_as(int, int, int, size_t, size_t) const override { return {}; }
  Source source(int P, int r, int, size_t, bool, size_t i) const override {
    return {sendrecv_peer(P, r), i};
  }
};

}  // namespace

std::unique_ptr<Operation> make_sendrecv() { return std::make_unique<Sendrecv>(); }

}  // namespace commlab
