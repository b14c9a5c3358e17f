// Every algorithm of every operation, with its ranks as threads of one process
// (core/transports/thread_transport.hpp), as Gloo tests its own: P = 1 .. 17, 31 .. 33
// and a P of every other shape to 128, over the awkward counts (0, 1, P-1,
// P+1 and a prime above 10^5),
// every dtype and op, in and out of place, at the roots that matter (0, P/2,
// P-1); make test runs the P that tell most in seconds, make check the
// rest of every shape to P = 128 (process_counts).
// Each run checks every rank's result exactly, and the traffic counted
// by the transport against the algorithm's model. A schedule that deadlocks
// fails naming the rank and what it waited for. ctest label: inprocess.
#include "harness/inprocess.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <set>
#include <sstream>
#include <tuple>

#include "analysis/rows.hpp"
#include "operations/predicted.hpp"

using namespace commlab;

namespace {

constexpr size_t kPrime = 100003;

using Run = InProcessRun;

// The placements and segments runs take in turn: nodes of 2 and of 3 ranks,
// two nodes taking ranks in turn (as srun's cyclic distribution does), one
// node, a node per rank; segments of one element, of three, and none (whole
// chunks); a large count gets segments of a few thousand bytes (one-element
// segments of 10^5 elements would be 10^5 messages a step).
Nodes placement(int k, int P) {
  switch (k % 5) {
    case 0:
      return Nodes::blocks(P, 2);
    case 1:
      return Nodes::blocks(P, 3);
    case 2: {
      std::vector<int> cyclic;
      for (int r = 0; r < P; ++r) cyclic.push_back(r % 2);
      return Nodes(cyclic);
    }
    case 3:
      return Nodes::blocks(P, P);
    default:
      return Nodes::blocks(P, 1);
  }
}
size_t segment_B(int k, DType t, size_t N) {
  if (N > 1000) return k % 2 ? 4000 : 0;
  const size_t segments[] = {1 * element_size(t), 3 * element_size(t), 0};
  return segments[k % 3];
}

// One run on `world`: "" when every rank's result and the counted traffic are right.
std::string check(ThreadWorld& world, const Run& run) {
  return run_in_process(world, run).verdict(run.algo.model(run.shape()));
}

// What a schedule branches on in P: a power of two, one past it (the fold
// of one rank), one short of the next (every bit set: the trees' last
// subtree whole), or else; odd or even (the double binary tree, the pairs
// of a fold); a multiple of 3 (nodes of 3 ranks end full); the ranks past
// the power of two half of it or more (folds that take every other rank);
// and how deep the butterflies and trees go (log2 P: Swing's distances
// wrap round at depth 3 and more).
struct Shape {
  int depth;
  std::string bits;  // "power of two", "one past", "one short", "other"
  bool odd, thirds, upper_half;
};
Shape shape_of(int P) {
  int depth = 0;
  while ((2 << depth) <= P) ++depth;
  const int p2 = 1 << depth, extra = P - p2;
  const std::string bits = extra == 0        ? "power of two"
                           : extra == 1      ? "one past"
                           : extra == p2 - 1 ? "one short"
                                             : "other";
  return {depth, bits, P % 2 == 1, P % 3 == 0, extra > 0 && extra >= p2 / 2};
}

// make test: every P to 17, and each side of 32 (a few seconds an
// operation). make check ([every-P]) adds what those lack of every shape up
// to P = 128: each mix of the bits, parity, thirds and upper half (18, 21,
// 27), and at each depth from 5 to 7 a power of two, one past, one short and
// another (48, 63, 64, 65, 100, 127, 128). A test below holds the two lists
// to every shape of P = 1 .. 128. COMMLAB_INPROCESS_PS=3,4,... runs those
// instead (the sanitizer build runs a few: tests/sanitize_test.sh).
const std::vector<int> kQuickPs = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10,
                                   11, 12, 13, 14, 15, 16, 17, 31, 32, 33};
const std::vector<int> kDeeperPs = {18, 21, 27, 48, 63, 64, 65, 100, 127, 128};
const std::vector<int> kDirectPs = {1, 2, 3, 4, 5, 7, 8, 9, 16, 17};
const std::vector<int> kReplayPs = {1, 2, 3, 4, 5, 7, 8, 9, 16};
std::vector<int> process_counts(const std::vector<int>& Ps) {
  const char* only = std::getenv("COMMLAB_INPROCESS_PS");
  if (!only) return Ps;
  std::vector<int> asked;
  std::stringstream in(only);
  for (std::string P; std::getline(in, P, ',');) asked.push_back(std::stoi(P));
  return asked;
}

// The runs for one algorithm at one P, in and out of place where the
// operation has both forms: the awkward counts at float32 sum, each at one of
// the roots that matter (P-1, 0, P/2 in turn); then dtypes and ops at P+1
// elements: every pair at a few P (to 5, 8, 17 and 33), and one pair per P
// otherwise, in turn, so that every pair meets many P. Every pair at every P would be 24 times the
// runs for no schedule more: the dtype and op change the bytes and the
// reduction, not who sends what to whom. Fill patterns stay exact in
// bfloat16 only up to P = 85 (operations/pattern.hpp): no dtype runs above P = 64.
std::vector<Run> runs(const Operation& op, const CollectiveAlgorithm& algo, int P) {
  std::vector<bool> places{op.in_place_form == InPlace::always};
  if (op.in_place_form == InPlace::optional) places = {false, true};
  std::vector<Run> all;
  auto add = [&](size_t N, DType t, Op o, int root) {
    for (bool in_place : places) {
      const int k = int(all.size());
      if (op.refuse(P, N, in_place).empty())
        all.push_back({op, algo, P, N, t, o, root, in_place, placement(k, P), segment_B(k, t, N)});
    }
  };
  if (!op.has_data) {
    add(0, DType::float32, Op::sum, P - 1);
    return all;
  }
  const int roots[] = {P - 1, 0, P / 2};
  const size_t counts[] = {0, 1, size_t(P - 1), size_t(P + 1), kPrime};
  for (int k = 0; k < 5; ++k) add(counts[k], DType::float32, Op::sum, roots[k % 3]);
  if (P > 64) return all;
  std::vector<std::pair<DType, Op>> pairs;
  for (DType t : all_dtypes())
    for (Op o : op.reduces ? all_ops() : std::vector<Op>{Op::sum}) pairs.emplace_back(t, o);
  const bool every_pair = P <= 5 || P == 8 || P == 17 || P == 33;
  for (size_t i = 0; i < pairs.size(); ++i)
    if (every_pair || i == size_t(P) % pairs.size())
      add(size_t(P + 1), pairs[i].first, pairs[i].second, P / 2);
  return all;
}

// Every algorithm of the operation at each P. Over the direct transport
// (core/transports/direct_transport.hpp), every buffer lives in the ranks' regions and
// every message is read from the sender's memory: the same schedules, the
// same counts, and the bytes read from peers equal to those received.
void check_operation(const std::string& name, const std::vector<int>& Ps, bool direct = false) {
  const auto op = make_operation(name);
  for (int P : Ps) {
    ThreadWorld world(P);
    for (const CollectiveAlgorithm& algo : op->algorithms)
      for (Run run : runs(*op, algo, P))
        // An algorithm that reads peers' memory: on registered buffers, and
        // on the user's own; over direct access, signalled by the host and
        // by the device's ops (signals.hpp).
        for (bool private_buffers : {false, true})
          for (Signals signals : {Signals::host, Signals::device}) {
            if (private_buffers && !algo.reads_peers) continue;
            if (signals == Signals::device && !direct && !algo.reads_peers) continue;
            run.direct = direct;
            run.private_buffers = private_buffers;
            run.signals = signals;
            std::string error;
            try {
              error = check(world, run);
            } catch (const std::exception& e) {
              error = e.what();
            }
            INFO(run.describe());
            CHECK(error == "");
          }
  }
}

// Every algorithm of the operation that passes messages, recorded and replayed
// non-blocking as --overlap runs it (core/comm/executor.hpp): three test calls
// then a wait, or test calls alone, in turn. The replay's result is exact and
// its counted traffic is the model's, message by message, as the blocking
// run's is: the schedule overlapped is the one counted.
void check_replayed(const std::string& name, const std::vector<int>& Ps) {
  const auto op = make_operation(name);
  for (int P : Ps) {
    ThreadWorld world(P);
    for (const CollectiveAlgorithm& algo : op->algorithms) {
      if (algo.reads_peers) continue;
      int k = 0;
      for (Run run : runs(*op, algo, P)) {
        if (run.N == kPrime) continue;
        run.replay_tests = k++ % 2 ? -1 : 3;
        std::string error;
        try {
          error = check(world, run);
        } catch (const std::exception& e) {
          error = e.what();
        }
        INFO(run.describe() << ", replayed with " << *run.replay_tests << " tests");
        CHECK(error == "");
      }
    }
  }
}

}  // namespace

// The two lists meet every shape of P = 1 .. 128: each mix of bits, parity,
// thirds and upper half, and each kind of bits at every depth. A list
// edited to save time cannot drop a shape unseen.
TEST_CASE("in-process: the P tested meet every shape of P up to 128") {
  auto mix = [](const Shape& s) { return std::tuple(s.bits, s.odd, s.thirds, s.upper_half); };
  auto deep = [](const Shape& s) { return std::pair(s.depth, s.bits); };
  std::set<decltype(mix(shape_of(1)))> mixes;
  std::set<std::pair<int, std::string>> depths;
  for (const auto* list : {&kQuickPs, &kDeeperPs})
    for (int P : *list) mixes.insert(mix(shape_of(P))), depths.insert(deep(shape_of(P)));
  for (int P = 1; P <= 128; ++P) {
    const Shape s = shape_of(P);
    INFO("P = " << P << ": " << s.bits << ", depth " << s.depth);
    CHECK(mixes.count(mix(s)) == 1);
    CHECK(depths.count(deep(s)) == 1);
  }
}

// Every operation of the one list, a test case each, at the quick P and at
// the rest of every shape ([every-P]: ctest label check, make check).
#define COMMLAB_OPERATION(name)                                                         \
  TEST_CASE("in-process: " #name) { check_operation(#name, process_counts(kQuickPs)); } \
  TEST_CASE("in-process, every shape: " #name, "[every-P]") {                           \
    check_operation(#name, process_counts(kDeeperPs));                                  \
  }                                                                                     \
  TEST_CASE("in-process, direct transport: " #name) {                                   \
    check_operation(#name, process_counts(kDirectPs), true);                            \
  }                                                                                     \
  TEST_CASE("in-process, replayed non-blocking: " #name) {                              \
    check_replayed(#name, process_counts(kReplayPs));                                   \
  }
#include "operations/operations.def"
#undef COMMLAB_OPERATION

// The worlds below wait 1 s: a deadlock's test takes that long, and a rank
// held off the cores beside other tests' ranks is not taken for one.
TEST_CASE("in-process: a schedule that deadlocks fails naming the rank, in time") {
  ThreadWorld world(3, std::chrono::milliseconds(1000));
  auto deadlock = [](Transport& t) {  // everyone receives first: nobody ever sends
    char byte = 0;
    t.exchange(kNoRank, nullptr, 0, (t.rank() + 1) % 3, &byte, 1, nullptr);
  };
  CHECK_THROWS_WITH(world.run(deadlock),
                    Catch::Contains("waited 1000 ms") && Catch::Contains("from rank"));
  // A blocking send waits for its receiver: two ranks sending to each other
  // first deadlock, as MPI may at any size.
  ThreadWorld pair(2, std::chrono::milliseconds(1000));
  auto unsafe = [](Transport& t) {
    char byte = 0;
    t.exchange(1 - t.rank(), &byte, 1, kNoRank, nullptr, 0, nullptr);
    t.exchange(kNoRank, nullptr, 0, 1 - t.rank(), &byte, 1, nullptr);
  };
  CHECK_THROWS_WITH(pair.run(unsafe), Catch::Contains("to be received"));
  // The world is usable again after a failure.
  auto safe = [](Transport& t) {
    char out = char(t.rank()), in = 0;
    t.exchange(1 - t.rank(), &out, 1, 1 - t.rank(), &in, 1, nullptr);
    if (in != char(1 - t.rank())) throw std::runtime_error("wrong byte");
  };
  CHECK_NOTHROW(pair.run(safe));
}

TEST_CASE("in-process: a posted irecv lets a send to it finish, as under MPI") {
  ThreadWorld world(2, std::chrono::milliseconds(1000));
  auto swap = [](Transport& t) {  // ps_sim's colocated servers do this
    char out = char('a' + t.rank()), in = 0;
    t.irecv(1 - t.rank(), &in, 1);
    t.isend(1 - t.rank(), &out, 1);
    t.wait_sends();
    t.wait_all();
    if (in != char('a' + 1 - t.rank())) throw std::runtime_error("wrong byte");
  };
  CHECK_NOTHROW(world.run(swap));
  auto nobody = [](Transport& t) {
    char in = 0;
    if (t.rank() == 0) t.irecv(1, &in, 1);  // never sent, never waited for
  };
  CHECK_THROWS_WITH(world.run(nobody), Catch::Contains("that nobody sent"));
  auto wrong_size = [](Transport& t) {
    char buf[2] = {};
    if (t.rank() == 0) t.irecv(1, buf, 2), t.wait_all();
    if (t.rank() == 1) t.isend(0, buf, 1), t.wait_sends();
  };
  CHECK_THROWS_WITH(world.run(wrong_size), Catch::Contains("expected 2 bytes from rank 1, got 1"));
}

TEST_CASE("in-process: a message nobody receives is an error") {
  ThreadWorld world(2, std::chrono::milliseconds(1000));
  auto stray = [](Transport& t) {
    char byte = 0;
    if (t.rank() == 0) t.isend(1, &byte, 1);  // never waited for, never received
  };
  CHECK_THROWS_WITH(world.run(stray), Catch::Contains("unreceived"));
}

// The committed results were counted by the programs as they were then. The
// same cells, run here with the same ranks on the same nodes, must count the
// same bytes, messages, steps and port bytes, and the models must say what
// the rows say: a change that alters a schedule, a count or a model shows
// here, against real runs. results/cluster-4x1gbit ran on 4 nodes with srun
// --distribution=cyclic (machine.md): rank r on node r mod nodes.
TEST_CASE("in-process: the committed cluster rows count what they counted", "[every-P]") {
  const std::vector<std::string> columns{"program",
                                         "algorithm",
                                         "impl",
                                         "P",
                                         "root",
                                         "count",
                                         "nodes",
                                         "sent_max_rank_B",
                                         "recv_max_rank_B",
                                         "sent_total_B",
                                         "msgs_total",
                                         "steps",
                                         "port_critical_B",
                                         "model_sent_max_rank_B",
                                         "model_recv_max_rank_B",
                                         "model_sent_total_B",
                                         "model_msgs_total",
                                         "model_steps",
                                         "model_critical_path_B",
                                         "model_port_critical_B",
                                         "model_reduced_max_rank_B"};
  const auto rows = read_columns(COMMLAB_SOURCE_DIR "/results/cluster-4x1gbit/rows.csv", columns);
  const auto op = make_operation("allreduce");
  int hand = 0;
  for (const auto& c : rows) {
    if (c[2] != "hand") continue;
    ++hand;
    const int P = std::stoi(c[3]), nodes = std::stoi(c[6]);
    std::vector<int> cyclic;
    for (int r = 0; r < P; ++r) cyclic.push_back(r % nodes);
    const Run run{*op,     op->algorithm(c[1]), P,     std::stoull(c[5]), DType::float32,
                  Op::sum, std::stoi(c[4]),     false, Nodes(cyclic)};
    ThreadWorld world(P);
    const Traffic counted = run_in_process(world, run).counted, model = run.algo.model(run.shape());
    const std::vector<uint64_t> now{counted.sent_max_rank_B,
                                    counted.recv_max_rank_B,
                                    counted.sent_total_B,
                                    counted.msgs_total,
                                    counted.steps,
                                    counted.port_critical_B,
                                    model.sent_max_rank_B,
                                    model.recv_max_rank_B,
                                    model.sent_total_B,
                                    model.msgs_total,
                                    model.steps,
                                    model.critical_path_B,
                                    model.port_critical_B,
                                    model.reduced_max_rank_B};
    std::vector<uint64_t> then;
    for (size_t k = 7; k < columns.size(); ++k) then.push_back(std::stoull(c[k]));
    INFO(run.describe());
    CHECK(now == then);
  }
  CHECK(hand == 168);  // every hand-written row of the folder
}

// Over a network of nodes, every operation's hand-written algorithms: the
// busiest link's bytes and the hop-bytes the run's messages load equal the
// model's (the verdict compares them), one rank a node and two.
TEST_CASE("in-process: the links' bytes counted on a network equal the model's") {
  const std::vector<std::string> names = {
#define COMMLAB_OPERATION(name) #name,
#include "operations/operations.def"
#undef COMMLAB_OPERATION
  };
  for (const std::string& name : names)
    for (int P : {2, 3, 5, 8})
      for (int per_node : {1, 2})
        for (const char* network : {"ring:8", "torus:2x4", "fattree:2:2", "dragonfly:2x4"}) {
          const auto op = make_operation(name);
          for (const CollectiveAlgorithm& algo : op->algorithms) {
            if (algo.reads_peers && per_node < P) continue;  // one node only
            ThreadWorld world(P);
            Run run{*op, algo, P, size_t(4 * P + 3)};
            run.in_place = op->in_place_form == InPlace::always;
            run.nodes = Nodes::blocks(P, per_node);
            run.nodes.set_network(Topology::parse(network), {});
            INFO(run.describe() << " on " << network);
            const InProcessResult result = run_in_process(world, run);
            const Traffic model = algo.model(run.shape());
            CHECK(result.verdict(model) == "");
            if (per_node == 1 && op->has_data) CHECK(model.hop_B > 0);  // every rank a node
          }
        }
}

// What a call costs the GPU over direct access, counted on the host's
// Memory (each copy or reduction is one launch there; each sync a host
// round trip): every message received in one pass, reduced straight from
// the sender's memory where the step reduces; with host signalling at most
// two syncs a step (before it posts, where its own work is queued; after it
// reads) and the call's last; with device signalling the call's last only.
TEST_CASE("in-process, direct transport: one launch per message; host waits per step") {
  const auto op = make_operation("allreduce");
  for (int P : {2, 3, 4, 5, 8})
    for (const CollectiveAlgorithm& algo : op->algorithms)
      for (Signals signals : {Signals::host, Signals::device})
        for (size_t N : {size_t(P + 1), size_t(100003)}) {
          ThreadWorld world(P);
          Run run{*op, algo, P, N};
          run.direct = true;
          run.signals = signals;
          run.nodes = Nodes::blocks(P, 2);
          INFO(run.describe());
          const InProcessResult result = run_in_process(world, run);
          const Traffic model = algo.model(run.shape());
          REQUIRE(result.verdict(model) == "");
          for (int r = 0; r < P; ++r) {
            const InProcessResult::Costs& c = result.costs[r];
            INFO("rank " << r << ": " << c.received << " received, " << c.receive_ops
                         << " receive ops, " << c.waits << " waits");
            CHECK(c.receive_ops == c.received);
            if (signals == Signals::device)
              CHECK(c.waits <= 1);
            else
              CHECK(c.waits <= 2 * model.steps + 1);
          }
        }
}

namespace {

// What one node's memory model (memory_load, with own_copies) says a run's
// own copies and reductions move, every rank's summed: its bytes less what
// the threads' transport moves outside Memory (a message copied into its
// receive buffer, and below the eager limit into the shared segment first).
// Over direct access every read is Memory's, so all of it.
uint64_t modelled_moved_B(const Operation& op, const Run& run) {
  const Traffic model = run.algo.model(run.shape());
  const bool direct = run.direct || run.algo.reads_peers;
  const MemoryLoad load = memory_load(direct ? model.pulled() : model,
                                      own_copied_B(op, run.algo, run.shape(), run.in_place));
  if (direct) return load.node_B;
  uint64_t transport_B = 0;
  for (const Message& m : model.messages)
    transport_B += (m.bytes < kEagerLimit_B ? 4 : 2) * m.bytes;
  return load.node_B - transport_B;
}

// The copies the model knowingly leaves out (their algorithms' own_copies
// say why), every rank's summed: one_shot in place on registered buffers
// copies the sum back over its input (own_copies cannot tell that from a
// private buffer's copy in, priced apart); two_shot copies its chunk out of
// scratch, N / P a rank (own_copies counts whole vectors).
uint64_t left_out_B(const Run& run) {
  const uint64_t N_B = run.N * element_size(run.dtype);
  if (run.algo.name == "one_shot" && run.in_place) return 2 * N_B * uint64_t(run.P);
  if (run.algo.name == "two_shot" && run.P > 1) return 2 * N_B;
  return 0;
}

}  // namespace

// Each all-reduce's copies and reductions, as Memory counted them in one run,
// equal to what its memory model charges: a copy the model does not know of
// shows here (reduce_bcast's binomial reduce once copied every input into
// scratch before sending it: 9N counted against 7N at P = 2). At every shape
// to P = 17 and each side of 32, in place and not, at two roots.
TEST_CASE("in-process: every all-reduce's copies and reductions are its memory model's") {
  const auto op = make_operation("allreduce");
  for (int P : process_counts(kQuickPs)) {
    ThreadWorld world(P);
    for (const CollectiveAlgorithm& algo : op->algorithms)
      for (int root : std::set<int>{0, P / 2})
        for (bool in_place : {false, true}) {
          Run run{*op, algo, P, size_t(4 * P + 3)};  // uneven chunks
          run.root = root;
          run.in_place = in_place;
          run.nodes = Nodes::blocks(P, 2);    // the hierarchical all-reduce's leaders
          run.segment_B = 2 * sizeof(float);  // the segmented ring reduces in flight
          INFO(run.describe());
          const InProcessResult result = run_in_process(world, run);
          REQUIRE(result.verdict(algo.model(run.shape())) == "");
          const double N_B = double(run.N * sizeof(float));
          const uint64_t counted = result.counted.memory_moved_total_B,
                         modelled = modelled_moved_B(*op, run) + left_out_B(run);
          INFO("counted " << double(counted) / N_B << " N, modelled " << double(modelled) / N_B
                          << " N");
          CHECK(counted == modelled);
        }
  }
}
