// --overlap's arithmetic, with fixed numbers: OSU's and IMB-NBC's formulas,
// the compute's test calls, the time model's overlap of a schedule of rounds,
// and how a recorded schedule is cut into rounds (core/comm/schedule.hpp).
// Nothing here is timed: the replay of every algorithm is the in-process
// tests' ("replayed non-blocking"), the programs' rows the CLI test's.
#include "harness/overlap.hpp"

#include <catch2/catch.hpp>

#include "core/comm/schedule.hpp"

using namespace commlab;

TEST_CASE("overlap: OSU's figure, as osu_util_mpi.c computes it") {
  // overall - (cpu - test) is what the call added to the compute.
  CHECK(osu_overlap_pct(100, 110, 10, 150) == Approx(50));
  CHECK(osu_overlap_pct(100, 110, 10, 100) == Approx(100));
  CHECK(osu_overlap_pct(100, 110, 10, 250) == 0);           // clamped at 0
  CHECK(osu_overlap_pct(100, 110, 10, 90) == Approx(110));  // not clamped above, as OSU's
  CHECK(osu_overlap_pct(0, 10, 0, 10) == 0);
}

TEST_CASE("overlap: IMB-NBC's figure, with max in the denominator as its code has it") {
  CHECK(imb_overlap_pct(100, 100, 100) == Approx(100));  // overall = max: all hidden
  CHECK(imb_overlap_pct(100, 100, 200) == 0);            // overall = sum: none
  CHECK(imb_overlap_pct(100, 50, 125) == Approx(25));    // (150 - 125) / 100
  CHECK(imb_overlap_pct(100, 100, 50) == Approx(100));   // clamped at 100
}

TEST_CASE("overlap: the compute makes exactly `probes` test calls, after its slices") {
  for (int probes : {0, 1, 7}) {
    int calls = 0;
    compute_with_probes(1e-4, probes, [&] { return ++calls > 0; });
    CHECK(calls == probes);
  }
}

TEST_CASE("overlap: the model hides a round per test that comes after its share of time") {
  CHECK(model_overlap_pct(0, 0) == 100);          // nothing to send
  CHECK(model_overlap_pct(1, 0) == 100);          // one round, posted at the start
  CHECK(model_overlap_pct(4, 0) == Approx(25));   // the first; three paid after
  CHECK(model_overlap_pct(4, 4) == Approx(100));  // a test at each quarter
  CHECK(model_overlap_pct(4, 2) == Approx(50));   // two rounds done, the third just posted
  CHECK(model_overlap_pct(2, 3) == Approx(100 * (1 - 1.0 / 6)));  // tests at 1/3, 2/3, 1
  CHECK(model_overlap_pct(6, 100) > model_overlap_pct(6, 3));
}

namespace {
Action post(Act act, int peer, int step) {
  Action a{act, peer};
  a.bytes = 4, a.step = {step};
  return a;
}
}  // namespace

TEST_CASE("overlap: a recorded schedule is cut into rounds at its waits") {
  const Action wait{Act::wait}, copy{Act::copy}, land{Act::land};
  // A sendrecv_reduce, a copy, then isend, irecv, a local reduction while
  // they fly, a wait (segmented ring), then a copy after the last wait.
  const Schedule s =
      compile({post(Act::send, 1, 0), post(Act::recv, 1, 0), wait, land, copy,
               post(Act::send, 1, 1), post(Act::recv, 1, 1), Action{Act::reduce}, wait, copy});
  REQUIRE(s.rounds.size() == 3);
  CHECK(s.rounds[0].posts == 2);
  CHECK(s.rounds[0].finish.size() == 1);  // the reduction as the message landed
  CHECK(s.rounds[1].start.size() == 4);   // copy, two posts, the local reduction, in order
  CHECK(s.rounds[1].start[0].act == Act::copy);
  CHECK(s.rounds[1].start[3].act == Act::reduce);
  CHECK(s.rounds[2].posts == 0);  // local work alone: done at once
  CHECK(s.replayable());
  CHECK_THROWS_AS(compile({land}), std::logic_error);  // a landing with no wait before it
}

TEST_CASE("overlap: what cannot be replayed is named") {
  ScheduleLog log;
  log.add(post(Act::send, 1, 0));
  log.cannot_replay("a fence");
  log.cannot_replay("a read of a peer's memory");  // the first reason is kept
  CHECK(log.compile().cannot_replay == "a fence");
}
