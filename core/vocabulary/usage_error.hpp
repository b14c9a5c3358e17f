// Bad input, and the exit statuses every program shares: apart from
// errors.hpp (which agrees on errors over MPI), so that what only names and
// parses values (types, outcomes, the report) needs no MPI.
#pragma once
#include <stdexcept>

namespace commlab {

constexpr int kExitUsage = 2;  // bad input, detected before anything is measured
constexpr int kExitWrong = 1;  // ran, but a result or a traffic count was wrong

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace commlab
