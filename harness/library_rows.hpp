// The library's rows of a collective program (MPI, NCCL): each call's case,
// named for what was forced on it, and its messages, where Open MPI's
// monitoring counts them, told apart by the hand-written algorithms' models
// (docs/mpi-algorithms.md).
#pragma once
#include <string>
#include <vector>

#include "shape_data.hpp"

namespace commlab {

// A library call's row name, and the algorithm forced on it: Open MPI's,
// where --mpi-algorithm names one of this call's (MPI_Allreduce:ring), or
// its rules file's choice (MPI_Allreduce:rules).
struct LibraryName {
  std::string row, forced;
};
LibraryName library_name(const Options& o, const std::string& call, Impl impl);

// Where the library's messages are counted: the hand-written algorithms'
// models (in the operation's order) that tell which one the library ran,
// and the forced algorithm's own, if it is one of ours, to compare it with.
void tell_apart(const ProgramContext& ctx, Case& c, const std::string& forced,
                const std::vector<Traffic>& models);

// Each library call of the operation on d's shape, as a row; results kept
// in d.lib_results for the hand-written rows to be compared with.
std::vector<Row> library_rows(const std::vector<std::string>& algorithms, ShapeData& d);

}  // namespace commlab
