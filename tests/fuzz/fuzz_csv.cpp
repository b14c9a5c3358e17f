// libFuzzer target: the report's reader of results CSV files. Any text gives
// rows or a ReportError naming the file; every row read has P >= 1 and
// finite times and rates of 0 or more.
#include <cmath>
#include <cstdint>
#include <string>

#include "analysis/rows.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    for (const commlab::Measurement& m : commlab::read_rows("fuzz.csv", text))
      if (m.P < 1 || !std::isfinite(m.t_avg_us) || m.t_avg_us < 0 || !(m.busbw_GBps >= 0))
        __builtin_trap();
  } catch (const commlab::ReportError&) {
  }
  return 0;
}
