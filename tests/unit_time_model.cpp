// The time model's inputs (Traffic's per-step paths) on hand-worked
// schedules, the three new all-reduce algorithms' models, and the choices
// made from them (the segment, auto).
#include <catch2/catch.hpp>

#include "collectives/collective.hpp"
#include "core/time_model.hpp"

using namespace commlab;

TEST_CASE("time model: the ring's steps, ports and reductions at P = 4") {
  Traffic t = allreduce_ring_algorithm().model(4, 8, 4, 0);  // chunks of 8 B
  CHECK(t.latency_msgs == 6);         // one message per rank per step
  CHECK(t.port_path_B == 6 * 8);      // each rank sends and receives a chunk a step
  CHECK(t.reduce_path_B == 3 * 8);    // the reduce-scatter's three steps reduce a chunk
  const CostModel m{1, 0.01, 0.001, "test"};
  CHECK(m.predict_us(t) == Approx(6 * 1 + 48 * 0.01 + 24 * 0.001));
}

TEST_CASE("time model: the tree's inner node receives two children's N in one step") {
  Traffic t = allreduce_tree_algorithm().model(3, 10, 1, 0);  // root 0, children 1 and 2
  CHECK(t.steps == 2);
  CHECK(t.port_path_B == 20 + 20);  // reduce: the root takes 2N; broadcast: it sends 2N
  CHECK(t.critical_path_B == 10 + 10);
  CHECK(t.reduce_path_B == 20);
}

TEST_CASE("segmented ring: the ring's bytes in k messages a chunk, one reduction left open") {
  const CollectiveAlgorithm seg = allreduce_segmented_ring_algorithm();
  const Traffic ring = allreduce_ring_algorithm().model(4, 400, 4, 0);  // chunks of 400 B
  const Traffic t = seg.model(JobShape{4, 400, 4, 0, {}, 100});         // 4 segments a chunk
  CHECK(t.sent_max_rank_B == ring.sent_max_rank_B);
  CHECK(t.sent_total_B == ring.sent_total_B);
  CHECK(t.steps == ring.steps);
  CHECK(t.msgs_total == 4 * (3 * 4 + 3));  // reduce-scatter in segments, all-gather whole
  CHECK(t.reduce_path_B == 3 * 100);       // only the last segment's reduction shows
  CHECK(seg.model(JobShape{4, 400, 4, 0, {}, 0}).msgs_total == ring.msgs_total);
}

TEST_CASE("double binary tree: every rank sends at most 2N, in 2 log2 P steps") {
  const CollectiveAlgorithm dbt = allreduce_double_binary_tree_algorithm();
  for (int P : {8, 16, 64}) {
    const Traffic t = dbt.model(P, 1000, 1, 0);
    CHECK(t.sent_max_rank_B == 2000);
    CHECK(t.steps == 2 * uint64_t(std::log2(P)));
  }
  const Traffic two = dbt.model(2, 1000, 1, 0);  // each rank roots one half
  CHECK(two.sent_max_rank_B == 1000);
}

TEST_CASE("hierarchical: only leaders cross nodes, with the ring's share of L leaders") {
  const CollectiveAlgorithm h = allreduce_hierarchical_algorithm();
  const size_t N = 1200;
  const Traffic nodes = h.model(JobShape{6, N, 1, 0, Nodes::blocks(6, 2)});
  // Leaders 0, 2, 4: the ring over 3 sends 2(3-1)/3 N; each also sends N to its partner.
  CHECK(nodes.sent_max_rank_B == 2 * 2 * N / 3 + N);
  CHECK(nodes.steps == 1 + 4 + 1);
  const Traffic per_rank = h.model(JobShape{6, N, 1, 0, Nodes::blocks(6, 1)});
  CHECK(per_rank.same_counts(allreduce_ring_algorithm().model(6, N, 1, 0)));
}

TEST_CASE("the segment the model picks grows as the square root of the chunk") {
  const CostModel m{4, 0.001, 0.0001, "test"};  // alpha 4 us, gamma 0.1 ns/B
  CHECK(best_segment_B(m, 1 << 20, 4) == 4 * size_t(std::sqrt(4.0 * (1 << 20) / 0.0001) / 4));
  CHECK(best_segment_B(m, 100, 4) == 100);  // never more than the chunk
  CHECK(best_segment_B(CostModel{}, 1000, 4) == 1000);  // no gamma: one segment
}
