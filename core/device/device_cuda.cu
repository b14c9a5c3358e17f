// The GPU backend (device.hpp). Every copy and kernel goes on one stream per
// process, so their order is the order the harness and the algorithms asked.
#include <cuda_runtime.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>

#include "core/vocabulary/failures.hpp"
#include "core/vocabulary/types.hpp"
#include "cuda_shared.cuh"
#include "device.hpp"

namespace commlab::gpu {

using namespace detail;

cudaStream_t detail::g_stream = nullptr;
int detail::g_multiprocessors = 1;
uint64_t detail::g_launches = 0;

namespace {

bool g_failed = false;  // a call failed and said so: what fails after it is its echo

}  // namespace

void detail::check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  g_failed = true;
  throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}
// Where nothing can be thrown (a free, on the way out): said on stderr,
// unless an error was already said (a fault poisons the context, and every
// later free fails alike: the one line that says why stays one), and
// cleared where it can be, so that the next check does not blame its own call.
void detail::warn(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  if (!g_failed) std::fprintf(stderr, "warning: %s: %s\n", what, cudaGetErrorString(e));
  g_failed = true;
  cudaGetLastError();
}

unsigned detail::blocks_for(size_t items) {
  size_t most = size_t(g_multiprocessors) * 8;
  return static_cast<unsigned>(
      std::max<size_t>(1, std::min(most, (items + kThreads - 1) / kThreads)));
}

namespace {

std::string pci_address(const cudaDeviceProp& p) {
  char id[32];
  std::snprintf(id, sizeof id, "%04x:%02x:%02x.0", p.pciDomainID, p.pciBusID, p.pciDeviceID);
  return id;
}

// dst = a (op) b, element by element, in one launch.
template <class T, Op O>
__global__ void reduce_kernel(T* d, const T* a, const T* b, PackSplit s) {
  reduce_split<T, O>(d, a, b, s, blockIdx.x * size_t(blockDim.x) + threadIdx.x,
                     size_t(gridDim.x) * blockDim.x);
}

// dst := t[0] (op) t[1] ... (cuda_shared.cuh's fold_split) in one launch,
// up to 32 terms; `onto` for the terms past them.
constexpr int kTermsPerLaunch = 32;
template <class T>
struct Terms {
  const void* p[kTermsPerLaunch];
  int n;
};
template <class T, Op O>
__global__ void reduce_many_kernel(T* d, Terms<T> t, size_t count, bool onto) {
  fold_split<T, O>(d, t.p, uint32_t(t.n), count, onto);
}

template <class T>
__global__ void count_differences(const T* got, const T* want, size_t count,
                                  unsigned long long* wrong, unsigned long long* first) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count;
       i += size_t(gridDim.x) * blockDim.x)
    if (!(got[i] == want[i])) {
      atomicAdd(wrong, 1ull);
      atomicMin(first, static_cast<unsigned long long>(i));
    }
}

uint64_t g_waits = 0;  // Activity's host waits

template <class T, Op O>
void launch_reduce(void* dst_v, const void* a_v, const void* b_v, size_t count) {
  launch_program();
  auto* d = static_cast<T*>(dst_v);
  auto* a = static_cast<const T*>(a_v);
  auto* b = static_cast<const T*>(b_v);
  const PackSplit s =
      split_for_packs(reinterpret_cast<uintptr_t>(d), reinterpret_cast<uintptr_t>(a),
                      reinterpret_cast<uintptr_t>(b), count, sizeof(T));
  reduce_kernel<T, O>
      <<<blocks_for(std::max(s.packs, s.head + s.tail)), kThreads, 0, g_stream>>>(d, a, b, s);
  ++g_launches;
  check(cudaGetLastError(), "reduction kernel");
}

}  // namespace

int select(int local_rank) {
  int n = 0;
  check(cudaGetDeviceCount(&n), "cudaGetDeviceCount");
  const int device = local_rank % n;
  check(cudaSetDevice(device), "cudaSetDevice");
  check(cudaDeviceGetAttribute(&g_multiprocessors, cudaDevAttrMultiProcessorCount, device),
        "cudaDeviceGetAttribute");
  check(cudaStreamCreateWithFlags(&g_stream, cudaStreamNonBlocking), "cudaStreamCreate");
  load_programs();
  return n;
}

Inventory inventory() {
  Inventory inv;
  check(cudaGetDeviceCount(&inv.gpus), "cudaGetDeviceCount");
  for (int d = 0; d < inv.gpus; ++d) {
    cudaDeviceProp p{};
    check(cudaGetDeviceProperties(&p, d), "cudaGetDeviceProperties");
    if (d == 0 || p.totalGlobalMem < inv.smallest_B) inv.smallest_B = p.totalGlobalMem;
    inv.bus_ids.push_back(pci_address(p));
  }
  return inv;
}

std::string bus_id() {
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  cudaDeviceProp p{};
  check(cudaGetDeviceProperties(&p, device), "cudaGetDeviceProperties");
  return pci_address(p);
}

bool emulated() { return false; }

bool mps_enabled() {
  int device = 0, enabled = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  check(cudaFree(nullptr), "creating the GPU context");  // the attribute is the context's
  check(cudaDeviceGetAttribute(&enabled, cudaDevAttrMpsEnabled, device),
        "cudaDeviceGetAttribute(cudaDevAttrMpsEnabled)");
  return enabled != 0;
}

std::string describe() {
  int device = 0, driver = 0, runtime = 0;
  cudaGetDevice(&device);
  cudaDeviceProp p{};
  check(cudaGetDeviceProperties(&p, device), "cudaGetDeviceProperties");
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  auto version = [](int v) {
    return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
  };
  return std::string(p.name) + ", CUDA driver " + version(driver) + ", runtime " + version(runtime);
}

void* alloc(size_t bytes) {
  void* p = nullptr;
  check(cudaMalloc(&p, std::max<size_t>(bytes, 16)), "cudaMalloc");
  return p;
}
void release(void* p) {
  launch_program();  // cudaFree waits for the work before it: that includes the program
  warn(cudaFree(p), "cudaFree");
}

void* alloc_pinned(size_t bytes) {
  void* p = nullptr;
  check(cudaMallocHost(&p, std::max<size_t>(bytes, 16)), "cudaMallocHost");
  return p;
}
void release_pinned(void* p) {
  launch_program();
  warn(cudaFreeHost(p), "cudaFreeHost");
}

static_assert(sizeof(cudaIpcMemHandle_t) == sizeof(IpcHandle),
              "an IPC handle travels as its bytes");

// A handle maps the whole block cudaMalloc carved the allocation from, and
// a small allocation may share its block with others: the CUDA Programming
// Guide's IPC section asks for sizes in 2 MiB, so that a peer maps this
// region and nothing else.
void* alloc_shared(size_t bytes, IpcHandle& handle) {
  constexpr size_t kGranule = size_t{2} << 20;
  void* p = alloc((std::max<size_t>(bytes, 1) + kGranule - 1) / kGranule * kGranule);
  cudaIpcMemHandle_t h;
  if (cudaError_t e = cudaIpcGetMemHandle(&h, p); e != cudaSuccess) {
    release(p);
    check(e, "cudaIpcGetMemHandle");
  }
  std::memcpy(handle.bytes, &h, sizeof h);
  return p;
}
void release_shared(void* p) { release(p); }

// Another GPU than this one needs peer access to it (NVLink or PCIe P2P); the
// same GPU, several processes sharing it, needs none.
void* open_shared(const IpcHandle& handle) {
  cudaIpcMemHandle_t h;
  std::memcpy(&h, handle.bytes, sizeof h);
  void* p = nullptr;
  check(cudaIpcOpenMemHandle(&p, h, cudaIpcMemLazyEnablePeerAccess),
        "cudaIpcOpenMemHandle (this GPU cannot map a peer's memory)");
  return p;
}
void close_shared(void* p) {
  launch_program();
  warn(cudaIpcCloseMemHandle(p), "cudaIpcCloseMemHandle");
}

void copy(void* dst, const void* src, size_t bytes) {
  launch_program();
  if (!bytes) return;
  check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, g_stream), "cudaMemcpyAsync");
  ++g_launches;
}

void reduce(DType t, Op op, void* acc, const void* in, size_t count) {
  if (count == 0) return;
  visit_dtype(t, [&](auto x) {
    using T = decltype(x);
    visit_op(op, [&](auto o) { launch_reduce<T, decltype(o)::value>(acc, acc, in, count); });
  });
}

void reduce_to(DType t, Op op, void* dst, const void* a, const void* b, size_t count) {
  if (count == 0) return;
  visit_dtype(t, [&](auto x) {
    using T = decltype(x);
    visit_op(op, [&](auto o) { launch_reduce<T, decltype(o)::value>(dst, a, b, count); });
  });
}

void reduce_many(DType t, Op op, void* dst, const void* const* terms, int n, size_t count) {
  launch_program();
  if (count == 0 || n == 0) return;
  visit_dtype(t, [&](auto x) {
    using T = decltype(x);
    visit_op(op, [&](auto o) {
      for (int at = 0; at < n; at += kTermsPerLaunch) {
        Terms<T> part{};
        part.n = std::min(kTermsPerLaunch, n - at);
        for (int k = 0; k < part.n; ++k) part.p[k] = terms[at + k];
        reduce_many_kernel<T, decltype(o)::value><<<blocks_for(count), kThreads, 0, g_stream>>>(
            static_cast<T*>(dst), part, count, at > 0);
        ++g_launches;
      }
    });
  });
  check(cudaGetLastError(), "reduction kernel");
}

namespace {

// Until the stream has run everything queued, or `seconds` have passed
// (false). It polls: for the first millisecond without pause, as a
// spinning cudaStreamSynchronize would (a short call must not wait out a
// sleep), then every 100 us.
bool stream_done_within(double seconds) {
  const auto start = std::chrono::steady_clock::now();
  const auto until = start + std::chrono::duration<double>(seconds);
  for (;;) {
    const cudaError_t e = cudaStreamQuery(g_stream);
    if (e == cudaSuccess) return true;
    if (e != cudaErrorNotReady) check(e, "cudaStreamQuery");
    const auto now = std::chrono::steady_clock::now();
    if (now > until) return false;
    if (now - start > std::chrono::milliseconds(1))
      std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
}

// A host wait that never ends would hang the run: every kernel's own waits
// end within their 60 s deadline, so past twice that the GPU is stuck (a
// peer's memory that stopped answering over PCIe, a kernel not resident).
constexpr double kWatchdog_s = 120;

}  // namespace

void sync() {
  launch_program();
  ++g_waits;
  if (!stream_done_within(kWatchdog_s))
    throw std::runtime_error(
        "the GPU has not finished its queued work in 120 s (every kernel's wait ends within "
        "60 s): the GPU or a peer's memory is stuck");
  check_signals();
}

Activity activity() { return {g_launches, g_waits}; }

bool sync_within(double seconds) {
  launch_program();
  ++g_waits;
  if (!stream_done_within(seconds)) return false;
  check_signals();
  return true;
}

Event event_create() {
  cudaEvent_t e;
  check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate");
  return e;
}
void event_record(Event e) {
  launch_program();
  check(cudaEventRecord(static_cast<cudaEvent_t>(e), g_stream), "cudaEventRecord");
}
void event_wait(Event e) {
  ++g_waits;
  check(cudaEventSynchronize(static_cast<cudaEvent_t>(e)), "cudaEventSynchronize");
}
void event_destroy(Event e) {
  warn(cudaEventDestroy(static_cast<cudaEvent_t>(e)), "cudaEventDestroy");
}

Difference compare(DType t, const void* got, const void* want, size_t count) {
  launch_program();
  Difference d;
  if (count == 0) return d;
  // wrong, first; freed however this ends
  auto* counters = static_cast<unsigned long long*>(alloc(2 * sizeof(unsigned long long)));
  struct Freed {
    void* p;
    ~Freed() { release(p); }
  } freed{counters};
  const unsigned long long start[2] = {0, ~0ull};
  check(cudaMemcpyAsync(counters, start, sizeof start, cudaMemcpyHostToDevice, g_stream),
        "cudaMemcpyAsync");
  visit_dtype(t, [&](auto x) {
    using T = decltype(x);
    count_differences<T><<<blocks_for(count), kThreads, 0, g_stream>>>(
        static_cast<const T*>(got), static_cast<const T*>(want), count, counters, counters + 1);
  });
  check(cudaGetLastError(), "compare kernel");
  unsigned long long result[2];
  check(cudaMemcpyAsync(result, counters, sizeof result, cudaMemcpyDeviceToHost, g_stream),
        "cudaMemcpyAsync");
  sync();
  d.count = result[0];
  d.first = result[0] ? static_cast<size_t>(result[1]) : 0;
  return d;
}

Bandwidth measure_bandwidth(size_t bytes, int repeats) {
  const size_t count = bytes / sizeof(float);
  void* a = alloc(bytes);
  void* b = alloc(bytes);
  check(cudaMemsetAsync(a, 0, bytes, g_stream), "cudaMemset");
  check(cudaMemsetAsync(b, 0, bytes, g_stream), "cudaMemset");
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  auto best_ms = [&](auto work) {
    work();  // warm-up
    float best = 1e30f;
    for (int i = 0; i < repeats; ++i) {
      check(cudaEventRecord(start, g_stream), "cudaEventRecord");
      work();
      check(cudaEventRecord(stop, g_stream), "cudaEventRecord");
      check(cudaEventSynchronize(stop), "cudaEventSynchronize");
      float ms = 0;
      check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
      best = std::min(best, ms);
    }
    return double(best);
  };
  const double copy_ms = best_ms([&] { copy(b, a, count * sizeof(float)); });
  const double reduce_ms = best_ms([&] { reduce(DType::float32, Op::sum, b, a, count); });
  warn(cudaEventDestroy(start), "cudaEventDestroy");
  warn(cudaEventDestroy(stop), "cudaEventDestroy");
  release(a);
  release(b);
  const double moved = double(count * sizeof(float));
  return {2 * moved / copy_ms / 1e6, 3 * moved / reduce_ms / 1e6};
}

void* stream() {  // NCCL queues on it: after the program
  launch_program();
  return g_stream;
}

}  // namespace commlab::gpu
