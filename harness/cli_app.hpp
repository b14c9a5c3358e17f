// What the programs that build their own CLI11 flags share (ps_sim,
// ddp_step, alltoallv, predict, the lab's programs, and options.cpp itself).
// Apart from options.hpp, which most of the harness includes, so that only
// the files that build a CLI::App compile CLI11's header: it is header-only
// in Debian's 2.1, and about 10 s of each file's compile at -O3 on 2 cores.
#pragma once
#include <CLI/CLI.hpp>
#include <string>

namespace commlab {

// A program's own flags parsed (ps_sim, ddp_step, alltoallv): false after
// --help or --version, with `help` what to print; a bad flag throws
// UsageError. `version` is what --version prints.
bool parse_app(CLI::App& app, int argc, char** argv, const std::string& version, std::string& help);

// parse_finite's check (options.hpp) for a CLI11 option, before CLI11
// converts the value.
CLI::Validator finite_within(double min, double max);

}  // namespace commlab
