#include "core/vocabulary/partition.hpp"

#include <catch2/catch.hpp>

#include "core/device/packs.hpp"

using commlab::PackSplit;
using commlab::Partition;
using commlab::split_for_packs;

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

TEST_CASE("the GPU reduction's split: every element once, the packs on 16-byte boundaries") {
  for (size_t esize : {2, 4, 8})
    for (uintptr_t off = 0; off < 16; off += esize)
      for (size_t count = 0; count < 40; ++count) {
        const uintptr_t base = 4096 + off;
        const PackSplit s = split_for_packs(base, base + 1024, base + 4096, count, esize);
        CHECK(s.head + s.packs * (16 / esize) + s.tail == count);
        if (s.packs) CHECK((base + s.head * esize) % 16 == 0);  // the packs' first, for all three
        CHECK(s.head < 16 / esize);                             // a symmetric region: a few at most
        CHECK(s.tail < 16 / esize);
      }
  // Pointers off the boundary by different amounts: one by one throughout.
  const PackSplit apart = split_for_packs(4096, 4100, 4096, 1000, 4);
  CHECK((apart.head == 1000 && apart.packs == 0 && apart.tail == 0));
  // two_shot's chunk 1 of 100003 floats at P = 4 starts 25001 floats in, 4 B
  // off the boundary in all three regions: 3 alone, then packs.
  const uintptr_t chunk1 = 4096 + 25001 * 4;
  const PackSplit s = split_for_packs(chunk1, chunk1 + (1 << 21), chunk1 + (1 << 22), 25001, 4);
  CHECK((s.head == 3 && s.packs == 6249 && s.tail == 2));
}
