// The traffic models against hand-worked cases; the MPI tests then assert
// that the counted traffic equals these models exactly.
#include <catch2/catch.hpp>

#include "allreduce_algos/allreduce.hpp"

using namespace commlab;

TEST_CASE("ring: each rank sends 2(P-1)/P of the buffer when P divides it") {
  Traffic t = model_ring(4, 8, 4);  // N = 32 B, chunks of 8 B
  CHECK(t.sent_max_rank_B == 48);
  CHECK(t.recv_max_rank_B == 48);
  CHECK(t.sent_total_B == 4 * 48);
  CHECK(t.msgs_total == 4 * 6);
  CHECK(t.steps == 6);
  CHECK(t.critical_path_B == 6 * 8);
}

TEST_CASE("ring: uneven chunks, the busiest rank and the total") {
  Traffic t = model_ring(4, 5, 1);  // chunks 2 1 1 1; rank r skips chunks r+1 and r+2
  CHECK(t.sent_max_rank_B == 8);
  CHECK(t.sent_total_B == 2 * 3 * 5);
  Traffic small = model_ring(5, 2, 1);  // fewer elements than ranks: empty chunks still go
  CHECK(small.msgs_total == 5 * 8);
  CHECK(small.sent_total_B == 2 * 4 * 2);
}

TEST_CASE("ring and tree and master-worker do nothing at P = 1") {
  for (auto model : {model_ring, model_tree, model_master_worker}) {
    Traffic t = model(1, 100, 4);
    CHECK(t.sent_total_B == 0);
    CHECK(t.msgs_total == 0);
    CHECK(t.steps == 0);
  }
}

TEST_CASE("master-worker: the master receives (P-1)N and sends it back") {
  Traffic t = model_master_worker(5, 10, 8);  // N = 80 B
  CHECK(t.recv_max_rank_B == 4 * 80);
  CHECK(t.sent_max_rank_B == 4 * 80);
  CHECK(t.sent_total_B == 8 * 80);
  CHECK(t.msgs_total == 8);
  CHECK(t.steps == 8);
}

TEST_CASE("tree: shape and traffic of binary trees") {
  // P = 7 is a full tree of depth 2: node 1 gets 2 children's sums, sends one
  // up, then gets one and sends two down.
  Traffic full = model_tree(7, 1, 4);
  CHECK(full.steps == 4);
  CHECK(full.sent_max_rank_B == 3 * 4);
  CHECK(full.recv_max_rank_B == 3 * 4);
  CHECK(full.sent_total_B == 2 * 6 * 4);
  CHECK(full.msgs_total == 12);
  // P = 4: root has children 1 and 2, node 1 has child 3.
  Traffic four = model_tree(4, 1, 4);
  CHECK(four.steps == 4);
  CHECK(four.sent_max_rank_B == 2 * 4);
  // P = 8: node 3 has the single child 7, depth 3.
  CHECK(model_tree(8, 1, 1).steps == 6);
  CHECK(model_tree(2, 1, 1).steps == 2);
  CHECK(model_tree(3, 1, 1).steps == 2);
}

TEST_CASE("taught formulas as brief.md writes them") {
  const auto& mw = find_allreduce("master_worker");
  const auto& ring = find_allreduce("ring");
  const auto& tree = find_allreduce("tree");
  CHECK(mw.taught_T(4, 1000) == 3000);
  CHECK(ring.taught_T(4, 1000) == 1500);
  CHECK(tree.taught_T(8, 1000) == 3000);
  // The ring formula is exactly bytes sent per rank when P divides N.
  CHECK(ring.taught_T(4, 32) == model_ring(4, 8, 4).sent_max_rank_B);
  // The master-worker one is the master's reduce phase, half its traffic.
  CHECK(mw.taught_T(5, 80) * 2 == model_master_worker(5, 10, 8).sent_total_B);
}
