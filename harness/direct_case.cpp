#include "direct_case.hpp"

namespace commlab {

DirectCase::DirectCase(Runner& runner, const RegionLayout& layout, bool registered_flag)
    : reg_(runner.register_buffers(layout)), registered_(registered_flag), P_(runner.ranks()) {}

Buffer DirectCase::result(DType dtype, size_t count, Device device) const {
  return registered_ ? Buffer::view(dtype, count, device, reg_.out) : Buffer(dtype, count, device);
}

void DirectCase::wire(Case& c, const Job& job, const Buffer& input, Buffer& out, bool in_place,
                      Memory& mem) const {
  c.watched = reg_.out;
  if (registered_)
    wire_registered(c, job, input, in_place, mem);
  else
    wire_private(c, job, input, out, in_place, mem);
}

void DirectCase::wire_registered(Case& c, const Job& job, const Buffer& input, bool in_place,
                                 Memory& mem) const {
  char* from = in_place ? reg_.out : reg_.in;
  c.prepare = [&mem, &input, from] {
    mem.copy(from, input.data(), input.bytes());
    mem.sync();
  };
  c.run = [job, from, to = reg_.out] { job(from, to); };
}

void DirectCase::wire_private(Case& c, const Job& job, const Buffer& input, Buffer& out,
                              bool in_place, Memory& mem) const {
  char* from = in_place ? reg_.out : reg_.in;
  // What is copied out must be this row's result, not an earlier row's
  // left in the registered buffer: it starts as junk, as `out` does.
  mem.copy(reg_.out, out.data(), out.bytes());
  mem.sync();
  c.run = [job, &mem, &input, &out, from, to = reg_.out, in_place] {
    mem.copy(from, in_place ? out.data() : input.data(), input.bytes());
    job(from, to);
    mem.copy(out.data(), to, out.bytes());
  };
}

void DirectCase::price_copies(std::vector<Predicted>& predicted, const Operation& op,
                              const CostModel& cost, double bytes) const {
  if (registered_) return;
  const double copy_us = cost.copy_us(bytes, P_);
  for (size_t i = 0; i < predicted.size(); ++i)
    predicted[i].us += (op.algorithms[i].reads_peers ? 1 : 2) * copy_us;
}

}  // namespace commlab
