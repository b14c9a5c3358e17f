// The counted transport, under mpirun: bytes, messages and steps are counted
// exactly, and messages larger than INT_MAX bytes arrive whole.
#include <mpi.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <climits>
#include <vector>

#include "core/comm/comm.hpp"
#include "core/comm/recorder.hpp"
#include "core/transports/make_transport.hpp"
#include "tests/support/catch_run.hpp"

using namespace commlab;

TEST_CASE("a ring of sendrecv counts every byte, message and step") {
  Comm comm(MPI_COMM_WORLD, make_transport);
  const int P = comm.size(), me = comm.rank();
  std::vector<char> out(100 + me, char(me)), in(100 + (me - 1 + P) % P);
  Recorder counted;
  Attached attached(comm, counted);
  comm.sendrecv((me + 1) % P, out.data(), out.size(), (me - 1 + P) % P, in.data(), in.size(), {3});
  Traffic t = counted.gather_counts(comm.transport(), Nodes());
  CHECK(in.front() == char((me - 1 + P) % P));
  CHECK(t.msgs_total == uint64_t(P));
  CHECK(t.steps == 4);
  CHECK(t.sent_max_rank_B == uint64_t(100 + P - 1));
  CHECK(t.sent_total_B == uint64_t(100 * P + P * (P - 1) / 2));
}

TEST_CASE("zero-byte messages are still messages") {
  Comm comm(MPI_COMM_WORLD, make_transport);
  if (comm.size() < 2) return;
  Recorder counted;
  Attached attached(comm, counted);
  char c = 0;
  if (comm.rank() == 0) comm.send(1, &c, 0, {0});
  if (comm.rank() == 1) comm.recv(0, &c, 0, {0});
  Traffic t = counted.gather_counts(comm.transport(), Nodes());
  CHECK(t.msgs_total == 1);
  CHECK(t.sent_total_B == 0);
}

// The transport posts a step's sends before its receives (an irecv waits
// for the next send, wait or test). Neither may leave a peer blocked in its
// own send: two ranks that each post a receive, then send to the other
// blocking, or isend and wait for the sends alone, both finish. 1 MiB is
// past every transport's eager limit, so each send needs the receive. A
// hang here ends at the test's timeout.
TEST_CASE("a receive not yet posted never holds up a peer's send") {
  Comm comm(MPI_COMM_WORLD, make_transport);
  if (comm.size() < 2 || comm.rank() > 1) return;
  const int me = comm.rank(), peer = 1 - me;
  const size_t B = size_t{1} << 20;
  std::vector<char> out(B, char(me + 1)), in(B);
  comm.irecv(peer, in.data(), B, {0});
  comm.send(peer, out.data(), B, {0});
  comm.wait_all();
  CHECK(in[B - 1] == char(peer + 1));

  std::fill(in.begin(), in.end(), 0);
  comm.isend(peer, out.data(), B, {1});
  comm.irecv(peer, in.data(), B, {1});
  comm.wait_sends();
  comm.wait_all();
  CHECK(in[B - 1] == char(peer + 1));
}

TEST_CASE("a message over INT_MAX bytes arrives whole", "[large]") {
  Comm comm(MPI_COMM_WORLD, make_transport);
  if (comm.size() != 2) return;
  const size_t big = size_t{INT_MAX} + 4097;
  const int me = comm.rank(), peer = 1 - me;
  std::vector<unsigned char> buf(big);
  auto mark = [](size_t i, int who) { return static_cast<unsigned char>((i * 7 + who) & 0xff); };
  auto check = [&](int who) {
    for (size_t i : {size_t{0}, size_t{1} << 30, big - 1}) REQUIRE(buf[i] == mark(i, who));
  };
  for (size_t i : {size_t{0}, size_t{1} << 30, big - 1}) buf[i] = mark(i, me);

  Recorder counted;
  Attached attached(comm, counted);
  if (me == 0)
    comm.send(1, buf.data(), big, {0});
  else {
    comm.recv(0, buf.data(), big, {0});
    check(0);
  }
  CHECK(counted.gather_counts(comm.transport(), Nodes()).sent_total_B == big);

  // sendrecv with a big send against an empty receive, and the other way round.
  for (size_t i : {size_t{0}, size_t{1} << 30, big - 1}) buf[i] = mark(i, me);
  char none = 0;
  if (me == 0)
    comm.sendrecv(peer, buf.data(), big, peer, &none, 0, {1});
  else {
    comm.sendrecv(peer, &none, 0, peer, buf.data(), big, {1});
    check(0);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rc = catch_run(argc, argv);
  int worst = 0;
  MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return worst;
}
