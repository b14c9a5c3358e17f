// The collectives' traffic models against hand-worked cases, the helpers their
// schedules share, and the barrier's early-leaver test. The MPI tests then
// assert that the counted traffic equals these models exactly.
#include <catch2/catch.hpp>

#include "collectives/algorithms.hpp"
#include "operations/barrier.hpp"
#include "operations/operation.hpp"

using namespace commlab;

namespace {
void check(const Traffic& t, uint64_t sent_max, uint64_t recv_max, uint64_t total, uint64_t msgs,
           uint64_t steps, uint64_t critical) {
  CHECK(t.sent_max_rank_B == sent_max);
  CHECK(t.recv_max_rank_B == recv_max);
  CHECK(t.sent_total_B == total);
  CHECK(t.msgs_total == msgs);
  CHECK(t.steps == steps);
  CHECK(t.critical_path_B == critical);
}
}  // namespace

TEST_CASE("bcast: linear loads the root, the binomial tree takes ceil(log2 P) steps") {
  // N = 100 B at P = 5.
  check(model_bcast_linear(5, 25, 4, 2), 400, 100, 400, 4, 4, 400);
  check(model_bcast_binomial(5, 25, 4, 2), 300, 100, 400, 4, 3, 300);
  check(model_bcast_binomial(8, 25, 4, 0), 300, 100, 700, 7, 3, 300);
}

TEST_CASE("bcast scatter + all-gather: the root sends about 2N, not log2(P) N") {
  // P = 4, parts of 8 B. Scatter: root -> v2 16 B, root -> v1 8 B, v2 -> v3 8 B;
  // then every rank sends 3 parts round the ring.
  check(model_bcast_scatter_allgather(4, 8, 4, 0), 48, 40, 128, 15, 5, 16 + 8 + 3 * 8);
}

TEST_CASE("reduce: the binomial root receives once per round") {
  check(model_reduce_linear(6, 10, 8, 0), 80, 400, 400, 5, 5, 400);
  check(model_reduce_binomial(6, 10, 8, 5), 80, 240, 400, 5, 3, 240);
}

TEST_CASE("scatter and gather: uneven parts, any root") {
  // count 10 at P = 4: parts 3 3 2 2 elements of 4 B.
  check(model_scatter_linear(4, 10, 4, 1), 28, 12, 28, 3, 3, 28);
  check(model_gather_linear(4, 10, 4, 1), 12, 28, 28, 3, 3, 28);
  // Root 0: step 0 sends parts 2,3 (16 B) to rank 2; step 1 part 1 (12 B) to 1 and part 3 (8 B) 2
  // -> 3.
  check(model_scatter_binomial(4, 10, 4, 0), 28, 16, 36, 3, 2, 28);
  check(model_gather_binomial(4, 10, 4, 0), 16, 28, 36, 3, 2, 28);
  // Root 3: relative ranks 0 1 2 3 are ranks 3 0 1 2, parts 2 3 3 2.
  check(model_scatter_binomial(4, 10, 4, 3), 32, 20, 40, 3, 2, 20 + 12);
}

TEST_CASE("all-gather: ring, recursive doubling and Bruck move the same bytes per rank") {
  // count 10 at P = 4 (parts 3 3 2 2): rank r sends every part but r+1's.
  check(model_allgather_ring(4, 10, 4, 0), 32, 32, 120, 12, 3, 36);
  check(model_allgather_recursive_doubling(4, 8, 4, 0), 24, 24, 96, 8, 2, 24);
  check(model_allgather_bruck(5, 5, 4, 0), 16, 16, 80, 15, 3, 16);
  // Not a power of two: recursive doubling is Bruck.
  CHECK(model_allgather_recursive_doubling(6, 100, 4, 0)
            .same_counts(model_allgather_bruck(6, 100, 4, 0)));
  CHECK(remark_allgather_recursive_doubling(6) != "");
  CHECK(remark_allgather_recursive_doubling(8) == "");
}

TEST_CASE("reduce-scatter and all-to-all: N minus one part per rank") {
  check(model_reduce_scatter_ring(4, 8, 4, 0), 24, 24, 96, 12, 3, 24);
  // count 10 at P = 4: rank 2 sends 8 elements; rank 0 receives 3 x its 3.
  check(model_reduce_scatter_pairwise(4, 10, 4, 0), 32, 36, 120, 12, 3, 36);
  check(model_alltoall_pairwise(4, 10, 4, 0), 32, 36, 120, 12, 3, 36);
}

TEST_CASE("sendrecv pairs ranks, and barriers send empty messages") {
  check(model_sendrecv_pingpong(5, 10, 4, 0), 40, 40, 160, 4, 2, 80);
  check(model_sendrecv_exchange(5, 10, 4, 0), 40, 40, 160, 4, 1, 40);
  check(model_barrier_linear(5, 0, 0, 3), 0, 0, 0, 8, 8, 0);
  check(model_barrier_dissemination(5, 0, 0, 0), 0, 0, 0, 15, 3, 0);
}

TEST_CASE("every model: nothing at P = 1, the root does not change the schedule's shape") {
  for (const char* name : {"sendrecv", "bcast", "reduce", "scatter", "gather", "allgather",
                           "reduce_scatter", "alltoall", "barrier"}) {
    const auto op = make_operation(name);
    for (const CollectiveAlgorithm& a : op->algorithms) {
      INFO(name << " " << a.name);
      Traffic one = a.model(1, 1000, 4, 0);
      CHECK(one.msgs_total == 0);
      CHECK(one.sent_total_B == 0);
      for (int P : {2, 3, 6, 7})
        for (size_t count : {0, 1, 5, 1001}) {
          Traffic t0 = a.model(P, count, 4, 0), tl = a.model(P, count, 4, P - 1);
          CHECK(t0.msgs_total == tl.msgs_total);  // bytes may move: subtrees hold other parts
          CHECK(t0.steps == tl.steps);
        }
    }
  }
}

TEST_CASE("binomial helpers") {
  CHECK(binomial_rounds(1) == 0);
  CHECK(binomial_rounds(2) == 1);
  CHECK(binomial_rounds(5) == 3);
  CHECK(binomial_rounds(8) == 3);
  CHECK(lowbit(12) == 4);
  CHECK(lowbit(7) == 1);
  CHECK(log2_exact(16) == 4);
}

TEST_CASE("parts counted from a rank are the buffer rotated, empty parts included") {
  for (int P : {1, 3, 4, 8})
    for (size_t count : {0, 1, 3, 10})
      for (int start = 0; start < P; ++start) {
        const Partition parts{count, P};
        const RotatedParts rel{parts, start};
        size_t next = 0;
        for (int u = 0; u < P; ++u) {
          INFO("P " << P << " count " << count << " start " << start << " u " << u);
          REQUIRE(rel.offset(u) == next);
          next += rel.size(u);
        }
        REQUIRE(rel.offset(P) == count);
      }
  char src[] = "abcdef", dst[7] = {};
  Memory host;
  rotate_copy(host, dst, src, 6, 2);
  CHECK(std::string(dst) == "cdefab");
}

TEST_CASE("part_of inverts offset") {
  for (int P : {1, 3, 4, 7})
    for (size_t count : {1, 3, 10, 101}) {
      const Partition parts{count, P};
      for (size_t i = 0; i < count; ++i) {
        int p = parts.part_of(i);
        REQUIRE(parts.offset(p) <= i);
        REQUIRE(i < parts.offset(p) + parts.size(p));
      }
    }
}

TEST_CASE("a barrier is broken only when a rank surely left before the last arrived") {
  BarrierTiming t{10.0, 0.001, {10.5, 10.0005, 9.9, 9.9985}, {0.001, 0.001, 0.001, 0.0001}};
  // Rank 1 might have left after the arrival (within the bounds); rank 3 surely did not.
  CHECK(early_leavers(t) == std::vector<int>{2, 3});
}
