#include <catch2/catch.hpp>
#include <cmath>

#include "ps_sim/model.hpp"
#include "ps_sim/placement.hpp"
#include "ps_sim/training.hpp"

using namespace commlab::ps;

TEST_CASE("every parameter belongs to exactly one shard, in every placement") {
  for (commlab::ps::Placement how : {commlab::ps::Placement::even, commlab::ps::Placement::uneven,
                                     commlab::ps::Placement::hashed})
    for (size_t row : {1, 5, 33})
      for (size_t rows : {1, 2, 7, 40})
        for (int S : {1, 2, 3, 8, 50}) {
          const size_t params = row * rows;
          auto shards = place(how, params, row, S);
          REQUIRE(shards.size() == size_t(S));
          std::vector<int> owners(params, 0);
          size_t total = 0;
          for (const Shard& s : shards) {
            total += s.count();
            for (const Range& r : s.ranges)
              for (size_t i = r.offset; i < r.offset + r.count; ++i) ++owners.at(i);
          }
          INFO(name(how) << " row " << row << " rows " << rows << " S " << S);
          CHECK(total == params);
          CHECK(std::all_of(owners.begin(), owners.end(), [](int n) { return n == 1; }));
        }
}

TEST_CASE("even shards differ by at most one parameter, uneven ones grow as 1, 2, 3") {
  auto even = place(commlab::ps::Placement::even, 10, 1, 4);
  CHECK(even[0].count() == 3);
  CHECK(even[3].count() == 2);
  auto uneven = place(commlab::ps::Placement::uneven, 60, 1, 3);  // 10, 20, 30
  CHECK(uneven[0].count() == 10);
  CHECK(uneven[1].count() == 20);
  CHECK(uneven[2].count() == 30);
  CHECK(uneven[2].ranges[0].offset == 30);
}

TEST_CASE("hashed placement keeps whole rows together") {
  auto shards = place(commlab::ps::Placement::hashed, 7 * 100, 7, 3);
  for (const Shard& s : shards)
    for (const Range& r : s.ranges) {
      CHECK(r.offset % 7 == 0);
      CHECK(r.count % 7 == 0);
    }
}

TEST_CASE("pack and unpack are inverse") {
  auto shards = place(commlab::ps::Placement::hashed, 5 * 20, 5, 3);
  std::vector<float> model(100), back(100, -1);
  for (size_t i = 0; i < model.size(); ++i) model[i] = float(i);
  for (const Shard& s : shards) {
    std::vector<float> packed(s.count());
    s.pack(model.data(), packed.data());
    s.unpack(packed.data(), back.data());
  }
  CHECK(back == model);
}

TEST_CASE("the gradient is the derivative of the loss (finite differences)") {
  // D = 16384: the size at which examples are not rescaled (model.cpp).
  const ModelShape shape{16384, 3};
  const Dataset data = make_partition(shape, 7, 0, 8);
  std::vector<float> w(shape.params()), g(shape.params()), unused(shape.params());
  for (size_t i = 0; i < w.size(); ++i) w[i] = 1e-3f * float(int(i % 7) - 3);
  gradient(data, w.data(), 0, 4, g.data());
  for (size_t i : {size_t{0}, size_t{5}, size_t{16384}, size_t{16390}, size_t{3 * 16385 - 1}}) {
    const float h = 1e-2f, keep = w[i];
    w[i] = keep + h;
    const double up = gradient(data, w.data(), 0, 4, unused.data());
    w[i] = keep - h;
    const double down = gradient(data, w.data(), 0, 4, unused.data());
    w[i] = keep;
    CHECK(g[i] == Approx((up - down) / (2 * h)).epsilon(0.02).margin(2e-3));
  }
}

TEST_CASE("every process builds the same partition, and each worker its own") {
  const ModelShape shape{16, 4};
  const Dataset a = make_partition(shape, 3, 1, 32), b = make_partition(shape, 3, 1, 32);
  const Dataset c = make_partition(shape, 3, 2, 32);
  CHECK(a.y == b.y);
  std::vector<float> xa(16), xb(16), xc(16);
  a.features(5, xa.data());
  b.features(5, xb.data());
  c.features(5, xc.data());
  CHECK(xa == xb);
  CHECK(xa != xc);
}

TEST_CASE("serial SGD lowers the loss") {
  Config cfg;
  cfg.shape = {256, 4};
  cfg.P = 2;
  cfg.iters = 12;
  const std::vector<float> trained = train_serial(cfg);
  const Dataset data = make_partition(cfg.shape, cfg.seed, 0, cfg.samples);
  std::vector<float> zero(cfg.shape.params(), 0.0f), g(cfg.shape.params());
  const double before = gradient(data, zero.data(), 0, cfg.batch, g.data());
  const double after = gradient(data, trained.data(), 0, cfg.batch, g.data());
  CHECK(before == Approx(cfg.batch * std::log(4.0)));
  CHECK(after < 0.5 * before);
}
