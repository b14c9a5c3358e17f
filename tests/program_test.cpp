// The device program (core/device/program.hpp) run on the host, as the
// emulated GPU runs it: steps in order, a fold of more terms than a step
// holds split onto the first step's sum, a signal op run in its place.
#include "core/device/program.hpp"

#include <catch2/catch.hpp>
#include <cstdint>
#include <numeric>
#include <vector>

using commlab::Awaited;
using commlab::DType;
using commlab::kTermsPerStep;
using commlab::Op;
using commlab::Program;
using commlab::ProgramStep;
using commlab::SignalOp;
using commlab::SignalSlot;
using commlab::StepKind;

TEST_CASE("a device program runs its steps in order on the host") {
  std::vector<int32_t> a(5), b(5, 10), out(5, -1);
  std::iota(a.begin(), a.end(), 1);
  Program p;
  p.copy(out.data(), a.data(), a.size() * 4);                               // out = a
  p.reduce_to(DType::int32, Op::sum, out.data(), out.data(), b.data(), 5);  // out = a + b
  p.copy(out.data(), out.data(), 20);  // a copy onto itself is no step
  REQUIRE(p.steps().size() == 2);
  for (const ProgramStep& s : p.steps()) run_step(p, s);
  CHECK(out == std::vector<int32_t>{11, 12, 13, 14, 15});
}

TEST_CASE("a fold of more terms than a step holds goes on onto the first step's sum") {
  constexpr int kTerms = 40;  // one_shot's terms at P = 40: kTermsPerStep, then 8 more
  std::vector<std::vector<int64_t>> terms(kTerms, std::vector<int64_t>(3));
  std::vector<const void*> at;
  for (int k = 0; k < kTerms; ++k) {
    terms[k] = {k, 2 * k, 1};
    at.push_back(terms[k].data());
  }
  std::vector<int64_t> sum(3, -7);
  Program p;
  p.reduce_many(DType::int64, Op::sum, sum.data(), at.data(), kTerms, 3);
  REQUIRE(p.steps().size() == 2);
  CHECK((!p.steps()[0].onto && p.steps()[0].n == kTermsPerStep));
  CHECK((p.steps()[1].onto && p.steps()[1].n == kTerms - kTermsPerStep));
  CHECK(memory_of(p, p.steps()[1]).size() == 1 + kTerms - kTermsPerStep);
  CHECK(memory_of(p, p.steps()[1]).front().bytes == 3 * sizeof(int64_t));
  for (const ProgramStep& s : p.steps()) run_step(p, s);
  CHECK(sum == std::vector<int64_t>{780, 1560, 40});
  // One term: a copy of it.
  Program one;
  one.reduce_many(DType::int64, Op::max, sum.data(), at.data() + 5, 1, 3);
  run_step(one, one.steps()[0]);
  CHECK(sum == std::vector<int64_t>{5, 10, 1});
}

TEST_CASE("a signal op is a step of its own, run where it stands") {
  // A message from a rank to itself: posted into its own slot, then taken.
  uint64_t posted = 0, taken = 0;
  SignalSlot slot{};
  std::vector<float> region{1, 2, 3, 4}, acc{10, 20, 30, 40};
  SignalOp op;
  op.post = true, op.room = {&taken, 0, 0, Awaited::room}, op.slot = &slot;
  op.where = {4, 8}, op.posted = {&posted, 1};  // floats 1 and 2 of the region
  op.take = true, op.arrived = {&posted, 1, 0, Awaited::posted}, op.from_slot = &slot;
  op.peer_base = reinterpret_cast<const char*>(region.data());
  op.dst = reinterpret_cast<char*>(acc.data() + 2), op.bytes = 8;
  op.reduce = true, op.dtype = DType::float32, op.op = Op::sum, op.taken = {&taken, 1};
  Program p;
  p.copy(acc.data(), region.data(), 4);  // acc[0] = 1 first
  p.signal(op);
  REQUIRE(p.steps().size() == 2);
  CHECK((p.steps()[1].kind == StepKind::signal && p.steps()[1].dtype == DType::float32));
  for (const ProgramStep& s : p.steps()) run_step(p, s);
  CHECK(acc == std::vector<float>{1, 20, 32, 43});
  CHECK((posted == 1 && taken == 1));
}
