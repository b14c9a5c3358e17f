// The time model's inputs (Traffic's per-step paths) on hand-worked
// schedules, the three new all-reduce algorithms' models, and the choices
// made from them (the segment, auto).
#include "core/comm/time_model.hpp"

#include <catch2/catch.hpp>

#include "allreduce_algos/algorithms.hpp"
#include "allreduce_algos/segmented_ring.hpp"
#include "collectives/algorithms.hpp"
#include "operations/predicted.hpp"

using namespace commlab;

namespace {

StepLoad total(const Traffic& t) {
  StepLoad sum;
  for (const StepLoad& s : t.path) {
    sum.msgs += s.msgs, sum.port_B += s.port_B, sum.reduces += s.reduces;
    sum.reduced_B += s.reduced_B, sum.in_flight += s.in_flight, sum.in_flight_B += s.in_flight_B;
  }
  return sum;
}

// A machine with straight lines: alpha + beta m to swap, gamma m to reduce.
CostModel lines(double alpha_us, double beta_us_per_B, double gamma_us_per_B) {
  CostModel m;
  m.exchange = {{0, 1e6}, {alpha_us, alpha_us + beta_us_per_B * 1e6}};
  m.reduce = {{0, 1e6}, {0, gamma_us_per_B * 1e6}};
  return m;
}
}  // namespace

TEST_CASE("time model: the ring's steps, ports and reductions at P = 4") {
  Traffic t = allreduce_ring_algorithm().model(4, 8, 4, 0);  // chunks of 8 B
  REQUIRE(t.path.size() == 6);
  const StepLoad sum = total(t);
  CHECK(sum.msgs == 6);           // one message per rank per step
  CHECK(sum.port_B == 6 * 8);     // each rank sends and receives a chunk a step
  CHECK(sum.reduced_B == 3 * 8);  // the reduce-scatter's three steps reduce a chunk
  CHECK(lines(1, 0.01, 0.001).predict_us(t) == Approx(6 * 1 + 48 * 0.01 + 24 * 0.001));
}

TEST_CASE("time model: a curve is linear between its points and beyond the last") {
  const Curve c{{0, 100, 200}, {1, 2, 4}};
  CHECK(c.at(0) == 1);
  CHECK(c.at(50) == Approx(1.5));
  CHECK(c.at(150) == Approx(3));
  CHECK(c.at(400) == Approx(8));
  CHECK(Curve{}.at(10) == 0);
}

TEST_CASE("time model: the tree's inner node receives two children's N in one step") {
  Traffic t = allreduce_tree_algorithm().model(3, 10, 1, 0);  // root 0, children 1 and 2
  CHECK(t.steps == 3);                                        // up together; down to 1, then to 2
  CHECK(total(t).port_B == 20 + 10 + 10);  // reduce: the root takes 2N; broadcast: N, then N
  CHECK(t.critical_path_B == 10 + 10 + 10);
  CHECK(total(t).reduced_B == 20);
  CHECK(total(t).reduces == 2);
}

TEST_CASE("segmented ring: the ring's bytes in k messages a chunk, one reduction left open") {
  const CollectiveAlgorithm seg = allreduce_segmented_ring_algorithm();
  const Traffic ring = allreduce_ring_algorithm().model(4, 400, 4, 0);  // chunks of 400 B
  const Traffic t = seg.model(JobShape{4, 400, 4, 0, {}, 100});         // 4 segments a chunk
  CHECK(t.sent_max_rank_B == ring.sent_max_rank_B);
  CHECK(t.sent_total_B == ring.sent_total_B);
  CHECK(t.steps == ring.steps);
  CHECK(t.msgs_total == 4 * (3 * 4 + 3));  // reduce-scatter in segments, all-gather whole
  CHECK(total(t).reduced_B == 3 * 100);    // the last segment's reduction, after the wire
  CHECK(total(t).in_flight_B == 3 * 300);  // the others, while the next one travels
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
  CHECK(per_rank.same_counts(
      allreduce_ring_algorithm().model(JobShape{6, N, 1, 0, Nodes::blocks(6, 1)})));
}

TEST_CASE("the segment the model picks: many where reductions hide, one where they cannot") {
  CostModel hides = lines(1, 0.001, 0.001);
  hides.overlap = 1;
  const size_t chunk_B = 1 << 20;
  const size_t seg = best_segment_B(hides, chunk_B, 4);
  CHECK(seg < chunk_B);
  CHECK(seg >= 4);
  CHECK(seg % 4 == 0);
  CHECK(best_segment_B(lines(1, 0.001, 0.001), chunk_B, 4) == chunk_B);  // overlap 0
  CHECK(best_segment_B(hides, 2, 4) == 2);  // less than an element: the chunk
}

TEST_CASE("auto's pick follows the machine: latency-bound small, bandwidth-bound large") {
  const auto op = make_operation("allreduce");
  const CostModel m = lines(5, 0.001, 0.0005);
  auto pick = [&](size_t count, bool maps_peers = false) {
    return op->algorithms[fastest(*op, predict(*op, m, JobShape{8, count, 4, 0}), maps_peers)].name;
  };
  CHECK(pick(1) == "recursive_doubling");  // log2 P steps
  const std::string big = pick(size_t{1} << 24);
  CHECK((big == "rabenseifner" || big == "ring" || big == "double_binary_tree"));
  // Where ranks read each other's memory: one step for a few bytes, two for many.
  CHECK(pick(1, true) == "one_shot");
  CHECK(pick(size_t{1} << 24, true) == "two_shot");
}

TEST_CASE("time model: the test-only probe scale moves alpha, beta, gamma and sets the overlap") {
  CostModel m = lines(2, 0.01, 0.001);
  m.overlap = 0.3;
  scale(m, {0.5, 2, 3, 1.0});
  CHECK(m.exchange.at(0) == Approx(1));                     // alpha x 0.5
  CHECK(m.exchange.at(1e6) == Approx(1 + 2 * 0.01 * 1e6));  // the slope x 2
  CHECK(m.reduce.at(1e6) == Approx(3 * 0.001 * 1e6));
  CHECK(m.overlap == 1.0);
  CostModel same = lines(2, 0.01, 0.001);
  scale(same, {});
  CHECK(same.exchange.at(1e6) == Approx(2 + 0.01 * 1e6));
  CHECK(same.source.empty());
}

// Ranks sharing one GPU (docs/time-model.md): a step's fixed cost, and the
// bytes every rank's copies and reductions move in its memory over its
// bandwidth; worked by hand at P = 4, N = 4 MiB (1 MiB chunks), 5 us a step
// and 1000 GB/s.
TEST_CASE("time model: ranks sharing a GPU, its memory the resource, worked by hand") {
  CostModel gpu;
  gpu.shared = SharedMemory{5, 1000};
  const size_t count = size_t(1) << 20;  // float32: 4 MiB
  const double MiB = 1 << 20;
  auto predict = [&](CollectiveAlgorithm a) { return gpu.predict_us(a.model(4, count, 4, 0)); };
  // The ring: 3 steps of 4 chunks reduced straight from the sender (3 x 1 MiB
  // each: the two terms and the sum), 3 of 4 chunks copied (2 x 1 MiB).
  CHECK(memory_B(allreduce_ring_algorithm().model(4, count, 4, 0)) == uint64_t(60 * MiB));
  CHECK(predict(allreduce_ring_algorithm()) == Approx(6 * 5 + 60 * MiB / 1e6));
  // One-shot: each rank one pass over its 3 peers' buffers and its own, and the sum: 5 x 4 MiB.
  CHECK(memory_B(allreduce_one_shot_algorithm().model(4, count, 4, 0)) == uint64_t(80 * MiB));
  CHECK(predict(allreduce_one_shot_algorithm()) == Approx(5 + 80 * MiB / 1e6));
  // Two-shot: its chunk from 4 terms (5 x 1 MiB), then 3 chunks read (2 x 1 MiB each).
  CHECK(memory_B(allreduce_two_shot_algorithm().model(4, count, 4, 0)) == uint64_t(44 * MiB));
  CHECK(predict(allreduce_two_shot_algorithm()) == Approx(2 * 5 + 44 * MiB / 1e6));
  // Recursive doubling: 2 steps, each rank reducing a whole 4 MiB buffer.
  CHECK(predict(allreduce_recursive_doubling_algorithm()) == Approx(2 * 5 + 96 * MiB / 1e6));
  // At 64 MiB two_shot moves less than one_shot: the GPU's model picks it.
  CHECK(gpu.predict_us(allreduce_two_shot_algorithm().model(4, 16 * count, 4, 0)) <
        gpu.predict_us(allreduce_one_shot_algorithm().model(4, 16 * count, 4, 0)));
  // A call's own cost (one launch and a host wait: its device program) is
  // added once, whatever the steps: it moves no choice.
  CostModel with_call = gpu;
  with_call.shared->call_us = 8;
  CHECK(with_call.predict_us(allreduce_ring_algorithm().model(4, count, 4, 0)) ==
        Approx(8 + 6 * 5 + 60 * MiB / 1e6));
  CHECK(with_call.predict_us(allreduce_one_shot_algorithm().model(4, count, 4, 0)) ==
        Approx(8 + 5 + 80 * MiB / 1e6));
  // A private buffer copied in by every rank at once: 4 ranks x 2 x 4 MiB.
  CHECK(gpu.copy_us(4 * MiB, 4) == Approx(32 * MiB / 1e6));
  // The ring's input copied into its result first, by every rank at once (4 x
  // 2 x 4 MiB); recursive doubling at P = 4 sums from its input into its
  // result and copies nothing; one_shot only in place (its sum copied back).
  const auto op = make_operation("allreduce");
  const JobShape shape{4, count, 4, 0};
  std::vector<Predicted> p = commlab::predict(*op, gpu, shape);
  const std::vector<Predicted> before = p;
  price_own_copies(p, *op, gpu, shape, false);
  for (size_t i = 0; i < p.size(); ++i) {
    const std::string& name = op->algorithms[i].name;
    const double added = p[i].us - before[i].us;
    if (name == "ring") CHECK(added == Approx(32 * MiB / 1e6));
    if (name == "recursive_doubling" || name == "one_shot") CHECK(added == Approx(0));
  }
}

// One node's memory over MPI (memory_load), worked by hand at P = 2 and N =
// 1 MiB (above the eager limit: a message is copied once, by its receiver):
// each step's busiest rank's bytes moved, and both ranks', in units of N.
TEST_CASE("one node's memory: each step's busiest rank and the node, worked by hand at P = 2") {
  const size_t count = size_t(1) << 18;  // float32: 1 MiB
  const uint64_t N = uint64_t(1) << 20;
  auto load = [&](CollectiveAlgorithm a, uint64_t own_copy_B) {
    const MemoryLoad l = memory_load(a.model(2, count, 4, 0), {own_copy_B, own_copy_B});
    return std::pair{double(l.rank_B) / double(N), double(l.node_B) / double(N)};
  };
  // Recursive doubling: one step, both ranks receive N and reduce it into
  // their own (2N + 3N each) at once.
  CHECK(load(allreduce_recursive_doubling_algorithm(), 0) == std::pair{5.0, 10.0});
  // Not in place: first each rank's input copied into its result (2N each).
  CHECK(load(allreduce_recursive_doubling_algorithm(), N) == std::pair{7.0, 14.0});
  // Master-worker: the master receives and reduces (5N), then the worker
  // receives the result (2N): one rank at a time.
  CHECK(load(allreduce_master_worker_algorithm(), 0) == std::pair{7.0, 7.0});
  // The ring: halves, reduced (2.5N each), then stored (N each), both ranks at once.
  CHECK(load(allreduce_ring_algorithm(), 0) == std::pair{3.5, 7.0});
  // Below the eager limit the sender copies too: 1 KiB, 5 + 2 per rank.
  const MemoryLoad small =
      memory_load(allreduce_recursive_doubling_algorithm().model(2, 256, 4, 0), {0, 0});
  CHECK(small.rank_B == 7 * 1024);
  CHECK(small.node_B == 14 * 1024);
}

// The copies a rank makes of its own vector (own_copied_B): an all-reduce
// not in place copies its input into its result first, but the exchange of
// recursive doubling and Swing starts from the input and ends in the result;
// in place, or folded, after an odd number of steps it copies back.
TEST_CASE("own copies: the butterfly exchange's, by rank, in place and not") {
  const auto op = make_operation("allreduce");
  auto copies = [&](const std::string& name, int P, bool in_place) {
    for (const CollectiveAlgorithm& a : op->algorithms)
      if (a.name == name) return own_copied_B(*op, a, JobShape{P, 1, 4, 0}, in_place);
    FAIL(name);
    return std::vector<uint64_t>{};
  };
  CHECK(copies("ring", 2, false) == std::vector<uint64_t>{4, 4});
  CHECK(copies("ring", 2, true) == std::vector<uint64_t>{0, 0});
  CHECK(copies("recursive_doubling", 2, false) == std::vector<uint64_t>{0, 0});
  CHECK(copies("recursive_doubling", 2, true) == std::vector<uint64_t>{4, 4});  // 1 step: back
  CHECK(copies("recursive_doubling", 4, true) == std::vector<uint64_t>{0, 0, 0, 0});
  // P = 3: rank 0 folds into rank 1 (one step left, so rank 1 copies back).
  CHECK(copies("swing_latency", 3, false) == std::vector<uint64_t>{4, 8, 0});
  CHECK(copies("recursive_doubling", 1, false) == std::vector<uint64_t>{4});
}

// reduce_bcast's binomial reduce starts from each input: the root copies its
// into its result (not in place), a rank with a child its into scratch, a
// leaf none. Counted from the root, so they move with it.
TEST_CASE("own copies: reduce_bcast's, by rank counted from the root") {
  const auto op = make_operation("allreduce");
  const CollectiveAlgorithm& a = op->algorithm("reduce_bcast");
  auto copies = [&](int P, int root, bool in_place) {
    return own_copied_B(*op, a, JobShape{P, 1, 4, root}, in_place);
  };
  CHECK(copies(2, 0, false) == std::vector<uint64_t>{4, 0});
  CHECK(copies(2, 1, true) == std::vector<uint64_t>{0, 0});
  CHECK(copies(4, 0, false) == std::vector<uint64_t>{4, 0, 4, 0});  // 2 reduces 3
  CHECK(copies(4, 0, true) == std::vector<uint64_t>{0, 0, 4, 0});
  CHECK(copies(4, 1, false) == std::vector<uint64_t>{0, 4, 0, 4});  // 3 reduces 0
  // P = 5, root 2: rank 4 (v = 2) reduces v = 3; v = 4 (rank 1) is a leaf.
  CHECK(copies(5, 2, true) == std::vector<uint64_t>{0, 0, 0, 0, 4});
}

// -a auto on one node over MPI: each message's handshake (the exchange of
// 4 KiB, the eager limit, for a larger one), then the busiest rank's bytes at
// the rate every rank copies at once. At P = 2 and 1 MiB,
// recursive doubling moves 5N on each rank in one step (no copy of its own),
// the ring 5.5N in two (its input copied first): recursive doubling is faster.
TEST_CASE("one node's memory prices auto: recursive doubling ahead of the ring at P = 2") {
  const auto op = make_operation("allreduce");
  CostModel m = lines(2, 0.001, 0.0005);
  m.copy_together = {{1 << 10, 1 << 30}, {1, 1 << 20}};  // a KiB copied a us
  const JobShape shape{2, size_t{1} << 18, 4, 0};
  std::vector<Predicted> p = predict(*op, m, shape);
  add_memory_loads(p, *op, shape, false, false);
  price_by_memory(p, m, shape);
  const double N = double(1 << 20), GBps = copy_GBps(m.copy_together, N);
  auto at = [&](const std::string& name) {
    for (size_t i = 0; i < p.size(); ++i)
      if (op->algorithms[i].name == name) return p[i].us;
    return -1.0;
  };
  const double handshake = m.exchange.at(4096);
  CHECK(at("recursive_doubling") == Approx(handshake + 5 * N / (GBps * 1e3)));
  CHECK(at("ring") == Approx(2 * handshake + 5.5 * N / (GBps * 1e3)));
  CHECK(op->algorithms[fastest(*op, p, false)].name == "recursive_doubling");
}
