// What was built: the commit (git describe --always --dirty), and for
// --version the compiler, CUDA and NCCL as built in. Defined in the
// version.cpp that cmake/version.cmake writes at every build (from
// version.cpp.in), rewritten only when it changes; no build date, so that a
// new build of the same commit rebuilds nothing.
#pragma once
#include <string>

namespace commlab {

std::string commlab_version();
// "allreduce (commlab 6153a73-dirty)", then one line each: MPI (where `mpi`
// names the library: host.hpp's mpi_version()), compiler, CUDA, NCCL.
std::string version_text(const std::string& program, const std::string& mpi = "");

}  // namespace commlab
