// An emulated GPU (device.hpp) for machines without one: the programs' GPU
// paths (device buffers, the staged transport, the library's host copies)
// run in CI. Two rules make it stricter than a real GPU, not looser:
// - Device memory is host memory the host cannot touch: mapped PROT_NONE and
//   opened only while a queued copy or reduction runs, only the pages it
//   touches. A host read, an MPI call on a device pointer, or an operation
//   that reaches past the bytes it was given crashes instead of quietly
//   working.
// - The stream runs queued work only when the host waits for it (sync, an
//   event, a compare, a free): the latest a GPU could. A missing wait shows as
//   stale data; a pinned slot refilled before its copy ran shows as wrong data.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/device/device.hpp"
#include "core/device/reduce.hpp"
#include "core/vocabulary/failures.hpp"

namespace commlab::gpu {

// Which fault COMMLAB_EMULATED_PEER_FAULT gives this rank (below), or "".
std::string peer_fault();

namespace {

std::map<uintptr_t, size_t> g_device;  // allocation start -> bytes mapped
std::deque<std::function<void()>> g_stream;
uint64_t g_queued = 0, g_done = 0;
uint64_t g_waits = 0;  // the host's waits for the stream (Activity)

// Opens the device memory a queued operation touches, for that operation:
// the pages its bytes fall in, or the whole allocation (kWholeAllocation).
// Only those pages: mprotect's cost grows with the pages it changes, and an
// operation of a few bytes in a buffer of megabytes (the time model's probe)
// would otherwise pay for the whole buffer twice; and a read past what the
// operation said it touches faults.
class Open {
 public:
  explicit Open(std::initializer_list<Touched> spans) : Open(std::vector<Touched>(spans)) {}
  explicit Open(const std::vector<Touched>& spans) {
    static const uintptr_t page = sysconf(_SC_PAGESIZE);
    for (auto [at, bytes] : spans) {
      const auto p = reinterpret_cast<uintptr_t>(at);
      auto it = g_device.upper_bound(p);
      if (it == g_device.begin() || bytes == 0) continue;
      --it;
      const uintptr_t start = it->first, end = it->first + it->second;
      if (p >= end) continue;  // host memory
      const uintptr_t from = bytes == kWholeAllocation ? start : p / page * page;
      const uintptr_t to =
          bytes == kWholeAllocation || bytes > end - p ? end : (p + bytes + page - 1) / page * page;
      mprotect(reinterpret_cast<void*>(from), to - from, PROT_READ | PROT_WRITE);
      opened_.emplace_back(from, to - from);
    }
  }
  ~Open() {
    for (auto [start, bytes] : opened_) mprotect(reinterpret_cast<void*>(start), bytes, PROT_NONE);
  }

 private:
  std::vector<std::pair<uintptr_t, size_t>> opened_;
};

Program g_program;  // gathered, not yet launched

// COMMLAB_EMULATED_PEER_FAULT=fail:R: rank R's first signal step fails as a
// kernel's timed-out wait does (device_cuda.cu): it raises the ranks' shared
// `failed` word and reports itself; the other ranks' waits stop on the word.
void fail_here(const SignalOp& op) {
  if (op.failed) __atomic_store_n(op.failed, 1, __ATOMIC_RELEASE);
  throw Timeout("a failure injected into its device program (COMMLAB_EMULATED_PEER_FAULT)");
}

// The gathered program as one launch: its steps in order, each with the
// memory it touches opened for it (program.hpp's run_step, as the kernel).
void launch_program() {
  if (g_program.empty()) return;
  auto program = std::make_shared<Program>(std::move(g_program));
  g_program.clear();
  g_stream.push_back([program, fail = peer_fault() == "fail"] {
    for (const ProgramStep& s : program->steps()) {
      if (fail && s.kind == StepKind::signal) fail_here(program->signal_of(s));
      Open open(memory_of(*program, s));
      run_step(*program, s);
    }
  });
  ++g_queued;
}

void enqueue(std::function<void()> work) {
  launch_program();  // what was gathered comes first
  g_stream.push_back(std::move(work));
  ++g_queued;
}

void run_until(uint64_t position) {
  while (g_done < position) {
    std::function<void()> work = std::move(g_stream.front());
    g_stream.pop_front();
    work();
    ++g_done;
  }
}

struct EventMark {
  uint64_t position = 0;
};

}  // namespace

std::string unavailable_reason() { return ""; }
int select(int) { return 1; }
Inventory inventory() {
  return {1, size_t{1} << 30, {"emulated"}};
}  // small, so tests can overfill it
std::string bus_id() { return "emulated"; }
std::string describe() {
  return "emulated GPU (host memory, lazy stream: tests/support/emulated_gpu.cpp)";
}
bool emulated() { return true; }
bool mps_enabled() { return true; }  // every rank's kernels run at once

void* alloc(size_t bytes) {
  const size_t page = sysconf(_SC_PAGESIZE),
               mapped = (std::max<size_t>(bytes, 1) + page - 1) / page * page;
  void* p = mmap(nullptr, mapped, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  g_device[reinterpret_cast<uintptr_t>(p)] = mapped;
  return p;
}

void release(void* p) {  // as cudaFree: waits for the work queued before it
  if (!p) return;
  sync();
  auto it = g_device.find(reinterpret_cast<uintptr_t>(p));
  if (it == g_device.end()) throw std::logic_error("gpu::release: not a device allocation");
  munmap(p, it->second);
  g_device.erase(it);
}

// CUDA IPC, emulated: the memory is a memfd, its handle the owner's pid and
// descriptor, opened by another process through /proc (as root, or the same
// user). A peer's mapping is device memory here too: touched only by queued work.
namespace {
struct SharedMemory {
  int64_t pid, fd;
  uint64_t bytes;
};
static_assert(sizeof(SharedMemory) <= sizeof(IpcHandle));
std::map<uintptr_t, int> g_shared_fd;  // this process's shared allocations: their memfd

void* map_device(int fd, size_t bytes) {
  void* p = mmap(nullptr, bytes, PROT_NONE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) throw std::runtime_error("emulated GPU: mmap of shared memory failed");
  g_device[reinterpret_cast<uintptr_t>(p)] = bytes;
  return p;
}
}  // namespace

void* alloc_shared(size_t bytes, IpcHandle& handle) {
  const size_t page = sysconf(_SC_PAGESIZE),
               mapped = (std::max<size_t>(bytes, 1) + page - 1) / page * page;
  const int fd = memfd_create("commlab-emulated-gpu", 0);
  if (fd < 0 || ftruncate(fd, off_t(mapped)) != 0)
    throw std::runtime_error("emulated GPU: memfd_create failed");
  void* p = map_device(fd, mapped);
  g_shared_fd[reinterpret_cast<uintptr_t>(p)] = fd;
  const SharedMemory m{getpid(), fd, mapped};
  std::memcpy(handle.bytes, &m, sizeof m);
  return p;
}

void release_shared(void* p) {
  auto it = g_shared_fd.find(reinterpret_cast<uintptr_t>(p));
  if (it == g_shared_fd.end()) throw std::logic_error("gpu::release_shared: not shared memory");
  const int fd = it->second;
  g_shared_fd.erase(it);
  release(p);
  close(fd);
}

// A GPU pair without working peer access, for the tests of the direct
// transport's refusal: COMMLAB_EMULATED_PEER_FAULT=open:R makes world rank R's
// opens fail (no peer access), read:R maps R a blank region in place of each
// peer's (the wrong bytes a broken PCIe path returns); fail:R makes R's
// device program fail (launch_program).
std::string peer_fault() {
  const char* fault = std::getenv("COMMLAB_EMULATED_PEER_FAULT");
  const char* rank = std::getenv("OMPI_COMM_WORLD_RANK");
  if (!fault || !rank) return "";
  const std::string f = fault;
  const auto colon = f.find(':');
  return colon != std::string::npos && f.substr(colon + 1) == rank ? f.substr(0, colon) : "";
}

void* open_shared(const IpcHandle& handle) {
  SharedMemory m;
  std::memcpy(&m, handle.bytes, sizeof m);
  const std::string fault = peer_fault();
  if (fault == "open")
    throw std::runtime_error("emulated GPU: no peer access (COMMLAB_EMULATED_PEER_FAULT)");
  if (fault == "read") {
    const int blank = memfd_create("commlab-emulated-blank", 0);
    if (blank < 0 || ftruncate(blank, off_t(m.bytes)) != 0)
      throw std::runtime_error("emulated GPU: memfd_create failed");
    void* p = map_device(blank, m.bytes);
    close(blank);
    return p;
  }
  const std::string path = "/proc/" + std::to_string(m.pid) + "/fd/" + std::to_string(m.fd);
  const int fd = open(path.c_str(), O_RDWR);
  if (fd < 0) throw std::runtime_error("emulated GPU: cannot open a peer's memory at " + path);
  void* p = map_device(fd, m.bytes);
  close(fd);
  return p;
}

void close_shared(void* p) { release(p); }

void* alloc_pinned(size_t bytes) {
  void* p = std::malloc(std::max<size_t>(bytes, 16));
  if (!p) throw std::bad_alloc();
  return p;
}

void release_pinned(void* p) {  // as cudaFreeHost
  sync();
  std::free(p);
}

void copy(void* dst, const void* src, size_t bytes) {
  if (bytes)
    enqueue([=] {
      Open open{{dst, bytes}, {src, bytes}};
      std::memcpy(dst, src, bytes);
    });
}

void reduce(DType t, Op op, void* acc, const void* in, size_t count) {
  if (count)
    enqueue([=] {
      const size_t bytes = count * element_size(t);
      Open open{{acc, bytes}, {in, bytes}};
      Reduction{t, op}.apply(acc, in, count);
    });
}

void reduce_to(DType t, Op op, void* dst, const void* a, const void* b, size_t count) {
  if (count)
    enqueue([=] {
      const size_t bytes = count * element_size(t);
      Open open{{dst, bytes}, {a, bytes}, {b, bytes}};
      Reduction{t, op}.apply_to(dst, a, b, count);
    });
}

void reduce_many(DType t, Op op, void* dst, const void* const* terms, int n, size_t count) {
  if (!count || !n) return;
  std::vector<const void*> all(terms, terms + n);
  enqueue([=] {
    const Reduction red{t, op};
    std::vector<Touched> spans{{dst, count * red.esize()}};
    for (const void* term : all) spans.push_back({term, count * red.esize()});
    Open open(spans);
    if (n == 1)
      std::memmove(dst, all[0], count * red.esize());
    else
      red.apply_to(dst, all[0], all[1], count);
    for (int k = 2; k < n; ++k) red.apply(dst, all[k], count);
  });
}

// A program's signal steps wait for flags another process's program
// writes: it runs when this process waits for its stream, as any queued work
// here, and spins (with the op's deadline) until the other process's stream,
// run when that one waits, has written them. Every rank's programs thus run
// at once, as under MPS.
Program& program() { return g_program; }
void share_with(int) {}

void sync() {
  ++g_waits;
  launch_program();
  run_until(g_queued);
}
bool sync_within(double) { return sync(), true; }
Activity activity() { return {g_queued, g_waits}; }

Event event_create() { return new EventMark; }
void event_record(Event e) {
  launch_program();
  static_cast<EventMark*>(e)->position = g_queued;
}
void event_wait(Event e) {
  ++g_waits;
  run_until(static_cast<EventMark*>(e)->position);
}
void event_destroy(Event e) { delete static_cast<EventMark*>(e); }

Difference compare(DType t, const void* got, const void* want, size_t count) {
  sync();  // a host wait, counted there
  Open open{{got, count * element_size(t)}, {want, count * element_size(t)}};
  Difference d;
  visit_dtype(t, [&](auto x) {
    using T = decltype(x);
    auto* g = static_cast<const T*>(got);
    auto* w = static_cast<const T*>(want);
    for (size_t i = count; i-- > 0;)
      if (!(g[i] == w[i])) ++d.count, d.first = i;
  });
  return d;
}

// The host's memcpy and reduction loop, timed as the GPU's would be; at
// most 8 MiB (the time model asks 256 MiB, past a GPU's L2: the host's
// caches are not what the tests measure, and every launch probes).
Bandwidth measure_bandwidth(size_t bytes, int repeats) {
  const size_t count = std::min(bytes, size_t{8} << 20) / sizeof(float);
  std::vector<float> a(count, 1.0f), b(count, 2.0f);
  auto best_s = [&](auto work) {
    double best = 1e30;
    for (int i = 0; i < repeats; ++i) {
      auto t0 = std::chrono::steady_clock::now();
      work();
      best = std::min(best,
                      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    return std::max(best, 1e-9);
  };
  const double copy_s = best_s([&] { std::memcpy(b.data(), a.data(), count * sizeof(float)); });
  const double reduce_s = best_s([&] {
    Reduction{DType::float32, Op::sum}.apply(b.data(), a.data(), count);
  });
  const double moved = double(count * sizeof(float));
  return {2 * moved / copy_s / 1e9, 3 * moved / reduce_s / 1e9};
}
void* stream() { return nullptr; }

}  // namespace commlab::gpu
