// Open MPI's own algorithms (its coll/tuned component): which it has for each
// MPI call, forcing one for a launch, and the rules file that picks one per
// communicator and message size. Open MPI 4.1 reads these settings once, at
// MPI_Init (a control variable written later through MPI_T does not reach a
// new communicator), so they are set in the environment before it, from the
// program's own flags: one forced algorithm, or one rules file, a launch.
#pragma once
#include <string>
#include <vector>

namespace commlab {

// The MPI libraries whose algorithms can be forced: each names and reads
// them its own way (Open MPI: MCA variables and a rules file; MPICH: CVARs
// and a JSON tuning file).
enum class MpiLibrary { open_mpi, mpich };
std::string name(MpiLibrary library);  // "Open MPI", "MPICH"

// One MPI call's algorithms in Open MPI's coll/tuned, or MPICH's MPIR layer.
struct TunedCall {
  std::string mpi_call;  // MPI_Allreduce
  // allreduce: Open MPI's MCA variable coll_tuned_allreduce_algorithm; MPICH's
  // CVAR MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM and its JSON's collective=allreduce
  std::string tuned;
  // Open MPI: its collective number in a rules file (COLLTYPE); MPICH: 1
  // where its JSON's avg_msg_size is the row's bytes (the file can be written), else 0
  int rules_id;
  std::vector<std::string> algorithms;  // Open MPI's numbers are the positions from 1
};

// The call's algorithms, or null where the library has none to force (Open
// MPI's MPI_Gatherv).
const TunedCall* tuned_call(const std::string& mpi_call, MpiLibrary library = MpiLibrary::open_mpi);
// Open MPI's number for `algorithm` (from 1), or 0 where it has no such algorithm.
int tuned_number(const TunedCall& call, const std::string& algorithm);

// Whether the programs were built against Open MPI: elsewhere there is no
// monitoring to count the library with.
bool built_with_open_mpi();
// The library built against whose algorithms can be forced, or null (another MPI).
const MpiLibrary* built_library();
// MPICH's name of a call's algorithm as its JSON tuning file names it
// (MPIR_Allreduce_intra_recursive_doubling).
std::string mpich_container(const TunedCall& call, const std::string& algorithm);

// What --mpi-algorithm and --mpi-rules ask for, read from argv before
// MPI_Init and set as Open MPI's MCA variables for the calls `mpi_calls`
// (an operation's even and uneven forms); and Open MPI's monitoring turned
// on, so the library rows are counted (harness/library_monitor.hpp), unless the
// environment says otherwise. Input these cannot take is left alone here:
// the flags are checked again after MPI_Init, where every rank can refuse
// it together.
void prepare_library(int argc, char** argv, const std::vector<std::string>& mpi_calls);

// Why Open MPI would not take the rules file at `path` (one line), or "".
// The classic format: the number of collectives; for each, its number and
// the number of communicator sizes; for each, the size and the number of
// message-size rules; for each, the message size in bytes (the first 0),
// the algorithm, the fan-in/out and the segment size. # starts a comment.
std::string rules_problem(const std::string& path, MpiLibrary library = MpiLibrary::open_mpi);

}  // namespace commlab
