#include "operations/pattern.hpp"

#include <catch2/catch.hpp>
#include <cmath>

#include "core/device/host_alloc.hpp"
#include "core/device/memory.hpp"
#include "core/device/reduce.hpp"
#include "harness/buffer.hpp"

using namespace commlab;

namespace {
Pattern pattern(Op op, int P, DType t = DType::float32) { return {Fill::pattern, t, op, P}; }
}  // namespace

TEST_CASE("fill values are small integers and depend on rank and index") {
  CHECK(pattern(Op::sum, 4).value(0, 0) != pattern(Op::sum, 4).value(1, 0));
  CHECK(pattern(Op::sum, 4).value(0, 0) != pattern(Op::sum, 4).value(0, 1));
  CHECK(Pattern{Fill::rank, DType::float32, Op::sum, 4}.value(3, 17) == 47);  // 10r + i
  CHECK(Pattern{Fill::rank, DType::float32, Op::prod, 4}.value(3, 17) == 3);  // r: a product
  // bfloat16 holds integers to 256: at P = 8, 8 x (70 + i) is not exact, so r alone.
  CHECK(Pattern{Fill::rank, DType::bfloat16, Op::sum, 8}.value(3, 0) == 3);
}

TEST_CASE("the rank that wins max and min moves with the index") {
  for (DType t : all_dtypes()) {
    const Pattern max = pattern(Op::max, 5, t), min = pattern(Op::min, 5, t);
    auto winner = [&](const Pattern& pat, size_t i) {
      int best = 0;
      for (int r = 1; r < pat.P; ++r)
        if (combine(pat.op, pat.value(r, i), pat.value(best, i)) != pat.value(best, i)) best = r;
      return best;
    };
    CHECK(winner(max, 0) != winner(max, 1));
    CHECK(winner(min, 0) != winner(min, 1));
  }
}

// `op` folded over the ranks in the dtype itself, forwards or backwards.
template <class T>
T fold(const Pattern& pat, size_t i, bool backwards) {
  auto at = [&](int k) { return static_cast<T>(pat.value(backwards ? pat.P - 1 - k : k, i)); };
  T acc = at(0);
  for (int k = 1; k < pat.P; ++k) acc = combine(pat.op, acc, at(k));
  return acc;
}

TEST_CASE("reductions of the pattern are exact in every dtype, in any order") {
  for (DType t : all_dtypes()) {
    // float32 up to P = 2048; float16 and bfloat16 up to where even M = 1 stops being exact.
    const int most = t == DType::bfloat16 ? 85 : t == DType::float16 ? 682 : 2048;
    for (int P : {1, 2, 3, 7, 9, 10, 26, 27, 64, 85, 682, 1000, 2048}) {
      if (P > most) continue;
      for (Op op : all_ops())
        for (size_t i : {0, 1, 2, 5, 1234567}) {
          const Pattern pat = pattern(op, P, t);
          const int64_t v = pat.reduced(i);
          INFO(name(t) << " " << name(op) << " P=" << P << " i=" << i << " exact " << v);
          if (op != Op::prod) REQUIRE(std::llabs(v) <= exact_integers(t));  // prod: 2^k
          visit_dtype(t, [&](auto x) {
            using T = decltype(x);
            REQUIRE(static_cast<double>(static_cast<T>(v)) == double(v));
            REQUIRE(static_cast<double>(fold<T>(pat, i, false)) == double(v));
            REQUIRE(static_cast<double>(fold<T>(pat, i, true)) == double(v));
          });
        }
    }
  }
}

TEST_CASE("moved values are exact in their dtype and tell ranks apart") {
  for (DType t : all_dtypes()) {
    const Pattern pat{Fill::pattern, t, Op::sum, 4};
    CHECK(pat.moved(0, 0) != pat.moved(1, 0));
    for (size_t i : {0, 1, 250, 2038, 8388592}) CHECK(pat.moved(3, i) <= exact_integers(t));
  }
}

TEST_CASE("float16 and bfloat16 round to nearest even, as the GPU does") {
  CHECK(float16(1.0f).bits == 0x3C00);
  CHECK(float16(65504.0f).bits == 0x7BFF);
  CHECK(float16(65519.0f).bits == 0x7BFF);
  CHECK(float16(65520.0f).bits == 0x7C00);                  // ties to even: infinity
  CHECK(float16(2049.0f).bits == float16(2048.0f).bits);    // tie, down to even
  CHECK(float16(2051.0f).bits == float16(2052.0f).bits);    // tie, up to even
  CHECK(float16(5.9604644775390625e-08f).bits == 0x0001);   // smallest subnormal
  CHECK(float16(2.98023223876953125e-08f).bits == 0x0000);  // half of it: ties to zero
  CHECK(float16(-2.0f).bits == 0xC000);
  CHECK(static_cast<float>(float16(0.1f)) == 0.0999755859375f);
  CHECK(static_cast<float>(float16(uint16_t{0})) == 0.0f);
  CHECK(bfloat16(1.0f).bits == 0x3F80);
  CHECK(bfloat16(257.0f).bits == bfloat16(256.0f).bits);  // 9 bits: a tie, down to even
  CHECK(bfloat16(259.0f).bits == bfloat16(260.0f).bits);
  CHECK(static_cast<float>(bfloat16(-3.5f)) == -3.5f);
  // every float16 value converts to float32 and back unchanged
  for (uint32_t b = 0; b < 0x10000; ++b) {
    if ((b & 0x7C00) == 0x7C00 && (b & 0x3FF)) continue;  // NaN
    float16 h;
    h.bits = static_cast<uint16_t>(b);
    REQUIRE(float16(static_cast<float>(h)).bits == b);
  }
}

TEST_CASE("known vector: all-reduce sum of 10r + i over P = 4 gives 60 + 4i") {
  CHECK((Pattern{Fill::rank, DType::float32, Op::sum, 4}.reduced(0)) == 60);
  CHECK((Pattern{Fill::rank, DType::float32, Op::sum, 4}.reduced(3)) == 72);
  CHECK((Pattern{Fill::rank, DType::float32, Op::max, 4}.reduced(3)) == 33);
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

// host_alloc.hpp: every host buffer and scratch starts on a page, even after
// a large block is freed (when glibc's raised mmap threshold would hand out
// heap blocks aligned to 16 bytes only).
TEST_CASE("host buffers and scratch start on a page") {
  const size_t page = page_size_B();
  { Buffer big(DType::float32, size_t(8) << 20); }  // 32 MiB freed: raises glibc's threshold
  for (size_t count : {size_t(0), size_t(1), size_t(1000), size_t(1) << 18}) {
    Buffer b(DType::float32, count);
    CHECK(reinterpret_cast<uintptr_t>(b.data()) % page == 0);
  }
  Memory mem(Device::host);
  for (size_t bytes : {size_t(1), size_t(4096), size_t(3) << 20})
    CHECK(reinterpret_cast<uintptr_t>(mem.scratch(bytes)) % page == 0);
}
