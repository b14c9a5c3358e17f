#include <catch2/catch.hpp>

#include "core/partition.hpp"

using commlab::Partition;

TEST_CASE("parts are as equal as possible, the first count % P one larger") {
  Partition p{10, 4};
  CHECK(p.size(0) == 3);
  CHECK(p.size(1) == 3);
  CHECK(p.size(2) == 2);
  CHECK(p.size(3) == 2);
  CHECK(p.offset(0) == 0);
  CHECK(p.offset(1) == 3);
  CHECK(p.offset(2) == 6);
  CHECK(p.offset(3) == 8);
  CHECK(p.largest() == 3);
}

TEST_CASE("parts tile the buffer for every count and P") {
  for (int P = 1; P <= 9; ++P)
    for (size_t count : {0, 1, 2, 7, 8, 9, 100, 1001}) {
      Partition p{count, P};
      size_t next = 0;
      for (int c = 0; c < P; ++c) {
        REQUIRE(p.offset(c) == next);
        REQUIRE(p.size(c) <= p.largest());
        REQUIRE(p.largest() - p.size(c) <= 1);
        next += p.size(c);
      }
      REQUIRE(next == count);
    }
}

TEST_CASE("counts below P leave the last parts empty") {
  Partition p{2, 5};
  CHECK(p.size(0) == 1);
  CHECK(p.size(1) == 1);
  CHECK(p.size(2) == 0);
  CHECK(p.offset(4) == 2);
}
