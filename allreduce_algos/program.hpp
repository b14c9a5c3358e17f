#pragma once
#include <string>

namespace commlab {
// The whole program for one all-reduce algorithm; returns the exit status.
int allreduce_main(int argc, char** argv, const std::string& algorithm);
}  // namespace commlab
