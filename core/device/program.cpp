#include "program.hpp"

#include <algorithm>
#include <cstring>
#include <initializer_list>

#include "reduce.hpp"

namespace commlab {

void Program::copy(void* dst, const void* src, size_t bytes) {
  if (bytes == 0 || dst == src) return;
  ProgramStep s;
  s.kind = StepKind::copy, s.dst = dst, s.a = src, s.count = bytes;
  steps_.push_back(s);
}

void Program::reduce_to(DType t, Op op, void* dst, const void* a, const void* b, size_t count) {
  if (count == 0) return;
  ProgramStep s;
  s.kind = StepKind::reduce, s.dtype = t, s.op = op, s.dst = dst, s.a = a, s.b = b, s.count = count;
  steps_.push_back(s);
}

void Program::reduce_many(DType t, Op op, void* dst, const void* const* terms, int n,
                          size_t count) {
  if (count == 0 || n <= 0) return;
  // Past kTermsPerStep terms, the next ones fold onto the first step's sum:
  // the same order of terms, so every rank's sum is the same.
  for (int at = 0; at < n; at += int(kTermsPerStep)) {
    ProgramStep s;
    s.kind = StepKind::reduce_many, s.dtype = t, s.op = op, s.dst = dst, s.count = count;
    s.onto = at > 0;
    s.first = uint32_t(terms_.size());
    s.n = uint32_t(std::min<int>(int(kTermsPerStep), n - at));
    terms_.insert(terms_.end(), terms + at, terms + at + s.n);
    steps_.push_back(s);
  }
}

void Program::signal(const SignalOp& op) {
  ProgramStep s;
  s.kind = StepKind::signal, s.first = uint32_t(signals_.size());
  if (op.take && op.reduce) s.dtype = op.dtype, s.op = op.op;
  signals_.push_back(op);
  steps_.push_back(s);
}

void run_step(const Program& p, const ProgramStep& s) {
  const Reduction red{s.dtype, s.op};
  switch (s.kind) {
    case StepKind::copy:
      std::memmove(s.dst, s.a, s.count);
      return;
    case StepKind::reduce:
      red.apply_to(s.dst, s.a, s.b, s.count);
      return;
    case StepKind::reduce_many: {
      uint32_t k = 0;
      if (!s.onto && s.n == 1) std::memmove(s.dst, p.term(s.first), s.count * red.esize());
      if (!s.onto && s.n >= 2) red.apply_to(s.dst, p.term(s.first), p.term(s.first + 1), s.count);
      if (!s.onto) k = std::min<uint32_t>(s.n, 2);
      for (; k < s.n; ++k) red.apply(s.dst, p.term(s.first + k), s.count);
      return;
    }
    case StepKind::signal:
      run_signal_op(p.signal_of(s));
      return;
  }
}

std::vector<Touched> memory_of(const Program& p, const ProgramStep& s) {
  using Pointers = std::initializer_list<const void*>;
  std::vector<Touched> all;
  auto add = [&](Pointers at, size_t bytes) {
    for (const void* q : at)
      if (q) all.push_back({q, bytes});
  };
  if (s.kind == StepKind::signal) {
    const SignalOp& op = p.signal_of(s);
    add({op.room.flag, op.posted.flag, op.arrived.flag, op.taken.flag}, sizeof(uint64_t));
    for (int i = 0; i < op.writes; ++i) add({op.write[i].flag}, sizeof(uint64_t));
    for (int i = 0; i < op.waits; ++i) add({op.wait[i].flag}, sizeof(uint64_t));
    add({op.slot, op.from_slot}, sizeof(SignalSlot));
    add({op.dst, op.mine}, op.bytes);
    add({op.peer_base}, kWholeAllocation);  // read at the offset the slot names
    return all;
  }
  const size_t bytes = s.kind == StepKind::copy ? s.count : s.count * element_size(s.dtype);
  add({s.dst, s.a, s.b}, bytes);
  if (s.kind == StepKind::reduce_many)
    for (uint32_t k = 0; k < s.n; ++k) add({p.term(s.first + k)}, bytes);
  return all;
}

}  // namespace commlab
