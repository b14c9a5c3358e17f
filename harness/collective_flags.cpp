#include "collective_flags.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <climits>

#include "core/comm/time_model.hpp"
#include "tuned.hpp"

namespace commlab {

std::vector<std::string> mpi_calls(const Operation& op) {
  std::vector<std::string> calls;
  for (const LibraryCall& lib : op.library)
    if (lib.impl == Impl::mpi)
      for (const std::string& call : {lib.name, lib.uneven_name})
        if (!call.empty()) calls.push_back(call);
  return calls;
}

std::string mpi_algorithm_list(const Operation& op) {
  const std::vector<std::string> calls = mpi_calls(op);
  const MpiLibrary* library = built_library();
  const TunedCall* tuned =
      calls.empty() || !library ? nullptr : tuned_call(calls.front(), *library);
  if (!tuned) return "";
  return fmt::format("{}\n", fmt::join(tuned->algorithms, "\n"));
}

namespace {

// --mpi-algorithm names one of the library's algorithms for this operation's
// calls (Open MPI's or MPICH's), and --mpi-rules a file it reads; with another
// MPI both are skipped (said in the heading), not refused.
void refuse_bad_library_flags(const Operation& op, const Options& o, int P) {
  if (!built_library()) return;
  const MpiLibrary library = *built_library();
  if (!o.mpi_rules.empty()) {
    const std::string problem = rules_problem(o.mpi_rules, library);
    if (!problem.empty()) throw UsageError(problem);
  }
  if (o.mpi_algorithm.empty()) return;
  std::string choices;
  for (const std::string& call : mpi_calls(op)) {
    const TunedCall* tuned = tuned_call(call, library);
    if (!tuned) continue;
    if (tuned_number(*tuned, o.mpi_algorithm)) {
      // Open MPI refuses it mid-run (MPI_ERR_UNSUPPORTED_OPERATION) at any other P.
      if (o.mpi_algorithm == "two_proc" && P != 2)
        throw UsageError(
            fmt::format("--mpi-algorithm two_proc: Open MPI runs it at P = 2 only, not {}", P));
      return;
    }
    choices += fmt::format("{}{}: {}", choices.empty() ? "" : "; ", call,
                           fmt::join(tuned->algorithms, ", "));
  }
  throw UsageError(choices.empty()
                       ? fmt::format("--mpi-algorithm: {} has no algorithms to force for {}",
                                     name(library), op.name)
                       : fmt::format("--mpi-algorithm {}: not one of {}'s ({})", o.mpi_algorithm,
                                     name(library), choices));
}

}  // namespace

std::vector<std::string> runnable(const Operation& op, const Options& o,
                                  std::vector<std::string> algorithms) {
  if (o.transport == TransportKind::direct) return algorithms;
  std::vector<std::string> kept;
  for (const std::string& a : algorithms) {
    const auto it = std::find_if(op.algorithms.begin(), op.algorithms.end(),
                                 [&](const CollectiveAlgorithm& c) { return c.name == a; });
    if (it == op.algorithms.end() || !it->reads_peers) {
      kept.push_back(a);
      continue;
    }
    if (!o.algorithms.empty())
      throw UsageError("-a " + a + ": it reads peers' memory, which only --transport direct maps");
  }
  return kept;
}

void refuse_bad_input(const Operation& op, const Options& o, int P) {
  refuse_bad_library_flags(op, o, P);
  if (o.registered && o.transport != TransportKind::direct)
    throw UsageError("--registered: only with --transport direct (the buffers peers map)");
  if (o.registered && !op.has_data)
    throw UsageError("--registered: " + op.name + " has no buffers");
  // Checked here, once the transport is settled: a program named for an
  // algorithm that reads peers' memory (allreduce_one_shot) runs direct.
  if (o.overlap && o.transport == TransportKind::direct)
    throw UsageError(
        "--overlap: over MPI only; --transport direct reads peers' memory, which "
        "nothing can progress by test calls");
  if (o.in_place && op.in_place_form == InPlace::never)
    throw UsageError("--in-place: " + op.name + " has no in-place form");
  if (!op.has_data) return;
  for (DType t : o.dtypes)
    for (size_t n : o.counts_for(t)) {
      if (op.int_counts && n > size_t(INT_MAX))
        throw UsageError(
            fmt::format("{} elements: MPI counts are int, so {} takes at most {} elements of {}", n,
                        op.name, INT_MAX, name(t)));
      std::string why = op.refuse(P, n, o.in_place);
      if (!why.empty()) throw UsageError(why);
    }
}

Footprint footprint(const Operation& op, const Options& o, int P, int rank) {
  const bool direct = o.transport == TransportKind::direct;
  double largest_B = 0, scratch_B = 0, region_B = direct ? double(kProbeScratch_B) : 0;
  const bool in_place =
      op.in_place_form == InPlace::always || (op.in_place_form == InPlace::optional && o.in_place);
  for (DType t : o.dtypes)
    for (size_t n : op.has_data ? o.counts_for(t) : std::vector<size_t>{}) {
      const double esize = double(element_size(t));
      const Layout L = op.layout(P, rank, o.root < P ? o.root : 0, n, in_place);
      largest_B = std::max(largest_B, double(std::max(L.in, L.out)) * esize);
      scratch_B =
          std::max(scratch_B, double(op.scratch_count(P, n, std::max(L.in, L.out))) * esize);
      size_t in = 0, out = 0;
      for (int r = 0; direct && r < P; ++r) {
        const Layout R = op.layout(P, r, o.root < P ? o.root : 0, n, in_place);
        in = std::max(in, R.in), out = std::max(out, R.out);
      }
      region_B = std::max(
          region_B, double(in + out + op.scratch_count(P, n, std::max({in, out, n}))) * esize);
    }
  const double buffers = op.has_data ? 3.0 + double(op.library.size()) : 0;
  if (o.device == Device::cuda) return {2 * largest_B, buffers * largest_B + scratch_B + region_B};
  return {buffers * largest_B + scratch_B + region_B, 0};
}

}  // namespace commlab
