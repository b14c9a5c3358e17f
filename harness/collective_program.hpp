// One collective program (collective_program.cpp): the operation's library
// call and its hand-written algorithms on the same data, checked, timed and
// counted, for every dtype x op x size asked for.
#pragma once
#include <string>

namespace commlab {

// The whole program for one operation, or for one of its algorithms alone
// (allreduce_ring: the program name says which); returns the exit status.
int collective_main(int argc, char** argv, const std::string& operation,
                    const std::string& only_algorithm = "");

}  // namespace commlab
