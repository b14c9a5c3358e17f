// The collectives' traffic models against hand-worked cases, the helpers their
// schedules share, and the barrier's early-leaver test. The MPI tests then
// assert that the counted traffic equals these models exactly.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <tuple>
#include <vector>

#include "collectives/algorithms.hpp"
#include "collectives/bine.hpp"
#include "collectives/butterfly.hpp"
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

namespace {
// A model's messages as (step, from, to), sorted.
std::vector<std::tuple<int, int, int>> edges(const Traffic& t) {
  std::vector<std::tuple<int, int, int>> out;
  for (const Message& m : t.messages) out.emplace_back(m.step, m.from, m.to);
  std::sort(out.begin(), out.end());
  return out;
}
using Edges = std::vector<std::tuple<int, int, int>>;

// Every rank v > 0 receives exactly once, from a rank that got the data in an
// earlier step and sends it on only in later steps, in ceil(log2 P) steps.
void check_bine_tree(int P, BineOrder order) {
  const BineTree& tree = BineTree::of(P, order);
  INFO("P " << P << (order == BineOrder::doubling ? " doubling" : " halving"));
  REQUIRE(tree.steps == binomial_rounds(P));
  std::vector<int> received(P, 0);
  for (int u = 0; u < P; ++u)
    for (int t = 0; t < tree.steps; ++t)
      if (const int child = tree.child(u, t); child >= 0) {
        REQUIRE(tree.got[u] < t);  // sends only what it has
        REQUIRE(tree.got[child] == t);
        REQUIRE(tree.parent(child) == u);
        ++received[child];
      }
  CHECK(tree.got[0] == -1);
  CHECK(received[0] == 0);
  for (int v = 1; v < P; ++v) REQUIRE(received[v] == 1);
}
}  // namespace

TEST_CASE("bcast and reduce bine: the binomial tree's bytes, along Swing's partners") {
  // P = 8, N = 100 B, the far partner first (rho(2), rho(1), rho(0) = 3, -1,
  // 1): step 0 0->3; step 1 0->7, 3->4; step 2 0->1, 3->2, 7->6, 4->5. The
  // root sends 3N, everyone else receives N: 7 messages, one widest N a step.
  check(model_bcast_bine(8, 25, 4, 0), 300, 100, 700, 7, 3, 300);
  CHECK(edges(model_bcast_bine(8, 25, 4, 0)) ==
        Edges{{0, 0, 3}, {1, 0, 7}, {1, 3, 4}, {2, 0, 1}, {2, 3, 2}, {2, 4, 5}, {2, 7, 6}});
  // P = 6, root 2, N = 80 B. Relative ranks at positions 0 1 2 3 4 7 of the
  // P = 8 tree (5 and 6, two of the last step's leaves, dropped): v 0->3;
  // 0->5, 3->4; 0->1, 3->2, i.e. ranks (v + 2) mod 6: 2->5; 2->1, 5->0;
  // 2->3, 5->4. The root sends 3N, rank 5 2N.
  check(model_bcast_bine(6, 10, 8, 2), 240, 80, 400, 5, 3, 240);
  CHECK(edges(model_bcast_bine(6, 10, 8, 2)) ==
        Edges{{0, 2, 5}, {1, 2, 1}, {1, 5, 0}, {2, 2, 3}, {2, 5, 4}});
  // Reduce: the broadcast's tree backwards, the root receiving once a step,
  // step k at distance |rho(k)| as the binomial reduce's at 2^k. P = 8: step 0
  // 1->0, 2->3, 6->7, 5->4; step 1 7->0, 4->3; step 2 3->0.
  check(model_reduce_bine(8, 25, 4, 0), 100, 300, 700, 7, 3, 300);
  CHECK(edges(model_reduce_bine(8, 25, 4, 0)) ==
        Edges{{0, 1, 0}, {0, 2, 3}, {0, 5, 4}, {0, 6, 7}, {1, 4, 3}, {1, 7, 0}, {2, 3, 0}});
  // P = 6, root 5: positions 5 and 6 (step 0 senders) dropped, v 5 at
  // position 7: v 1->0, 2->3; 5->0, 4->3; 3->0, i.e. ranks (v + 5) mod 6:
  // 0->5, 1->2; 4->5, 3->2; 2->5. The root receives 3N, rank 2 2N.
  check(model_reduce_bine(6, 10, 8, 5), 80, 240, 400, 5, 3, 240);
  CHECK(edges(model_reduce_bine(6, 10, 8, 5)) ==
        Edges{{0, 0, 5}, {0, 1, 2}, {1, 3, 2}, {1, 4, 5}, {2, 2, 5}});
  for (Message m : model_reduce_bine(6, 10, 8, 5).messages) CHECK(m.arrival == Arrival::reduced);
}

TEST_CASE("bine trees: every rank receives once, from a rank that had the data") {
  for (BineOrder order : {BineOrder::doubling, BineOrder::halving}) {
    for (int p2 = 1; p2 <= 1 << 14; p2 *= 2) check_bine_tree(p2, order);
    for (int P = 1; P <= 300; ++P) check_bine_tree(P, order);
    check_bine_tree(1000, order);
  }
  // The halving order's steps: the far partner first.
  const BineTree& halving = BineTree::of(8, BineOrder::halving);
  CHECK(halving.got == std::vector<int>{-1, 2, 2, 0, 1, 2, 2, 1});
}

// scatter_bine and gather_bine send a subtree's parts as one run of the preorder.
TEST_CASE("bine trees: every subtree is a run of the preorder") {
  CHECK(BineTree::of(8, BineOrder::halving).preorder == std::vector<int>{0, 3, 4, 5, 2, 7, 6, 1});
  std::vector<int> Ps;
  for (int P = 1; P <= 300; ++P) Ps.push_back(P);
  Ps.push_back(1000);
  for (int P : Ps) {
    const BineTree& tree = BineTree::of(P, BineOrder::halving);
    INFO("P " << P);
    REQUIRE(tree.preorder.size() == size_t(P));
    for (int i = 0; i < P; ++i) REQUIRE(tree.first[tree.preorder[i]] == i);
    for (int v = 0; v < P; ++v) {
      int inside = 1, next = tree.first[v] + 1;  // children's runs follow v's, in send order
      for (int t = tree.got[v] + 1; t < tree.steps; ++t)
        if (const int c = tree.child(v, t); c >= 0) {
          REQUIRE(tree.first[c] == next);
          next += tree.span[c], inside += tree.span[c];
        }
      REQUIRE(tree.span[v] == inside);
    }
  }
}

TEST_CASE("scatter and gather bine: the binomial tree's bytes, a subtree's parts a message") {
  // count 10 at P = 4, parts 3 3 2 2 elements of 4 B; the tree 0->3 | 0->1, 3->2,
  // so rank 3 gets parts 3 and 2 (16 B) in step 0.
  check(model_scatter_bine(4, 10, 4, 0), 28, 16, 36, 3, 2, 28);
  check(model_gather_bine(4, 10, 4, 0), 16, 28, 36, 3, 2, 28);
  CHECK(edges(model_scatter_bine(8, 8, 1, 0)) ==
        Edges{{0, 0, 3}, {1, 0, 7}, {1, 3, 4}, {2, 0, 1}, {2, 3, 2}, {2, 4, 5}, {2, 7, 6}});
  CHECK(edges(model_gather_bine(8, 8, 1, 0)) ==
        Edges{{0, 1, 0}, {0, 2, 3}, {0, 5, 4}, {0, 6, 7}, {1, 4, 3}, {1, 7, 0}, {2, 3, 0}});
  // Root 2 at P = 6, count 13: parts of 3 elements (rank 0) and 2 (the rest).
  // Counted from the root, v = 0 .. 5 are ranks 2 3 4 5 0 1, the tree 0->3 |
  // 0->5, 3->4 | 0->1, 3->2 (bine.hpp): v 3 gets v 3 4 2 (ranks 5 0 4: 7
  // elements), then passes v 4 (rank 0: 3) and v 2 (rank 4: 2) on.
  const Traffic t = model_scatter_bine(6, 13, 4, 2);
  CHECK(t.sent_max_rank_B == 4 * 11);  // the root: all but its own part
  CHECK(t.recv_max_rank_B == 4 * 7);
  CHECK(t.sent_total_B == 4 * (7 + 2 + 3 + 2 + 2));
  CHECK(t.msgs_total == 5);
  CHECK(t.steps == 3);
}

// All-gather and reduce-scatter bine: the butterfly's halves with Swing's
// partners (allgather_bine.cpp). P = 8, parts of 8 B: 8, 16, 32 B a rank
// (the all-gather) or 32, 16, 8 (the reduce-scatter). P = 6, parts of 10 B:
// ranks 0 and 2 fold into 1 and 3 (virtual ranks 0 and 1, blocks of 20 B;
// ranks 4 and 5 are virtual 2 and 3, 10 B), positions v 0 3 1 2:
//   all-gather      fold 0->1, 2->3 (10) | v0<->v3, v1<->v2 (20 one way, 10
//                   the other) | v0<->v1, v2<->v3 (30 each) | 1->0, 3->2 (60)
//   reduce-scatter  fold 0->1, 2->3 (60) | v0<->v1, v2<->v3 (30 each) |
//                   v0<->v3, v1<->v2 (10 from v0 and v1, 20 from v2 and v3) |
//                   1->0, 3->2 (10)
TEST_CASE("all-gather and reduce-scatter bine: the butterfly's bytes, folded for P = 6") {
  check(model_allgather_bine(8, 64, 1, 0), 56, 56, 448, 24, 3, 56);
  check(model_reduce_scatter_bine(8, 64, 1, 0), 56, 56, 448, 24, 3, 56);
  check(model_allgather_bine(6, 60, 1, 0), 110, 60, 320, 12, 4, 120);
  check(model_reduce_scatter_bine(6, 60, 1, 0), 60, 110, 320, 12, 4, 120);
  CHECK(
      edges(model_allgather_bine(4, 4, 1, 0)) ==
      Edges{
          {0, 0, 3}, {0, 1, 2}, {0, 2, 1}, {0, 3, 0}, {1, 0, 1}, {1, 1, 0}, {1, 2, 3}, {1, 3, 2}});
  for (Message m : model_reduce_scatter_bine(6, 60, 1, 0).messages)
    CHECK((m.arrival == Arrival::reduced) == (m.step < 3));
}

// All-to-all bine: P/2 blocks a step to Swing's partners (alltoall_bine.cpp).
// P = 8, blocks of 8 B: 32 B a step, 3 steps. P = 6: the pairwise exchange.
TEST_CASE("all-to-all bine: half the blocks a step, log2 P steps; other P pairwise") {
  check(model_alltoall_bine(8, 64, 1, 0), 96, 96, 768, 24, 3, 96);
  CHECK(
      edges(model_alltoall_bine(4, 4, 1, 0)) ==
      Edges{
          {0, 0, 1}, {0, 1, 0}, {0, 2, 3}, {0, 3, 2}, {1, 0, 3}, {1, 1, 2}, {1, 2, 1}, {1, 3, 0}});
  CHECK(edges(model_alltoall_bine(6, 60, 1, 0)) == edges(model_alltoall_pairwise(6, 60, 1, 0)));
  CHECK(remark_alltoall_bine(6) == "P is not a power of two: ran the pairwise exchange");
  CHECK(remark_alltoall_bine(8) == "");
}

TEST_CASE("bine trees: a message at distance rho(s) goes |rho(s)| ranks round the ring at most") {
  // Where the binomial tree's goes 2^s; dropping leaves only shortens the way.
  for (BineOrder order : {BineOrder::doubling, BineOrder::halving})
    for (int P = 2; P <= 300; ++P) {
      const BineTree& tree = BineTree::of(P, order);
      for (int v = 1; v < P; ++v) {
        const int s = tree.distance_step(tree.got[v]), d = (v - tree.parent(v) + P) % P;
        INFO("P " << P << " v " << v);
        CHECK(std::min(d, P - d) <= std::abs(swing_rho(s)));
      }
    }
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
