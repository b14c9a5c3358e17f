// Built when CUDA is not: -d cuda is refused with the reason before any of
// the rest can be reached.
#include <stdexcept>

#include "device.hpp"

namespace commlab::gpu {

std::string unavailable_reason() {
  return "-d cuda: this build has no CUDA (nvcc was not found or -DCOMMLAB_CUDA=OFF)";
}

namespace {
[[noreturn]] void no_cuda() { throw std::logic_error("GPU call in a build without CUDA"); }
}  // namespace

int select(int) { no_cuda(); }
Inventory inventory() { no_cuda(); }
std::string bus_id() { no_cuda(); }
std::string describe() { no_cuda(); }
bool emulated() { return false; }
bool mps_enabled() { no_cuda(); }
void* alloc(size_t) { no_cuda(); }
void release(void*) {}
void* alloc_pinned(size_t) { no_cuda(); }
void release_pinned(void*) {}
void* alloc_shared(size_t, IpcHandle&) { no_cuda(); }
void release_shared(void*) {}
void* open_shared(const IpcHandle&) { no_cuda(); }
void close_shared(void*) {}
void copy(void*, const void*, size_t) { no_cuda(); }
void reduce(DType, Op, void*, const void*, size_t) { no_cuda(); }
void reduce_to(DType, Op, void*, const void*, const void*, size_t) { no_cuda(); }
void reduce_many(DType, Op, void*, const void* const*, int, size_t) { no_cuda(); }
Program& program() { no_cuda(); }
void share_with(int) {}
void sync() { no_cuda(); }
Activity activity() { return {}; }
bool sync_within(double) { no_cuda(); }
Event event_create() { no_cuda(); }
void event_record(Event) { no_cuda(); }
void event_wait(Event) { no_cuda(); }
void event_destroy(Event) {}
Difference compare(DType, const void*, const void*, size_t) { no_cuda(); }
Bandwidth measure_bandwidth(size_t, int) { no_cuda(); }
void* stream() { return nullptr; }

}  // namespace commlab::gpu
