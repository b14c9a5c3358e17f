// The one median the suite uses: of the timed iterations, of the time
// model's probe tries, of the report's runs.
#pragma once
#include <algorithm>
#include <vector>

namespace commlab {

// The middle value; for an even count, the mean of the middle two; 0 for none.
inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace commlab
