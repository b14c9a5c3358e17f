#include <catch2/catch.hpp>
#include <cmath>

#include "core/buffer.hpp"
#include "core/pattern.hpp"
#include "core/reduce.hpp"

using namespace commlab;

TEST_CASE("fill values are small integers and depend on rank and index") {
  CHECK(fill_value(Fill::pattern, Op::sum, 0, 0, 4) != fill_value(Fill::pattern, Op::sum, 1, 0, 4));
  CHECK(fill_value(Fill::pattern, Op::sum, 0, 0, 4) != fill_value(Fill::pattern, Op::sum, 0, 1, 4));
  CHECK(fill_value(Fill::rank, Op::sum, 3, 17, 4) == 3);
}

TEST_CASE("the rank that wins max and min moves with the index") {
  const int P = 5;
  auto winner = [&](Op op, size_t i) {
    int best = 0;
    for (int r = 1; r < P; ++r)
      if (combine(op, fill_value(Fill::pattern, op, r, i, P),
                  fill_value(Fill::pattern, op, best, i, P)) !=
          fill_value(Fill::pattern, op, best, i, P))
        best = r;
    return best;
  };
  CHECK(winner(Op::max, 0) != winner(Op::max, 1));
  CHECK(winner(Op::min, 0) != winner(Op::min, 1));
}

TEST_CASE("reductions of the pattern are exact in float32 up to P = 2048") {
  for (int P : {1, 2, 3, 7, 64, 1000, 2048})
    for (Op op : all_ops())
      for (size_t i : {0, 1, 2, 5, 1234567}) {
        int64_t v = reduced_value(Fill::pattern, op, i, P);
        REQUIRE(std::llabs(v) < (int64_t{1} << 24));
        REQUIRE(static_cast<int64_t>(static_cast<float>(v)) == v);
        // any order: the reverse order gives the same float32 result
        float fwd = static_cast<float>(fill_value(Fill::pattern, op, 0, i, P));
        float rev = static_cast<float>(fill_value(Fill::pattern, op, P - 1, i, P));
        for (int r = 1; r < P; ++r) {
          fwd = combine(op, fwd, static_cast<float>(fill_value(Fill::pattern, op, r, i, P)));
          rev =
              combine(op, rev, static_cast<float>(fill_value(Fill::pattern, op, P - 1 - r, i, P)));
        }
        REQUIRE(fwd == static_cast<float>(v));
        REQUIRE(rev == static_cast<float>(v));
      }
}

TEST_CASE("brief.md: all-reduce sum of value r over P = 4 gives 6") {
  CHECK(reduced_value(Fill::rank, Op::sum, 0, 4) == 6);
  CHECK(reduced_value(Fill::rank, Op::max, 3, 4) == 3);
}

TEST_CASE("Reduction::apply matches combine for every dtype and op") {
  for (DType t : all_dtypes())
    for (Op op : all_ops()) {
      Buffer a(t, 5), b(t, 5);
      a.fill([](size_t i) { return int64_t(i) - 2; });
      b.fill([](size_t i) { return 3 - int64_t(i); });
      Reduction{t, op}.apply(a.data(), b.data(), 5);
      Mismatch m =
          compare(a, [&](size_t i) { return combine(op, int64_t(i) - 2, 3 - int64_t(i)); });
      INFO(name(t) << " " << name(op) << " " << m.first);
      REQUIRE(m.wrong == 0);
    }
}

TEST_CASE("compare counts wrong elements and names the first") {
  Buffer a(DType::int32, 4);
  a.fill([](size_t i) { return int64_t(i); });
  Mismatch m = compare(a, [](size_t i) { return i == 2 || i == 3 ? 9 : int64_t(i); });
  CHECK(m.wrong == 2);
  CHECK(m.first == "element 2: got 2, want 9");
}
