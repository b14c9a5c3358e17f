#include <mpi.h>

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <string>

#include "tuned.hpp"

namespace commlab {

namespace {

// The value of --flag in argv (as --flag VALUE or --flag=VALUE), or "".
std::string flag_value(int argc, char** argv, const std::string& flag) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == flag && i + 1 < argc) return argv[i + 1];
    if (a.rfind(flag + "=", 0) == 0) return a.substr(flag.size() + 1);
  }
  return "";
}

}  // namespace

bool built_with_open_mpi() {
#ifdef OPEN_MPI
  return true;
#else
  return false;
#endif
}

const MpiLibrary* built_library() {
#if defined(OPEN_MPI)
  static const MpiLibrary library = MpiLibrary::open_mpi;
  return &library;
#elif defined(MPICH)
  static const MpiLibrary library = MpiLibrary::mpich;
  return &library;
#else
  return nullptr;
#endif
}

namespace {

// MPICH reads its CVARs from the environment at MPI_Init. Its device layer
// (ch4) may pick its own collectives (shared-memory ones, compositions over
// nodes) before the MPIR layer that the CVARs and the JSON file steer: off,
// so that what is forced or tuned is what runs, on one node and across nodes.
void prepare_mpich(const std::string& algorithm, const std::string& rules,
                   const std::vector<std::string>& mpi_calls) {
  if (!rules.empty()) {
    if (!rules_problem(rules, MpiLibrary::mpich).empty()) return;  // refused after MPI_Init
    setenv("MPIR_CVAR_DEVICE_COLLECTIVES", "none", 1);
    setenv("MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE", rules.c_str(), 1);
    return;
  }
  if (algorithm.empty()) return;
  unsetenv("MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE");  // forced, not tuned
  for (const std::string& name : mpi_calls) {
    const TunedCall* call = tuned_call(name, MpiLibrary::mpich);
    if (!call || !tuned_number(*call, algorithm)) continue;
    std::string cvar = "MPIR_CVAR_" + call->tuned + "_INTRA_ALGORITHM";
    for (char& c : cvar) c = char(std::toupper(static_cast<unsigned char>(c)));
    setenv("MPIR_CVAR_DEVICE_COLLECTIVES", "none", 1);
    setenv(cvar.c_str(), algorithm.c_str(), 1);
  }
}

}  // namespace

void prepare_library(int argc, char** argv, const std::vector<std::string>& mpi_calls) {
  const std::string algorithm = flag_value(argc, argv, "--mpi-algorithm");
  const std::string rules = flag_value(argc, argv, "--mpi-rules");
  if (!algorithm.empty() && !rules.empty()) return;  // refused after MPI_Init
  if (built_library() && *built_library() == MpiLibrary::mpich)
    return prepare_mpich(algorithm, rules, mpi_calls);
  if (!built_with_open_mpi()) return;
  // Each message the library sends, reported to the counting window; 2 keeps
  // the library's own messages apart from the program's in Open MPI's files.
  setenv("OMPI_MCA_pml_monitoring_enable", "2", 0);
  // The monitoring is a pml of its own that wraps the one chosen: a list
  // that names the pml (`mpirun --mca pml ucx`) leaves it out unless it is
  // named too, and the library rows go uncounted. Added to a list of names
  // (not to a `^` list, which excludes and so keeps it in).
  if (const char* pml = std::getenv("OMPI_MCA_pml");
      pml && *pml && *pml != '^' && !std::strstr(pml, "monitoring"))
    setenv("OMPI_MCA_pml", (std::string(pml) + ",monitoring").c_str(), 1);
  // Monitoring wraps the one-sided component too, and in Open MPI 4.1 that
  // wrapper refuses MPI_Win_shared_query (MPI_ERR_RMA_FLAVOR), which the
  // direct transport's shared windows need. Messages are counted in the PML.
  setenv("OMPI_MCA_osc", "^monitoring", 0);
  if (!rules.empty()) {
    if (!rules_problem(rules).empty()) return;  // refused after MPI_Init, by every rank
    setenv("OMPI_MCA_coll_tuned_use_dynamic_rules", "1", 1);
    setenv("OMPI_MCA_coll_tuned_dynamic_rules_filename", rules.c_str(), 1);
    return;
  }
  if (algorithm.empty()) return;
  // A rules file from the environment would come before the forced algorithm.
  unsetenv("OMPI_MCA_coll_tuned_dynamic_rules_filename");
  for (const std::string& name : mpi_calls) {
    const TunedCall* call = tuned_call(name);
    const int number = call ? tuned_number(*call, algorithm) : 0;
    if (!number) continue;
    setenv("OMPI_MCA_coll_tuned_use_dynamic_rules", "1", 1);
    setenv(("OMPI_MCA_coll_tuned_" + call->tuned + "_algorithm").c_str(),
           std::to_string(number).c_str(), 1);
  }
}

}  // namespace commlab
