// The measurement loop every program shares: check once (counting traffic),
// warm up, time, and turn it into rows for the table and the CSV.
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "buffer.hpp"
#include "comm.hpp"
#include "errors.hpp"
#include "memory.hpp"
#include "nccl.hpp"
#include "options.hpp"
#include "results.hpp"

namespace commlab {

// This rank's view of one checked run.
struct Verdict {
  uint64_t wrong = 0;                   // elements differing from the exact result
  std::optional<uint64_t> diff_vs_lib;  // elements differing from the library's result
  std::string note;                     // the first mismatch, if any
};

// One implementation measured on one shape: a hand-written algorithm or a library call.
struct Case {
  std::string algorithm;  // e.g. ring, or the library function
  Impl impl = Impl::hand;
  std::function<void()> prepare;   // restore inputs before each run (untimed)
  std::function<void()> run;       // the timed operation
  std::function<Verdict()> check;  // after one run
  std::optional<Traffic> model;    // hand-written only: traffic counted and compared to it
  std::optional<double> t_model_us;  // the time model's prediction
  std::string chose;                 // -a auto: the algorithm it ran
  std::string taught_formula;
  double taught_T_B = 0;
  const Buffer* input = nullptr;  // what --show prints before and after
  const Buffer* output = nullptr;
  // Reported time = measured time x this: 0.5 for a ping-pong, whose round
  // trip is two one-way transfers (osu_latency reports the one-way latency).
  double time_scale = 1;
};

struct Shape {
  DType dtype;
  Op op;
  size_t count;
  double busbw_factor;   // nccl-tests: busbw = algbw x this
  bool reduces = true;   // false: the op column says none
  bool has_data = true;  // false (barrier): the dtype column says none
};

class Runner {
 public:
  // Validates what needs the communicator (root, device, CSV) on every rank,
  // exiting 2 everywhere on bad input, and prints the table heading. With -d
  // cuda: picks this rank's GPU by its rank on the node, the transport, and
  // opens NCCL where every rank has a GPU of its own.
  Runner(Comm& comm, const Options& opts);

  Memory& memory() { return mem_; }
  Nccl* nccl() { return nccl_.get(); }  // null: no NCCL rows (nccl_note() says why)
  const std::string& nccl_note() const { return nccl_note_; }

  Row measure(const Shape& shape, const Case& c);
  // Prints rows on rank 0 and appends them to the CSV.
  void emit(const std::vector<Row>& rows);
  // 0 when every check passed, kExitWrong otherwise (same on every rank).
  int exit_code() const { return failed_ ? kExitWrong : 0; }

 private:
  void show_buffers(const char* when, const Buffer* b);
  // The schedule step by step under its phases' names; with --steps each
  // rank's buffer after every step (collective).
  void show_schedule(const Shape& shape);

  Comm& comm_;
  const Options& opts_;
  Memory mem_;
  std::unique_ptr<Nccl> nccl_;
  std::string nccl_note_;
  RunInfo info_;
  LinesFile csv_, json_;
  bool failed_ = false;
};

// A library call on GPU buffers through an MPI that cannot read them (the
// staged transport, or 16-bit floats, which MPI reduces on the host): it runs
// on page-locked host copies, and the copies are timed with it, as a user
// without a CUDA-aware MPI would pay them. Otherwise it calls straight through.
class LibraryStaging {
 public:
  LibraryStaging(const Comm& comm, const Buffer& in, Buffer& out);
  // call(in, out); in place, `out` is both and `in` is not read.
  void run(bool in_place, const std::function<void(const void* in, void* out)>& call);

 private:
  const Buffer& in_;
  Buffer& out_;
  std::optional<Buffer> host_in_, host_out_;
};

// What one rank will hold at most, in bytes: in host memory, and on its GPU.
// Doubles, so a sum of absurd sizes is a huge number, never a wrapped small one.
struct Footprint {
  double host_B = 0, gpu_B = 0;
};

// What every program does around its measurements: MPI_Init; parse the
// flags and `validate` them against P (throwing UsageError), on every rank,
// each answering what it will hold; --help; refuse what would not fit
// (memory_problem); then `measure` with a Runner. Bad input ends every rank
// with exit 2 and one line; an exception on one rank aborts them all with
// one line. Returns the exit status.
int program_main(int argc, char** argv, const std::string& program, const std::string& description,
                 const std::function<Footprint(const Options&, int P, int rank)>& validate,
                 const std::function<void(Runner&, Comm&, const Options&)>& measure);

// Collective: empty, or why the ranks would not fit: the host bytes of the
// ranks on each of comm's nodes against its memory; the GPU bytes of the
// ranks that share a GPU (in turn, Runner) against the smallest GPU's.
std::string memory_problem(const Comm& comm, const Footprint& mine);

// What every row says about where and when it ran.
std::string mpi_version();  // the library's own line, e.g. "Open MPI v4.1.4"
std::string utc_now();
std::string hostname();
std::string commlab_version();  // git describe, at configure time
constexpr int kHostnameMax = 256;  // bytes of a host name, gathered
// Every rank's host, as nodes and ranks per node (collective).
Placement gather_placement(MPI_Comm comm);
// Empty, or why this launch is not one MPI job: srun started several tasks
// and MPI sees one rank in each (the plugin does not match this MPI).
std::string misread_launch();

// This rank's place on its node (an MPI shared-memory split): its rank among
// the node's ranks, and how many there are (collective).
struct NodePlace {
  int rank, size;
};
NodePlace node_rank(MPI_Comm comm);

// Each rank's line, printed by rank 0 in rank order (collective).
void print_in_rank_order(MPI_Comm comm, const std::string& line);

}  // namespace commlab
