// How a wait ends when it cannot complete: thrown by the transports and the
// signalling that wait (core/transports/, core/device/signals.cpp), caught by
// the harness, which reports the rank that failed first.
#pragma once
#include <stdexcept>

namespace commlab {

// A wait ended because another rank failed first: its error is the one to report.
struct OtherRankFailed {};

// A wait that ran past its limit (the in-process transport): a schedule that deadlocks.
struct Timeout : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace commlab
