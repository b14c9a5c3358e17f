#include "cli_app.hpp"

#include <fmt/format.h>

#include "core/comm/errors.hpp"
#include "core/vocabulary/numbers.hpp"

namespace commlab {

bool parse_app(CLI::App& app, int argc, char** argv, const std::string& version,
               std::string& help) {
  help = app.help();
  app.set_version_flag("--version", version);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    return false;
  } catch (const CLI::CallForVersion& e) {
    help = std::string(e.what()) + "\n";
    return false;
  } catch (const CLI::ParseError& e) {
    throw UsageError(e.what());
  }
  return true;
}

CLI::Validator finite_within(double min, double max) {
  return CLI::Validator(
      [min, max](std::string& text) {
        const auto v = finite_number(text);
        return v && *v >= min && *v <= max
                   ? std::string()
                   : fmt::format("'{}' is not a number from {:g} to {:g}", text, min, max);
      },
      fmt::format("NUMBER in [{:g}, {:g}]", min, max));
}

}  // namespace commlab
