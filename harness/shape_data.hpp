// One shape (dtype x op x count) of a collective program on this rank: what
// every implementation measured on it shares (the input, the exact answer,
// the library's results, the direct transport's buffers), and the Case each
// implementation becomes for the Runner (runner.hpp). The rows of a shape
// are made in library_rows.cpp and hand_rows.cpp from these.
#pragma once
#include <cstddef>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "buffer.hpp"
#include "core/comm/comm.hpp"
#include "core/comm/time_model.hpp"
#include "devices.hpp"
#include "direct_case.hpp"
#include "operations/truth.hpp"
#include "options.hpp"
#include "runner.hpp"

namespace commlab {

// What every shape of one program run shares.
struct ProgramContext {
  Runner& runner;
  Comm& comm;
  const Options& o;
  const Operation& op;
  const CostModel& cost;

  // What a run of N elements depends on; the segment is --segment or the
  // time model's best for one chunk.
  JobShape job_shape(size_t N, size_t esize) const;
  bool picked(const std::vector<std::string>& algorithms, const std::string& name) const;
};

class ShapeData {
 public:
  ShapeData(const ProgramContext& ctx, DType dtype, Op op_kind, size_t count);

  // A case that runs `run` on this shape's input into `out` (filled with
  // junk first, so that a result never written shows as wrong): through the
  // library's host copies where MPI needs them, on the direct transport's
  // registered buffers where those are in use, else on the buffers as they are.
  Case make_case(const std::string& name, Impl impl, void (*run)(const CollectiveJob&), Buffer& out,
                 bool reads_peers = false);
  // --overlap: c runs the library's non-blocking call `start` instead, on
  // the same host buffers, tested and waited for with MPI_Testall and MPI_Waitall.
  void start_nonblocking(Case& c, void (*start)(const CollectiveJob&, Requests&), Buffer& out);
  // Over --transport direct, once the library's rows are done: the
  // hand-written cases from now on run on registered buffers (collective).
  void register_buffers();

  const ProgramContext& ctx;
  int P, me;
  size_t N;
  bool in_place;
  Truth truth;
  Layout L;
  size_t checked;
  Reduction red;
  Shape shape;
  JobShape job;
  Buffer input;
  std::optional<Buffer> exact;
  std::optional<DirectCase> direct;  // the direct transport's buffers, once registered
  // The library's results, by the algorithm each pairs with; a deque, so
  // that the cases' references to them stay valid as more are added.
  std::deque<std::pair<std::string, Buffer>> lib_results;
  // The hand-written rows' result: here, not in hand_rows, so that their
  // cases outlive it until --interleave times them (Runner::time_kept).
  std::optional<Buffer> hand_out;

 private:
  // The job of this shape from `from` into `to`.
  CollectiveJob job_on(const void* from, void* to) const;
  std::vector<std::unique_ptr<LibraryStaging>> stagings_;
};

}  // namespace commlab
