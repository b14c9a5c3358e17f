// The links' own counters as the rows read them (harness/link_counters.hpp):
// /proc/net/dev's transmitted bytes of the devices named, summed.
#include "harness/link_counters.hpp"

#include <catch2/catch.hpp>
#include <sstream>

using namespace commlab;

namespace {
// A node of the emulated ring: its two ring links (r, l), its own address's
// pair (a, b) and its port to the control network (p). A large counter
// leaves no space after the colon.
const char* kNode2 =
    "Inter-|   Receive                                                |  Transmit\n"
    " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs "
    "drop fifo colls carrier compressed\n"
    "    lo:    2000      40    0    0    0     0          0         0     2000      40    0    0 "
    "   0     0       0          0\n"
    " cmll2:     796      10    0    0    0     0          0         0      800      10    0    0 "
    "   0     0       0          0\n"
    " cmlr2:12345678901 10    0    0    0     0          0         0 4294967296123 11    0    0 "
    "   0     0       0          0\n"
    " cmla2:     796      10    0    0    0     0          0         0      866      11    0    0 "
    "   0     0       0          0\n"
    " cmlp2:   19996     185    0    0    0     0          0         0     8289      89    0    0 "
    "   0     0       0          0\n";

std::optional<uint64_t> sent(const char* text, std::vector<std::string> prefixes) {
  std::istringstream in(text);
  return devices_sent_B(in, prefixes);
}
}  // namespace

TEST_CASE("link counters: the named devices' transmitted bytes, summed") {
  CHECK(sent(kNode2, {"cmlr", "cmll"}) == uint64_t(4294967296123) + 800);
  CHECK(sent(kNode2, {"cmll"}) == 800u);
  CHECK(sent(kNode2, {"cmlp"}) == 8289u);
}

TEST_CASE("link counters: none named here, or a line cut short, reads as none") {
  CHECK_FALSE(sent(kNode2, {"eth"}).has_value());
  CHECK_FALSE(sent(kNode2, {}).has_value());
  CHECK_FALSE(sent(" cmlr0: 1 2 3\n", {"cmlr"}).has_value());
  CHECK_FALSE(sent("", {"cmlr"}).has_value());
}
