#include "tuned.hpp"

#include <fmt/format.h>

#include <charconv>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

namespace commlab {

namespace {

// From `ompi_info --param coll tuned --level 9` (Open MPI 4.1): each call's
// algorithms in Open MPI's order, named as it describes them.
const std::vector<TunedCall>& tuned_calls() {
  static const std::vector<TunedCall> calls = {
      {"MPI_Allgather",
       "allgather",
       0,
       {"basic_linear", "bruck", "recursive_doubling", "ring", "neighbor_exchange", "two_proc"}},
      {"MPI_Allgatherv",
       "allgatherv",
       1,
       {"default", "bruck", "ring", "neighbor_exchange", "two_proc"}},
      {"MPI_Allreduce",
       "allreduce",
       2,
       {"basic_linear", "nonoverlapping", "recursive_doubling", "ring", "segmented_ring",
        "rabenseifner"}},
      {"MPI_Alltoall",
       "alltoall",
       3,
       {"basic_linear", "pairwise", "modified_bruck", "linear_sync", "two_proc"}},
      {"MPI_Alltoallv", "alltoallv", 4, {"basic_linear", "pairwise"}},
      {"MPI_Barrier",
       "barrier",
       6,
       {"linear", "double_ring", "recursive_doubling", "bruck", "two_proc", "tree"}},
      {"MPI_Bcast",
       "bcast",
       7,
       {"basic_linear", "chain", "pipeline", "split_binary_tree", "binary_tree", "binomial",
        "knomial", "scatter_allgather", "scatter_allgather_ring"}},
      {"MPI_Gather", "gather", 9, {"basic_linear", "binomial", "linear_sync"}},
      {"MPI_Reduce",
       "reduce",
       11,
       {"linear", "chain", "pipeline", "binary", "binomial", "in_order_binary", "rabenseifner"}},
      {"MPI_Reduce_scatter",
       "reduce_scatter",
       12,
       {"nonoverlapping", "recursive_halving", "ring", "butterfly"}},
      {"MPI_Reduce_scatter_block",
       "reduce_scatter_block",
       13,
       {"basic_linear", "recursive_doubling", "recursive_halving", "butterfly"}},
      {"MPI_Scatter", "scatter", 15, {"basic_linear", "binomial", "linear_nb"}},
  };
  return calls;
}

// From `mpivars` (MPICH 4.0.2): each call's MPIR_CVAR_<CALL>_INTRA_ALGORITHM
// values but auto, in MPICH's order. rules_id 1: MPICH's avg_msg_size is the
// row's bytes, so report --rules can write the call's sizes.
const std::vector<TunedCall>& mpich_calls() {
  static const std::vector<TunedCall> calls = {
      {"MPI_Allgather", "allgather", 0, {"brucks", "nb", "recursive_doubling", "ring"}},
      {"MPI_Allgatherv", "allgatherv", 0, {"brucks", "nb", "recursive_doubling", "ring"}},
      {"MPI_Allreduce",
       "allreduce",
       1,
       {"nb", "smp", "recursive_doubling", "reduce_scatter_allgather"}},
      {"MPI_Alltoall",
       "alltoall",
       0,
       {"brucks", "nb", "pairwise", "pairwise_sendrecv_replace", "scattered"}},
      {"MPI_Alltoallv", "alltoallv", 0, {"nb", "pairwise_sendrecv_replace", "scattered"}},
      {"MPI_Barrier", "barrier", 0, {"nb", "smp", "dissemination"}},
      {"MPI_Bcast",
       "bcast",
       1,
       {"binomial", "nb", "smp", "scatter_recursive_doubling_allgather", "scatter_ring_allgather"}},
      {"MPI_Gather", "gather", 0, {"binomial", "nb"}},
      {"MPI_Gatherv", "gatherv", 0, {"linear", "nb"}},
      {"MPI_Reduce", "reduce", 1, {"binomial", "nb", "smp", "reduce_scatter_gather"}},
      {"MPI_Reduce_scatter",
       "reduce_scatter",
       0,
       {"nb", "noncommutative", "pairwise", "recursive_doubling", "recursive_halving"}},
      {"MPI_Reduce_scatter_block",
       "reduce_scatter_block",
       0,
       {"noncommutative", "recursive_doubling", "pairwise", "recursive_halving", "nb"}},
      {"MPI_Scatter", "scatter", 0, {"binomial", "nb"}},
      {"MPI_Scatterv", "scatterv", 0, {"linear", "nb"}},
  };
  return calls;
}

constexpr int kCollectives = 22;       // Open MPI 4.1's COLLCOUNT: rules-file numbers are below it
constexpr long kLargest_B = 1L << 62;  // a message or segment size: far past any, and room to add 1

}  // namespace

std::string name(MpiLibrary library) { return library == MpiLibrary::mpich ? "MPICH" : "Open MPI"; }

const TunedCall* tuned_call(const std::string& mpi_call, MpiLibrary library) {
  for (const TunedCall& c : library == MpiLibrary::mpich ? mpich_calls() : tuned_calls())
    if (c.mpi_call == mpi_call) return &c;
  return nullptr;
}

std::string mpich_container(const TunedCall& call, const std::string& algorithm) {
  // Its blocking wrappers of the nonblocking algorithms, and the v-calls'
  // linear ones, serve inter-communicators too: "allcomm", not "intra".
  const bool allcomm = algorithm == "nb" || algorithm == "linear";
  return fmt::format("MPIR_{}_{}_{}", call.mpi_call.substr(4), allcomm ? "allcomm" : "intra",
                     algorithm);
}

int tuned_number(const TunedCall& call, const std::string& algorithm) {
  for (size_t i = 0; i < call.algorithms.size(); ++i)
    if (call.algorithms[i] == algorithm) return int(i + 1);
  return 0;
}

namespace {

// The numbers of a rules file; # starts a comment to the end of the line.
// Open MPI's reader skips a word where a number goes; here it is refused,
// since it is a slip that would shift every number after it.
std::vector<long> rules_numbers(std::istream& in) {
  std::vector<long> numbers;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line.substr(0, line.find('#')));
    std::string word;
    while (words >> word) {
      long v = 0;
      const auto [end, error] = std::from_chars(word.data(), word.data() + word.size(), v);
      if (error != std::errc() || end != word.data() + word.size())
        throw std::runtime_error(fmt::format("'{}' is not a number", word));
      numbers.push_back(v);
    }
  }
  return numbers;
}

// Walks the numbers as Open MPI's reader does; throws with the first problem.
void check_rules(const std::vector<long>& n) {
  size_t at = 0;
  auto next = [&](const char* what, long min, long max) {
    if (at == n.size()) throw std::runtime_error(fmt::format("it ends where {} should be", what));
    const long v = n[at++];
    if (v < min || v > max)
      throw std::runtime_error(min == max
                                   ? fmt::format("{} must be {}, not {}", what, min, v)
                                   : fmt::format("{}: {} is not from {} to {}", what, v, min, max));
    return v;
  };
  std::set<long> seen;
  const long collectives = next("the number of collectives", 0, kCollectives);
  for (long c = 0; c < collectives; ++c) {
    const long id = next("a collective's number", 0, kCollectives - 1);
    if (!seen.insert(id).second) throw std::runtime_error(fmt::format("collective {} twice", id));
    const TunedCall* call = nullptr;
    for (const TunedCall& t : tuned_calls())
      if (t.rules_id == id) call = &t;
    const long most = call ? long(call->algorithms.size()) : 1L << 20;
    const long sizes = next("a number of communicator sizes", 0, 1L << 20);
    long last_P = 0;  // communicator sizes rise: Open MPI stops at the first above its own
    for (long s = 0; s < sizes; ++s) {
      last_P = next("a communicator size (rising)", last_P + 1, 1L << 30);
      const long rules = next("a number of message sizes", 0, 1L << 20);
      long last_B = -1;  // message sizes rise: Open MPI takes the last rule at or below a size
      for (long r = 0; r < rules; ++r) {
        last_B = next(
            r == 0 ? "the first message size (rules start from 0 B)" : "a message size (rising)",
            last_B + 1, r == 0 ? 0 : kLargest_B);
        next(call ? fmt::format("an algorithm of {}", call->mpi_call).c_str() : "an algorithm", 0,
             most);
        next("a fan-in/out", 0, 1L << 20);
        next("a segment size", 0, kLargest_B);
      }
    }
  }
  if (at != n.size()) throw std::runtime_error("numbers are left after the last rule");
}

// MPICH's reader aborts the job on JSON it cannot parse, on a key it does
// not know and on a collective it does not find (its file replaces its whole
// selection): what can be told before MPI_Init is checked here.
std::string mpich_rules_problem(const std::string& path, std::istream& in) {
  nlohmann::ordered_json tree;
  try {
    tree = nlohmann::ordered_json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    return fmt::format("--mpi-rules {}: not JSON: {}", path, e.what());
  }
  if (!tree.is_object() || !tree.contains("collective=barrier") ||
      !tree.contains("collective=allreduce"))
    return fmt::format(
        "--mpi-rules {}: not a whole MPICH tuning file (no collective=barrier or "
        "collective=allreduce; MPICH needs every collective in it: report --rules writes one)",
        path);
  return "";
}

}  // namespace

std::string rules_problem(const std::string& path, MpiLibrary library) {
  std::ifstream in(path);
  if (!in) return fmt::format("--mpi-rules {}: cannot read it", path);
  if (library == MpiLibrary::mpich) return mpich_rules_problem(path, in);
  try {
    check_rules(rules_numbers(in));
  } catch (const std::exception& e) {
    return fmt::format("--mpi-rules {}: not an Open MPI rules file: {}", path, e.what());
  }
  return "";
}

}  // namespace commlab
