// A collective program's flags held against its operation and P, on every
// rank alike (bad input: UsageError, one line), and what they come to: the
// algorithms that run, the library's MPI calls, the memory a rank will hold.
#pragma once
#include <string>
#include <vector>

#include "admission.hpp"
#include "operations/operation.hpp"
#include "options.hpp"

namespace commlab {

// The MPI calls an operation's library rows make (even and uneven forms).
std::vector<std::string> mpi_calls(const Operation& op);
// --mpi-algorithm list: the algorithms Open MPI has for the operation's
// call (its even form), one a line; none with another MPI.
std::string mpi_algorithm_list(const Operation& op);
// The algorithms asked for that this transport can run: those that read
// peers' memory only on the direct transport. Named with -a elsewhere: refused.
std::vector<std::string> runnable(const Operation& op, const Options& o,
                                  std::vector<std::string> algorithms);
// Everything about the flags that needs P: --mpi-algorithm and --mpi-rules
// (Open MPI's; skipped with another MPI, said in the heading), --registered,
// --in-place, counts the operation's MPI call cannot take.
void refuse_bad_input(const Operation& op, const Options& o, int P);
// What this rank holds at most over the shapes asked for, in units of its
// largest buffer: the input, the exact answer, a result per library call, one
// for the hand-written algorithms, and the scratch they take
// (Operation::scratch_count: two buffers, for most); on GPUs the host
// holds only the library call's two page-locked copies (LibraryStaging). On
// the direct transport, its region too: region_layout's, sized by the
// largest rank's buffers (a root's may be P times the others'), and at
// least the time model's probe, which the runner registers first.
Footprint footprint(const Operation& op, const Options& o, int P, int rank);

}  // namespace commlab
