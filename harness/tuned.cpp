#include "tuned.hpp"

#include <fmt/format.h>

#include <charconv>
#include <fstream>
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

constexpr int kCollectives = 22;       // Open MPI 4.1's COLLCOUNT: rules-file numbers are below it
constexpr long kLargest_B = 1L << 62;  // a message or segment size: far past any, and room to add 1

}  // namespace

const TunedCall* tuned_call(const std::string& mpi_call) {
  for (const TunedCall& c : tuned_calls())
    if (c.mpi_call == mpi_call) return &c;
  return nullptr;
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

}  // namespace

std::string rules_problem(const std::string& path) {
  std::ifstream in(path);
  if (!in) return fmt::format("--mpi-rules {}: cannot read it", path);
  try {
    check_rules(rules_numbers(in));
  } catch (const std::exception& e) {
    return fmt::format("--mpi-rules {}: not an Open MPI rules file: {}", path, e.what());
  }
  return "";
}

}  // namespace commlab
