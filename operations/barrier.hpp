// The barrier's own check (barrier.cpp): nobody leaves before everybody arrived.
#pragma once
#include <vector>

namespace commlab {

// Which ranks left a barrier before the last one arrived. Times
// are on one reference clock, each known to within its error bound.
struct BarrierTiming {
  double enter, enter_err;             // the late rank's arrival
  std::vector<double> exit, exit_err;  // every rank's departure
};
std::vector<int> early_leavers(const BarrierTiming& t);

}  // namespace commlab
