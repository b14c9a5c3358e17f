// libFuzzer target: the flag parser every collective program shares. The
// input is an argv, items split at NUL bytes. Whatever it holds, parsing
// ends in Options or a UsageError (never a crash, a hang or undefined
// behaviour), and Options that parse can be sized without wrapping.
#include <cstdint>
#include <string>
#include <vector>

#include "core/comm/errors.hpp"
#include "core/vocabulary/numbers.hpp"
#include "harness/options.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> args{"fuzz"};
  std::string item;
  for (size_t i = 0; i < size; ++i) {
    if (data[i] == 0) {
      args.push_back(item);
      item.clear();
    } else {
      item += char(data[i]);
    }
  }
  args.push_back(item);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  try {
    const commlab::Parsed p = commlab::parse_options(int(argv.size()), argv.data(), "fuzz", "fuzz");
    if (!p.run) return 0;
    for (commlab::DType t : p.opts.dtypes)
      for (size_t c : p.opts.counts_for(t))
        if (!commlab::product(c, commlab::element_size(t))) __builtin_trap();
  } catch (const commlab::UsageError&) {
  }
  return 0;
}
