// How a measured run came out. Outcomes are values; they become words only
// where rows are written (results.cpp, ps_sim's schema) and printed, and are
// read back into values where rows are read (analysis/rows.cpp).
#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace commlab {

// The result against the exact answer (and the traffic against the model):
// every element right, something wrong, or not checked (-c off).
enum class Check { ok, fail, off };
// The counted traffic against the algorithm's exact model: no count (a
// library call, which Comm does not see), equal, or not.
enum class TrafficCheck { none, exact, differs };

std::string name(Check c);         // ok | FAIL | off
std::string name(TrafficCheck t);  // "" | exact | DIFFERS
// The value a row's cell names; UsageError naming the accepted words.
Check parse_check(const std::string& s);
TrafficCheck parse_traffic_check(const std::string& s);

// This rank's view of one checked run.
struct Verdict {
  uint64_t wrong = 0;                   // elements differing from the exact result
  std::optional<uint64_t> diff_vs_lib;  // elements differing from the library's result
  std::string note;                     // the first mismatch, if any
};

}  // namespace commlab
