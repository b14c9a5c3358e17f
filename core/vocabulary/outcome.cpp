#include "outcome.hpp"

#include "names.hpp"

namespace commlab {

namespace {

const Names<Check> kChecks = {{Check::ok, "ok"}, {Check::fail, "FAIL"}, {Check::off, "off"}};
const Names<TrafficCheck> kTrafficChecks = {
    {TrafficCheck::none, ""}, {TrafficCheck::exact, "exact"}, {TrafficCheck::differs, "DIFFERS"}};

}  // namespace

std::string name(Check c) { return name_in(kChecks, c); }
std::string name(TrafficCheck t) { return name_in(kTrafficChecks, t); }
Check parse_check(const std::string& s) { return parse_in(kChecks, s, "check"); }
TrafficCheck parse_traffic_check(const std::string& s) {
  return parse_in(kTrafficChecks, s, "traffic");
}

}  // namespace commlab
