// A device program: every copy, reduction and signal op of one call over
// direct access with the device's signals, run in order by one kernel, as
// NCCL runs a whole collective in one kernel and MSCCL++ a schedule of ops.
// A Memory gathers it while a direct transport signals on the device
// (Memory::gather_programs); the GPU launches it as one kernel before
// anything else is queued or waited for, so the stream's order is the order
// asked, and a call costs one launch and one host wait (docs/direct.md).
//
// Each step finishes before the next begins: the kernel's blocks meet at a
// barrier after every step that moves data, as the launches did one after
// another on the stream. A signal op keeps its own order inside its step:
// post, raise, take, wait (signals.hpp).
//
// Two executors, one meaning: the GPU's kernel (device_cuda.cu) and run_step
// below, on the host (the emulated GPU's stream, so CI runs every program).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/vocabulary/types.hpp"
#include "signals.hpp"

namespace commlab {

enum class StepKind : uint8_t {
  copy,         // dst := a, `count` bytes
  reduce,       // dst := a (op) b, `count` elements (dst may be a or b)
  reduce_many,  // dst := terms[first] (op) ... (op) terms[first + n - 1]; `onto`: dst (op)= them
  signal,       // the SignalOp signals[first]
};

struct ProgramStep {
  StepKind kind = StepKind::copy;
  DType dtype = DType::float32;
  Op op = Op::sum;
  bool onto = false;
  void* dst = nullptr;
  const void* a = nullptr;
  const void* b = nullptr;
  uint64_t count = 0;
  uint32_t first = 0, n = 0;
};

// The terms one reduce_many step folds at most (one_shot's P terms, more in
// further steps onto the first's result): what the kernel's parameters hold.
constexpr uint32_t kTermsPerStep = 32;

class Program {
 public:
  void copy(void* dst, const void* src, size_t bytes);
  void reduce_to(DType t, Op op, void* dst, const void* a, const void* b, size_t count);
  void reduce_many(DType t, Op op, void* dst, const void* const* terms, int n, size_t count);
  void signal(const SignalOp& op);

  bool empty() const { return steps_.empty(); }
  void clear() { steps_.clear(), terms_.clear(), signals_.clear(); }
  const std::vector<ProgramStep>& steps() const { return steps_; }
  const void* term(uint32_t i) const { return terms_.at(i); }
  const SignalOp& signal_of(const ProgramStep& s) const { return signals_.at(s.first); }

 private:
  std::vector<ProgramStep> steps_;
  std::vector<const void*> terms_;
  std::vector<SignalOp> signals_;
};

// One step on the host, as the kernel runs it: memcpy, the host's reduction,
// run_signal_op (its waits throw Timeout or OtherRankFailed).
void run_step(const Program& p, const ProgramStep& s);
// The memory a step reads or writes (the emulated GPU opens it for the
// step, and only it): where it starts and its bytes, or kWholeAllocation
// where the step does not say where it reads (a signal op's peer region, at
// the offset the slot names once it is posted).
constexpr size_t kWholeAllocation = SIZE_MAX;
struct Touched {
  const void* at;
  size_t bytes;
};
std::vector<Touched> memory_of(const Program& p, const ProgramStep& s);

}  // namespace commlab
