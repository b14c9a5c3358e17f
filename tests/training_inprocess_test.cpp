// training/ with the ranks as threads of one process, at every P to 9.
// ddp_step's buckets: each hand-written all-reduce recorded on every bucket
// and replayed one bucket at a time beside the backward pass, bucket sizes
// from a layer each to one bucket for all; the gradient exact against one
// all-reduce of the whole, each bucket's counted traffic its model's.
// alltoallv: every schedule on even, skewed and sparse matrices, every
// element where it belongs and the counted traffic its model's.
#include <catch2/catch.hpp>
#include <numeric>

#include "allreduce_algos/algorithms.hpp"
#include "core/comm/recorder.hpp"
#include "core/transports/thread_transport.hpp"
#include "operations/operation.hpp"
#include "training/alltoallv.hpp"
#include "training/ddp_step.hpp"

using namespace commlab;
using namespace commlab::ddp;

TEST_CASE("ddp: DDP's buckets take layers in backward order until they reach the cap") {
  const Bucketing b = bucket(5, 100, 4, 1000);  // 400 B a layer: three fill a bucket
  REQUIRE(b.buckets.size() == 2);
  CHECK(b.buckets[0].offset == 0);
  CHECK(b.buckets[0].count == 300);
  CHECK(b.buckets[1].offset == 300);
  CHECK(b.buckets[1].count == 200);  // the last, short
  CHECK(b.ready_after == std::vector<int>{2, 4});
  CHECK(bucket(5, 100, 4, 1).buckets.size() == 5);  // a layer over the cap: its own
  CHECK(bucket(5, 100, 4, 1 << 30).buckets.size() == 1);
}

TEST_CASE("ddp: the model's step waits for each bucket and the one before it") {
  const Bucketing b = bucket(4, 10, 4, 80);  // buckets after layers 1 and 3
  // Backward ends its layers at 10, 20, 30, 40 us.
  CHECK(model_step_us({10, 20, 30, 40}, b, {5, 5}) == Approx(45));   // 20..25, 40..45
  CHECK(model_step_us({10, 20, 30, 40}, b, {30, 1}) == Approx(51));  // 20..50, then 50..51
  CHECK(model_step_us({10, 20, 30, 40}, b, {1, 0}) == Approx(40));   // hidden: the compute's end
}

TEST_CASE("ddp: every hand-written all-reduce over buckets, in process, at every P to 9") {
  const auto op = make_operation("allreduce");
  for (int P = 1; P <= 9; ++P) {
    ThreadWorld world(P);
    for (const CollectiveAlgorithm& algo : op->algorithms) {
      if (algo.reads_peers) continue;
      for (size_t cap_B : {size_t(1), size_t(700), size_t(1) << 20}) {
        Settings s;
        s.layers = 3, s.hidden = 8, s.batch = 2;  // 64 floats a layer
        const Bucketing b = bucket(s.layers, 64, sizeof(float), cap_B);
        std::vector<std::string> errors(static_cast<size_t>(P));
        world.run([&](Transport& t) {
          Memory mem;
          Comm comm(t, mem);
          const Nodes nodes = Nodes::blocks(P, P);
          BucketedStep step(comm, nodes, s, b, algo.name);
          step.fill();
          step.step();
          const uint64_t wrong = step.wrong();
          const auto counted = step.count();
          if (wrong || !counted || !counted->exact)
            errors[t.rank()] = std::to_string(wrong) + " wrong, traffic " +
                               (counted && counted->exact ? "exact" : "differs");
        });
        for (int r = 0; r < P; ++r) {
          INFO(algo.name << " P = " << P << ", cap " << cap_B << " B, rank " << r);
          CHECK(errors[r] == "");
        }
      }
    }
  }
}

namespace {
// A matrix with zeros and a hot pair: rank i sends (i * 7 + j * 3) % 5 to
// rank j, nothing where that is 0, and rank 0 ten times more to rank P-1.
moe::Matrix sparse(int P) {
  moe::Matrix m(static_cast<size_t>(P), std::vector<uint64_t>(static_cast<size_t>(P)));
  for (int i = 0; i < P; ++i)
    for (int j = 0; j < P; ++j) m[i][j] = uint64_t((i * 7 + j * 3) % 5);
  m[0][size_t(P - 1)] += 50;
  return m;
}
}  // namespace

TEST_CASE("alltoallv: every schedule, in process, at every P to 9") {
  for (int P = 1; P <= 9; ++P) {
    ThreadWorld world(P);
    for (const moe::Matrix& m :
         {moe::generate("uniform", P, 37), moe::generate("zipf:1.2", P, 100), sparse(P)})
      for (const moe::Algorithm& algo : moe::algorithms()) {
        const Nodes nodes = Nodes::blocks(P, P);
        const Traffic model = moe::model(algo, m, nodes);
        std::vector<std::string> errors(static_cast<size_t>(P));
        world.run([&](Transport& t) {
          Memory mem;
          Comm comm(t, mem);
          const int me = t.rank();
          const moe::Blocks out = moe::sends_of(m, me), in = moe::receives_of(m, me);
          std::vector<int32_t> send, recv(in.total, -1);
          for (int j = 0; j < P; ++j)
            for (uint64_t k = 0; k < out.count[j]; ++k) send.push_back(moe::token(me, j, k));
          Recorder recorder(Keep::messages);
          {
            Attached attached(comm, recorder);
            moe::run(algo, {comm, m, send.data(), recv.data()});
          }
          const Traffic counted = recorder.gather_counts(comm.transport(), nodes);
          uint64_t wrong = 0;
          for (int i = 0; i < P; ++i)
            for (uint64_t k = 0; k < in.count[i]; ++k)
              wrong += recv[in.offset[i] + k] != moe::token(i, me, k);
          if (wrong || !counted.same_counts(model))
            errors[me] = std::to_string(wrong) + " wrong, " +
                         (counted.same_counts(model) ? "traffic exact" : "traffic differs");
        });
        for (int r = 0; r < P; ++r) {
          INFO(algo.name << " P = " << P << ", rank " << r);
          CHECK(errors[r] == "");
        }
      }
  }
}

TEST_CASE("alltoallv: the generators share out every token, the hottest expert first") {
  const moe::Matrix z = moe::generate("zipf:1.2", 4, 1000);
  for (const auto& row : z) CHECK(std::accumulate(row.begin(), row.end(), uint64_t{0}) == 1000);
  CHECK(z[1][0] > z[1][1]);
  CHECK(z[1][1] > z[1][3]);
  const moe::Matrix u = moe::generate("uniform", 3, 10);  // 4, 3, 3
  CHECK(u[0] == std::vector<uint64_t>{4, 3, 3});
  CHECK_THROWS_AS(moe::generate("zipf:x", 3, 10), UsageError);
  CHECK_THROWS_AS(moe::generate("normal", 3, 10), UsageError);
}
