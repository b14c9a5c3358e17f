#include "direct_transport.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>

namespace commlab {

std::string name(Signals s) { return s == Signals::host ? "host" : "device"; }

size_t control_bytes(int P) {
  return sizeof(Control) + size_t(P) * sizeof(Counter) + size_t(P) * size_t(P) * sizeof(Lane);
}

void init_control(void* at, int P) {
  auto* c = new (at) Control;
  for (int i = 0; i < P; ++i) new (c->fences() + i) Counter;
  for (int i = 0; i < P * P; ++i) new (c->lanes(P) + i) Lane;
}

void Regions::fail() { control_of(*this).failed.value.store(1, std::memory_order_release); }
bool Regions::failed() const {
  return control_of(*this).failed.value.load(std::memory_order_acquire) != 0;
}

namespace {
std::unique_ptr<char, void (*)(void*)> aligned_zeros(size_t bytes) {
  const size_t whole = (std::max<size_t>(bytes, 1) + 127) / 128 * 128;
  std::unique_ptr<char, void (*)(void*)> p(static_cast<char*>(std::aligned_alloc(128, whole)),
                                           std::free);
  if (!p) throw std::bad_alloc();
  std::memset(p.get(), 0, whole);
  return p;
}
}  // namespace

HeapRegions::HeapRegions(int P, size_t bytes)
    : P_(P),
      bytes_(bytes),
      control_(aligned_zeros(control_bytes(P))),
      pads_(aligned_zeros(size_t(P) * SignalPad::bytes(P))) {
  for (int r = 0; r < P; ++r) regions_.emplace_back(new char[std::max<size_t>(bytes, 1)]);
  init_control(control_.get(), P);
}

void HeapRegions::reserve(size_t bytes) {
  if (bytes > bytes_)
    throw std::logic_error(
        fmt::format("the in-process regions hold {} B, {} B asked for", bytes_, bytes));
}

DirectTransport::DirectTransport(Transport& control, Regions& regions, Memory& mem,
                                 std::chrono::milliseconds timeout)
    : control_(control),
      regions_(regions),
      mem_(mem),
      timeout_(timeout),
      me_(control.rank()),
      P_(control.size()) {}

DirectTransport::~DirectTransport() = default;

void DirectTransport::own(std::unique_ptr<Transport> control, std::unique_ptr<Regions> regions) {
  owned_control_ = std::move(control);
  owned_regions_ = std::move(regions);
}

void DirectTransport::check_rank(int r) const {
  if (r < 0 || r >= P_)
    throw std::logic_error(fmt::format("rank {} of {} names rank {}", me_, P_, r));
}

size_t DirectTransport::offset_of(const void* buf, size_t bytes) const {
  const char* p = static_cast<const char*>(buf);
  const char* base = regions_.base(me_);
  if (bytes && (p < base || p + bytes > base + regions_.bytes()))
    throw std::logic_error(fmt::format(
        "rank {} sends {} B from outside its registered region: with --transport direct every "
        "buffer a rank sends from is in it (Memory::scratch, the job's buffers)",
        me_, bytes));
  return bytes ? size_t(p - base) : 0;
}

const char* DirectTransport::at(int rank, const void* mine) const {
  const char* p = static_cast<const char*>(mine);
  const char* base = regions_.base(me_);
  if (p < base || p > base + regions_.bytes())
    throw std::logic_error(fmt::format("rank {}: a buffer outside its registered region", me_));
  return regions_.base(rank) + (p - base);
}

void DirectTransport::read(int from, const void* theirs, void* dst, size_t bytes) {
  mem_.copy(dst, theirs, bytes);
  if (from != me_) moved_.read_B += bytes;
}

void DirectTransport::read_reduce(int from, const void* theirs, void* acc, size_t count,
                                  const Reduction& red) {
  mem_.reduce(red, acc, theirs, count);
  if (from != me_) moved_.read_B += count * red.esize();
}

void DirectTransport::read_reduce_to(int a_from, const void* a, int b_from, const void* b,
                                     void* dst, size_t count, const Reduction& red) {
  mem_.reduce_to(red, dst, a, b, count);
  moved_.read_B += (a_from != me_) * count * red.esize() + (b_from != me_) * count * red.esize();
}

void DirectTransport::read_reduce_all(const void* const* terms, void* dst, size_t count,
                                      const Reduction& red) {
  mem_.reduce_many(red, dst, terms, P_, count);
  moved_.read_B += uint64_t(P_ - 1) * count * red.esize();
}

}  // namespace commlab
