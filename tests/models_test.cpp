// The traffic models against hand-worked cases; the MPI tests then assert
// that the counted traffic equals these models exactly.
#include <catch2/catch.hpp>
#include <cmath>

#include "allreduce_algos/algorithms.hpp"
#include "collectives/algorithms.hpp"
#include "collectives/butterfly.hpp"
#include "core/comm/topology.hpp"
#include "core/comm/traffic.hpp"
#include "operations/operation.hpp"

using namespace commlab;

TEST_CASE("ring: each rank sends 2(P-1)/P of the buffer when P divides it") {
  Traffic t = allreduce_ring_algorithm().model(4, 8, 4, 0);  // N = 32 B, chunks of 8 B
  CHECK(t.sent_max_rank_B == 48);
  CHECK(t.recv_max_rank_B == 48);
  CHECK(t.sent_total_B == 4 * 48);
  CHECK(t.msgs_total == 4 * 6);
  CHECK(t.steps == 6);
  CHECK(t.critical_path_B == 6 * 8);
}

TEST_CASE("ring: uneven chunks, the busiest rank and the total") {
  Traffic t = allreduce_ring_algorithm().model(4, 5, 1,
                                               0);  // chunks 2 1 1 1; rank r skips chunks r and r+1
  CHECK(t.sent_max_rank_B == 8);
  CHECK(t.sent_total_B == 2 * 3 * 5);
  Traffic small = allreduce_ring_algorithm().model(
      5, 2, 1, 0);  // fewer elements than ranks: empty chunks still go
  CHECK(small.msgs_total == 5 * 8);
  CHECK(small.sent_total_B == 2 * 4 * 2);
}

TEST_CASE("ring and tree and master-worker do nothing at P = 1") {
  const auto allreduce =
      make_operation("allreduce");  // kept: a temporary's members die before the loop
  for (const auto& algo : allreduce->algorithms) {
    Traffic t = algo.model(1, 100, 4, 0);
    CHECK(t.sent_total_B == 0);
    CHECK(t.msgs_total == 0);
    CHECK(t.steps == 0);
  }
}

TEST_CASE("master-worker: the master receives (P-1)N and sends it back") {
  Traffic t = allreduce_master_worker_algorithm().model(5, 10, 8, 0);  // N = 80 B
  CHECK(t.recv_max_rank_B == 4 * 80);
  CHECK(t.sent_max_rank_B == 4 * 80);
  CHECK(t.sent_total_B == 8 * 80);
  CHECK(t.msgs_total == 8);
  CHECK(t.steps == 8);
}

TEST_CASE("tree: shape and traffic of binary trees") {
  // P = 7 is a full tree of depth 2: node 1 gets 2 children's sums, sends one
  // up, then gets one and sends two down.
  Traffic full = allreduce_tree_algorithm().model(7, 1, 4, 0);
  CHECK(full.steps == 6);  // up: 2; down: 0->1, 0->2 1->3, 1->4 2->5, 2->6
  CHECK(full.sent_max_rank_B == 3 * 4);
  CHECK(full.recv_max_rank_B == 3 * 4);
  CHECK(full.sent_total_B == 2 * 6 * 4);
  CHECK(full.msgs_total == 12);
  // P = 4: root has children 1 and 2, node 1 has child 3.
  Traffic four = allreduce_tree_algorithm().model(4, 1, 4, 0);
  CHECK(four.steps == 4);
  CHECK(four.sent_max_rank_B == 2 * 4);
  // P = 8: node 3 has the single child 7, depth 3.
  CHECK(allreduce_tree_algorithm().model(8, 1, 1, 0).steps == 7);
  CHECK(allreduce_tree_algorithm().model(2, 1, 1, 0).steps == 2);
  CHECK(allreduce_tree_algorithm().model(3, 1, 1, 0).steps == 3);
  CHECK(allreduce_tree_algorithm().model(5, 1, 1, 0).steps == 5);
  CHECK(allreduce_tree_algorithm().model(15, 1, 1, 0).steps == 9);  // full, D = 3: D + 2D
}

TEST_CASE("taught formulas as the textbooks write them") {
  const auto op = make_operation("allreduce");
  const auto& mw = op->algorithm("master_worker");
  const auto& ring = op->algorithm("ring");
  const auto& tree = op->algorithm("tree");
  CHECK(mw.taught_T(4, 1000) == 3000);
  CHECK(ring.taught_T(4, 1000) == 1500);
  CHECK(tree.taught_T(8, 1000) == 3000);
  // The ring formula is exactly bytes sent per rank when P divides N.
  CHECK(ring.taught_T(4, 32) == allreduce_ring_algorithm().model(4, 8, 4, 0).sent_max_rank_B);
  // The master-worker one is the master's reduce phase, half its traffic.
  CHECK(mw.taught_T(5, 80) * 2 ==
        allreduce_master_worker_algorithm().model(5, 10, 8, 0).sent_total_B);
}

// The closed forms of the all-reduce models (what the replayed schedules must
// agree with): P ranks, N = count x esize bytes, chunks of Partition{count, P}.
TEST_CASE("replayed all-reduce schedules agree with their closed forms") {
  for (int P = 1; P <= 33; ++P)
    for (size_t count : {size_t(0), size_t(1), size_t(P - 1), size_t(P + 1), size_t(1000)}) {
      const uint64_t es = 4, N = count * es;
      const Partition chunks{count, P};
      const uint64_t workers = P - 1;
      INFO("P = " << P << ", count = " << count);
      Traffic mw = allreduce_master_worker_algorithm().model(P, count, es, P - 1);
      CHECK(mw.sent_max_rank_B == (P > 1 ? workers * N : 0));
      CHECK(mw.sent_total_B == 2 * workers * N);
      CHECK(mw.critical_path_B == 2 * workers * N);
      Traffic ring = allreduce_ring_algorithm().model(P, count, es, 0);
      uint64_t busiest = 0;  // rank r sends every chunk but r, then every chunk but r+1
      for (int r = 0; r < P && P > 1; ++r)
        busiest = std::max<uint64_t>(busiest,
                                     (2 * count - chunks.size(r) - chunks.size((r + 1) % P)) * es);
      CHECK(ring.sent_max_rank_B == busiest);
      CHECK(ring.msgs_total == 2 * uint64_t(P) * (P - 1));
      CHECK(ring.critical_path_B == 2 * uint64_t(P - 1) * chunks.largest() * es);
      Traffic tree = allreduce_tree_algorithm().model(P, count, es, P / 2);
      const uint64_t depth = uint64_t(std::floor(std::log2(P)));
      // Up one step per level; down one or two per level (a node's second
      // child waits for its first), every step one whole N wide.
      CHECK(tree.steps >= 2 * depth);
      CHECK(tree.steps <= 3 * depth);
      CHECK(tree.sent_total_B == 2 * workers * N);
      CHECK(tree.critical_path_B == tree.steps * N);
    }
}

// The bytes through the busiest node's port (core/comm/traffic.hpp), worked by hand
// with N = 1200 B.
TEST_CASE("port-critical bytes: one rank per node, two per node, and one node") {
  const size_t N = 1200;
  auto port = [&](const CollectiveAlgorithm& a, int P, int per_node) {
    return a.model(JobShape{P, N, 1, 0, Nodes::blocks(P, per_node)}).port_critical_B;
  };
  const CollectiveAlgorithm ring = allreduce_ring_algorithm(), tree = allreduce_tree_algorithm(),
                            master = allreduce_master_worker_algorithm();
  // Ring: every step, each node sends one chunk out and takes one in, however
  // many ranks it holds: 2(P-1) chunks of N/P.
  CHECK(port(ring, 4, 1) == 6 * N / 4);
  CHECK(port(ring, 4, 2) == 6 * N / 4);
  // Master-worker: the master's link carries N in each of its 2(P-1) steps.
  CHECK(port(master, 4, 1) == 6 * N);
  // Tree, P = 3, one rank per node: the root takes both children's N in one
  // step, then sends N to each, one after the other: 2N + N + N, where a
  // critical path says N + N + N.
  CHECK(port(tree, 3, 1) == 4 * N);
  CHECK(tree.model(3, N, 1, 0).critical_path_B == 3 * N);
  // Tree, P = 4, one rank per node: up, 3->1 then 1->0 and 2->0 into the
  // root (N + 2N); down, 0->1, then 0->2 beside 1->3 (N + N).
  CHECK(port(tree, 4, 1) == 5 * N);
  // On nodes {0 1} {2 3}: 3->1 and 2->0 cross in steps of their own, 1->0
  // and 0->1 stay on node 0, and 0->2 and 1->3 leave node 0 together:
  // N + N + 0 + 2N.
  CHECK(port(tree, 4, 2) == 4 * N);
  // All on one node: nothing crosses.
  CHECK(port(ring, 4, 4) == 0);
  CHECK(ring.model(4, N, 1, 0).port_critical_B == 0);
}

TEST_CASE("the bytes the busiest reducer reduces") {
  const size_t N = 1200;
  CHECK(allreduce_ring_algorithm().model(4, N, 1, 0).reduced_max_rank_B == 3 * N / 4);
  CHECK(allreduce_master_worker_algorithm().model(4, N, 1, 0).reduced_max_rank_B == 3 * N);
  CHECK(allreduce_tree_algorithm().model(7, N, 1, 0).reduced_max_rank_B == 2 * N);
}

// The closed forms bin/predict runs at P = 2^20 (at_scale) against the listed
// schedules they stand for, wherever the Tally can be run: every P to 64,
// nodes of 1, 2, 3 and 5 ranks and one node, N cut evenly (into P chunks,
// into p2 for the algorithms that fold to a power of two, and into one
// chunk per node for the hierarchical ring of leaders).
TEST_CASE("each closed form at scale equals its algorithm's Tally") {
  int with_closed_form = 0;
  const auto allreduce = make_operation("allreduce");
  for (const CollectiveAlgorithm& a : allreduce->algorithms) {
    if (!a.at_scale) continue;
    ++with_closed_form;
    for (int P = 1; P <= 64; ++P)
      for (int k : {1, 2, 3, 5, P}) {
        const size_t nodes = (size_t(P) + k - 1) / k;
        const size_t count = 3 * size_t(P) * size_t(PowerOfTwoFold(P).p2) * nodes, esize = 4;
        INFO(a.name << ", P = " << P << ", " << k << " ranks per node");
        const Traffic t = a.model(JobShape{P, count, esize, 0, Nodes::blocks(P, k)});
        const ScaledTraffic s = a.at_scale(P, double(count * esize), k);
        CHECK(s.steps == double(t.steps));
        CHECK(s.port_critical_B == double(t.port_critical_B));
        CHECK(s.reduced_max_rank_B == double(t.reduced_max_rank_B));
        const ScaledTraffic per_B = a.at_scale(P, 1, k);  // what predict scales by N
        CHECK(per_B.steps == s.steps);
        CHECK(per_B.port_critical_B * double(count * esize) == Approx(s.port_critical_B));
        CHECK(per_B.reduced_max_rank_B * double(count * esize) == Approx(s.reduced_max_rank_B));
      }
  }
  CHECK(with_closed_form >= 8);  // all but the segmented ring
}

// predict leaves the segmented ring out: in the port model it is the ring
// (the same steps, and per step the same bytes through each link and
// reduced), whatever the segment; its gain is reducing one segment while
// the next travels, which a model of steps cannot see.
TEST_CASE("the segmented ring's model figures are the ring's, for any segment") {
  for (int P = 1; P <= 24; ++P)
    for (int k : {1, 2, 3, P})
      for (size_t segment_B : {size_t{4}, size_t{40}, size_t{0}}) {
        INFO("P = " << P << ", " << k << " ranks per node, segment " << segment_B << " B");
        const JobShape shape{P, 30 * size_t(P), 4, 0, Nodes::blocks(P, k), segment_B};
        const Traffic ring = allreduce_ring_algorithm().model(shape);
        const Traffic seg = allreduce_segmented_ring_algorithm().model(shape);
        CHECK(seg.steps == ring.steps);
        CHECK(seg.port_critical_B == ring.port_critical_B);
        CHECK(seg.reduced_max_rank_B == ring.reduced_max_rank_B);
      }
}

// Swing's partners (De Sensi et al. 2024): rho(s) = 1, -1, 3, -5, 11; at P =
// 8, steps at distance 1, 1, 3 (docs/algorithms.md's table).
TEST_CASE("Swing: its partners, and a butterfly that splits for every power of two") {
  CHECK(std::vector<long long>{swing_rho(0), swing_rho(1), swing_rho(2), swing_rho(3),
                               swing_rho(4)} == std::vector<long long>{1, -1, 3, -5, 11});
  std::vector<std::vector<int>> partners(3);
  for (int s = 0; s < 3; ++s)
    for (int v = 0; v < 8; ++v) partners[s].push_back(swing_partner(v, s, 8));
  CHECK(partners[0] == std::vector<int>{1, 0, 3, 2, 5, 4, 7, 6});
  CHECK(partners[1] == std::vector<int>{7, 2, 1, 4, 3, 6, 5, 0});
  CHECK(partners[2] == std::vector<int>{3, 6, 5, 0, 7, 2, 1, 4});
  CHECK(Butterfly(8, swing_partner).position == std::vector<int>{0, 4, 6, 1, 3, 7, 5, 2});
  CHECK(Butterfly(4, swing_partner).position == std::vector<int>{0, 2, 3, 1});
  // Rabenseifner's butterfly (the libraries' order: the lowest bit first)
  // leaves each rank the chunk its bits reversed name (5 = 0101 -> 1010);
  // the constructor checks the split for every power of two up to 2^14.
  CHECK(Butterfly(16, bit_low_first).position[5] == 10);
  for (int P = 2; P <= 1 << 14; P *= 2) CHECK_NOTHROW(Butterfly(P, swing_partner));
  // Swing's bytes and steps are Rabenseifner's and recursive doubling's.
  for (int P : {4, 6, 8, 13}) {
    CHECK(allreduce_swing_bandwidth_algorithm()
              .model(P, 960, 4, 0)
              .same_counts(allreduce_rabenseifner_algorithm().model(P, 960, 4, 0)));
    CHECK(allreduce_swing_latency_algorithm()
              .model(P, 960, 4, 0)
              .same_counts(allreduce_recursive_doubling_algorithm().model(P, 960, 4, 0)));
  }
}

// The busiest link, step by step, at P = 8 on a ring of 8 nodes, worked by
// hand in docs/algorithms.md ("On a ring of nodes"): in units of N.
TEST_CASE("a ring of 8 nodes: the busiest link's bytes of each all-reduce, as worked by hand") {
  const size_t N = 8 * 1024;
  auto on_ring = [&](const CollectiveAlgorithm& a) {
    const Traffic t = a.model(8, N, 1, 0);
    std::vector<int> node(8);
    for (int r = 0; r < 8; ++r) node[r] = r;
    return double(link_load(t.messages, node, Topology::parse("ring:8")).link_critical_B) / N;
  };
  CHECK(on_ring(allreduce_ring_algorithm()) == 1.75);
  CHECK(on_ring(allreduce_swing_bandwidth_algorithm()) == 2.0);
  CHECK(on_ring(allreduce_rabenseifner_algorithm()) == 3.0);
  CHECK(on_ring(allreduce_swing_latency_algorithm()) == 4.0);
  CHECK(on_ring(allreduce_recursive_doubling_algorithm()) == 7.0);
  // On the switch the busiest link is the busiest port: port_critical_B.
  const Traffic rab =
      allreduce_rabenseifner_algorithm().model(JobShape{8, N, 1, 0, Nodes::blocks(8, 1)});
  std::vector<int> node(8);
  for (int r = 0; r < 8; ++r) node[r] = r;
  CHECK(link_load(rab.messages, node, Topology::parse("switch")).link_critical_B ==
        rab.port_critical_B);
}

// The closed forms on a network (on_network) against every message of the
// exact model routed one by one, on each kind of network, at powers of two
// and not, one rank a node and two.
TEST_CASE("closed forms on networks equal the routed messages") {
  const std::vector<CollectiveAlgorithm> algorithms = {
      allreduce_ring_algorithm(), allreduce_recursive_doubling_algorithm(),
      allreduce_rabenseifner_algorithm(), allreduce_swing_latency_algorithm(),
      allreduce_swing_bandwidth_algorithm()};
  for (const char* name : {"switch", "ring:16", "torus:4x4", "torus:8x2", "fattree:4:2",
                           "fattree:3:1", "dragonfly:4x4"})
    for (int k : {1, 2})
      for (int P : {2, 3, 6, 8, 12, 16, 32}) {
        const Topology net = Topology::parse(name);
        if (net.nodes() && (P + k - 1) / k > net.nodes()) continue;
        const Nodes nodes = Nodes::blocks(P, k);
        for (const CollectiveAlgorithm& a : algorithms) {
          INFO(a.name << " on " << name << ", P = " << P << ", " << k << " a node");
          const size_t count = 64 * size_t(P);
          const Traffic t = a.model(JobShape{P, count, 1, 0, nodes});
          const ScaledTraffic f = a.on_network(P, double(count), k, net);
          CHECK(f.steps == double(t.steps));
          CHECK(f.port_critical_B ==
                Approx(double(link_load(t.messages, nodes.of_rank(), net).link_critical_B)));
        }
      }
}

TEST_CASE("the counter's runs along a torus's lines equal its routes hop by hop") {
  for (const char* name : {"ring:7", "ring:8", "torus:4x4", "torus:5x3"}) {
    const Topology net = Topology::parse(name);
    LinkCounter runs(net, net.nodes());
    std::vector<uint64_t> hops(size_t(net.links(net.nodes())));
    uint64_t busiest = 0, hop_B = 0;
    for (int a = 0; a < net.nodes(); ++a)
      for (int b = 0; b < net.nodes(); ++b) {
        if (a == b) continue;
        const uint64_t bytes = uint64_t(1 + a * 7 + b);
        runs.add(a, b, bytes);
        for (int link : net.route(a, b)) busiest = std::max(busiest, hops[size_t(link)] += bytes);
        hop_B += bytes * net.route(a, b).size();
      }
    INFO(name);
    CHECK(runs.end_step() == busiest);
    CHECK(runs.hop_B() == hop_B);
    CHECK(runs.end_step() == 0);  // the next step starts empty
  }
}

TEST_CASE("topologies: routes by dimension, ties the positive way, bad names refused") {
  const Topology torus = Topology::parse("torus:4x4");
  CHECK(torus.nodes() == 16);
  CHECK(torus.route(0, 5).size() == 2);  // one column, one row
  CHECK(torus.route(0, 2).size() == 2);  // half way round a row of 4: the positive way
  CHECK(torus.route(0, 2) == std::vector<int>{0, 4});
  CHECK(torus.route(0, 3).size() == 1);  // the other way round is shorter
  CHECK(Topology::parse("ring:8").route(7, 0).size() == 1);
  CHECK(Topology::parse("switch").route(3, 5) == std::vector<int>{6, 11});
  CHECK_THROWS_WITH(Topology::parse("mesh:4"),
                    Catch::Contains("use switch, ring:K, torus:AxB, fattree:K:O or dragonfly:GxA"));
  CHECK_THROWS_WITH(Topology::parse("torus:2048x1024"), Catch::Contains("1048576 nodes at most"));
  CHECK_THROWS_WITH(Topology::parse("fattree:6:4"), Catch::Contains("must divide the 6 nodes"));
  // Fat tree: leaves of 4, 2 uplinks; 1 -> 6 climbs to spine 6 mod 2 = 0.
  const Topology tree = Topology::parse("fattree:4:2");
  CHECK(tree.describe() == "fattree:4:2");
  CHECK(tree.route(1, 2) == std::vector<int>{2, 5});  // one leaf: out, in
  CHECK(tree.route(1, 6) == std::vector<int>{2, 8, 21, 17});
  // Dragonfly: groups of 2; 0 -> 3 crosses global link 0 -> 1.
  const Topology fly = Topology::parse("dragonfly:3x2");
  CHECK(fly.route(0, 1) == std::vector<int>{0, 3});
  CHECK(fly.route(0, 3) == std::vector<int>{0, 12 + 1, 7});
  CHECK_THROWS_WITH(Topology::parse("ring:1"), Catch::Contains("use 2 to 1048576"));
  std::vector<Message> one{{0, 0, 9, 8}};
  CHECK_THROWS_WITH(
      link_load(one, std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, Topology::parse("ring:8")),
      Catch::Contains("ring:8 has 8 nodes; the ranks ran on 10"));
}

namespace {
// A model's messages on a ring of 8 nodes, one rank each: the busiest link
// step by step, summed, and the hop-bytes.
LinkLoad on_ring_of_8(const Traffic& t) {
  return link_load(t.messages, std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}, Topology::parse("ring:8"));
}
}  // namespace

// Binomial and Bine trees at P = 8 on a ring of 8 nodes, one rank each, root
// 0, N = 1024 B, worked by hand in docs/algorithms.md ("Bine trees"). Routes
// go the shorter way round, half way (4 hops) the positive way; links are
// directed; per step, the busiest link's bytes, summed over the steps; and
// every message's bytes times its hops. In units of N:
//   binomial bcast  0->1 | 0->2, 1->3 | 0->4, 1->5, 2->6, 3->7 (4 hops each,
//                   all up): link 1->2 carries 2 in step 1, link 3->4 all 4
//                   in step 2: 1 + 2 + 4 = 7; hops 1 + 2*2 + 4*4 = 21.
//   bcast bine      0->3 | 0->7, 3->4 | 0->1, 3->2, 7->6, 4->5: 3 hops, then
//                   1 hop on links 0->7, 3->4, then 0->1, 3->2, 7->6, 4->5,
//                   no link twice in a step: 1 + 1 + 1 = 3; hops 3 + 2 + 4 = 9.
//   binomial reduce 1->0, 3->2, 5->4, 7->6 | 2->0, 6->4 (2 hops down, links
//                   2->1->0 and 6->5->4) | 4->0 (4 hops up, 4->5->6->7->0):
//                   1 + 1 + 1 = 3; hops 4 + 2*2 + 4 = 12.
//   reduce bine     the bcast backwards: 1->0, 2->3, 6->7, 5->4 | 7->0, 4->3
//                   | 3->0 (3 hops down): 1 + 1 + 1 = 3; hops 4 + 2 + 3 = 9.
TEST_CASE("a ring of 8 nodes: binomial and Bine trees' busiest link and hop-bytes, by hand") {
  const size_t N = 1024;
  const LinkLoad bcast_binomial = on_ring_of_8(model_bcast_binomial(8, N, 1, 0));
  const LinkLoad bcast_bine = on_ring_of_8(model_bcast_bine(8, N, 1, 0));
  const LinkLoad reduce_binomial = on_ring_of_8(model_reduce_binomial(8, N, 1, 0));
  const LinkLoad reduce_bine = on_ring_of_8(model_reduce_bine(8, N, 1, 0));
  CHECK(bcast_binomial.link_critical_B == 7 * N);
  CHECK(bcast_binomial.hop_B == 21 * N);
  CHECK(bcast_bine.link_critical_B == 3 * N);
  CHECK(bcast_bine.hop_B == 9 * N);
  CHECK(reduce_binomial.link_critical_B == 3 * N);
  CHECK(reduce_binomial.hop_B == 12 * N);
  CHECK(reduce_bine.link_critical_B == 3 * N);
  CHECK(reduce_bine.hop_B == 9 * N);
}

// Scatter and gather on the same ring of 8, in parts of N/8 (docs/algorithms.md,
// "Bine trees: scatter and gather"):
//   binomial scatter  0->4 (4 parts, 4 hops up) | 0->2, 4->6 (2 parts, 2 hops
//                     each) | 0->1, 2->3, 4->5, 6->7: busiest link 4 + 2 + 1 = 7;
//                     hops 16 + 8 + 4 = 28.
//   scatter bine      0->3 (parts 3 4 5 2, 3 hops) | 0->7 (7 6), 3->4 (4 5), 1
//                     hop | 0->1, 3->2, 7->6, 4->5: 4 + 2 + 1 = 7; hops 12 + 4 + 4 = 20.
//   the gathers       the scatters backwards: the same figures.
TEST_CASE("a ring of 8 nodes: binomial and Bine scatter and gather, by hand") {
  const size_t N = 1024, part = N / 8;
  for (const Traffic& t : {model_scatter_binomial(8, N, 1, 0), model_gather_binomial(8, N, 1, 0)}) {
    CHECK(on_ring_of_8(t).link_critical_B == 7 * part);
    CHECK(on_ring_of_8(t).hop_B == 28 * part);
  }
  for (const Traffic& t : {model_scatter_bine(8, N, 1, 0), model_gather_bine(8, N, 1, 0)}) {
    CHECK(on_ring_of_8(t).link_critical_B == 7 * part);
    CHECK(on_ring_of_8(t).hop_B == 20 * part);
  }
}

// All-gather on the same ring of 8, in parts of N/8 (docs/algorithms.md,
// "Bine all-gather, reduce-scatter and all-to-all"):
//   recursive doubling  partners at 1, 2, 4 hops, messages of 1, 2, 4 parts:
//                       busiest link 1 | 4 (0->2 and 1->3 cross 1->2) | 16
//                       (all eight go the positive way, 4 hops): 21; hops
//                       8 + 32 + 128 = 168.
//   bine                partners at 3, 1, 1 hops: 2 (0->3 and 2->5 cross
//                       2->3) | 2 | 4: 8; hops 24 + 16 + 32 = 72.
//   reduce-scatter bine the all-gather backwards: the same figures.
TEST_CASE("a ring of 8 nodes: recursive doubling and Bine all-gather, by hand") {
  const size_t N = 1024, part = N / 8;
  CHECK(on_ring_of_8(model_allgather_recursive_doubling(8, N, 1, 0)).link_critical_B == 21 * part);
  CHECK(on_ring_of_8(model_allgather_recursive_doubling(8, N, 1, 0)).hop_B == 168 * part);
  for (const Traffic& t :
       {model_allgather_bine(8, N, 1, 0), model_reduce_scatter_bine(8, N, 1, 0)}) {
    CHECK(on_ring_of_8(t).link_critical_B == 8 * part);
    CHECK(on_ring_of_8(t).hop_B == 72 * part);
  }
}

// All-to-all on the same ring, in blocks of N/8:
//   pairwise  step s: r -> r+s, s hops (4: the positive way; 5 to 7: 3 to 1
//             hops the other way), a block each: busiest link 1 + 2 + 3 + 4
//             + 3 + 2 + 1 = 16; hops 8 x 16 = 128.
//   bine      4 blocks a step to partners 1, 1 and 3 hops away: 4 | 4 | 8
//             (0->3 and 2->5 cross 2->3): 16; hops 8 x 4 x 5 = 160. Fewer
//             steps, more bytes: Bine's all-to-all is for small blocks.
TEST_CASE("a ring of 8 nodes: pairwise and Bine all-to-all, by hand") {
  const size_t N = 1024, part = N / 8;
  CHECK(on_ring_of_8(model_alltoall_pairwise(8, N, 1, 0)).link_critical_B == 16 * part);
  CHECK(on_ring_of_8(model_alltoall_pairwise(8, N, 1, 0)).hop_B == 128 * part);
  CHECK(on_ring_of_8(model_alltoall_bine(8, N, 1, 0)).link_critical_B == 16 * part);
  CHECK(on_ring_of_8(model_alltoall_bine(8, N, 1, 0)).hop_B == 160 * part);
}
