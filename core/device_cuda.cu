// The GPU backend (device.hpp). Every copy and kernel goes on one stream per
// process, so their order is the order the harness and the algorithms asked.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>

#include "device.hpp"
#include "packs.hpp"
#include "types.hpp"

namespace commlab::gpu {

namespace {

cudaStream_t g_stream = nullptr;
int g_multiprocessors = 1;

bool g_failed = false;  // a call failed and said so: what fails after it is its echo

void check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  g_failed = true;
  throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}
// Where nothing can be thrown (a free, on the way out): said on stderr,
// unless an error was already said (a fault poisons the context, and every
// later free fails alike: the one line that says why stays one), and
// cleared where it can be, so that the next check does not blame its own call.
void warn(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  if (!g_failed) std::fprintf(stderr, "warning: %s: %s\n", what, cudaGetErrorString(e));
  g_failed = true;
  cudaGetLastError();
}

std::string pci_address(const cudaDeviceProp& p) {
  char id[32];
  std::snprintf(id, sizeof id, "%04x:%02x:%02x.0", p.pciDomainID, p.pciBusID, p.pciDeviceID);
  return id;
}

// 16 bytes of T: one vector load per thread keeps the kernel at copy speed.
template <class T>
struct alignas(16) Pack {
  T v[16 / sizeof(T)];
};

// dst = a (op) b, element by element; dst may be a or b (a reduction into
// acc is dst = a = acc). Either term may be a peer's memory (CUDA IPC).
template <class T, Op O>
__global__ void reduce_packs(Pack<T>* dst, const Pack<T>* a, const Pack<T>* b, size_t packs) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < packs;
       i += size_t(gridDim.x) * blockDim.x) {
    Pack<T> x = a[i];
    const Pack<T> y = b[i];
#pragma unroll
    for (int k = 0; k < int(16 / sizeof(T)); ++k) x.v[k] = combine(O, x.v[k], y.v[k]);
    dst[i] = x;
  }
}

template <class T, Op O>
__global__ void reduce_elements(T* dst, const T* a, const T* b, size_t count) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count;
       i += size_t(gridDim.x) * blockDim.x)
    dst[i] = combine(O, a[i], b[i]);
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

constexpr int kThreads = 256;
// Enough blocks to fill every multiprocessor a few times over; each thread
// strides through the rest.
unsigned blocks_for(size_t items) {
  size_t most = size_t(g_multiprocessors) * 8;
  return static_cast<unsigned>(
      std::max<size_t>(1, std::min(most, (items + kThreads - 1) / kThreads)));
}

template <class T, Op O>
void launch_reduce(void* dst_v, const void* a_v, const void* b_v, size_t count) {
  auto* d = static_cast<T*>(dst_v);
  auto* a = static_cast<const T*>(a_v);
  auto* b = static_cast<const T*>(b_v);
  const PackSplit s =
      split_for_packs(reinterpret_cast<uintptr_t>(d), reinterpret_cast<uintptr_t>(a),
                      reinterpret_cast<uintptr_t>(b), count, sizeof(T));
  if (s.head) reduce_elements<T, O><<<blocks_for(s.head), kThreads, 0, g_stream>>>(d, a, b, s.head);
  const size_t at = s.head;
  if (s.packs)
    reduce_packs<T, O><<<blocks_for(s.packs), kThreads, 0, g_stream>>>(
        reinterpret_cast<Pack<T>*>(d + at), reinterpret_cast<const Pack<T>*>(a + at),
        reinterpret_cast<const Pack<T>*>(b + at), s.packs);
  const size_t rest = at + s.packs * (16 / sizeof(T));
  if (s.tail)
    reduce_elements<T, O>
        <<<blocks_for(s.tail), kThreads, 0, g_stream>>>(d + rest, a + rest, b + rest, s.tail);
  check(cudaGetLastError(), "reduction kernel");
}

}  // namespace

std::string unavailable_reason() {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e == cudaErrorInsufficientDriver || e == cudaErrorNoDevice)
    return std::string(
               "-d cuda: no usable GPU: no NVIDIA driver, or one older than this "
               "build's CUDA (") +
           cudaGetErrorString(e) + ")";
  if (e != cudaSuccess)
    return std::string("-d cuda: no usable GPU (") + cudaGetErrorString(e) + ")";
  if (n == 0) return "-d cuda: no GPU on this machine";
  return "";
}

int select(int local_rank) {
  int n = 0;
  check(cudaGetDeviceCount(&n), "cudaGetDeviceCount");
  const int device = local_rank % n;
  check(cudaSetDevice(device), "cudaSetDevice");
  check(cudaDeviceGetAttribute(&g_multiprocessors, cudaDevAttrMultiProcessorCount, device),
        "cudaDeviceGetAttribute");
  check(cudaStreamCreateWithFlags(&g_stream, cudaStreamNonBlocking), "cudaStreamCreate");
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
void release(void* p) { warn(cudaFree(p), "cudaFree"); }

void* alloc_pinned(size_t bytes) {
  void* p = nullptr;
  check(cudaMallocHost(&p, std::max<size_t>(bytes, 16)), "cudaMallocHost");
  return p;
}
void release_pinned(void* p) { warn(cudaFreeHost(p), "cudaFreeHost"); }

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
void close_shared(void* p) { warn(cudaIpcCloseMemHandle(p), "cudaIpcCloseMemHandle"); }

void copy(void* dst, const void* src, size_t bytes) {
  if (bytes)
    check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, g_stream), "cudaMemcpyAsync");
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

void sync() { check(cudaStreamSynchronize(g_stream), "cudaStreamSynchronize"); }

bool sync_within(double seconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  for (;;) {
    const cudaError_t e = cudaStreamQuery(g_stream);
    if (e == cudaSuccess) return true;
    if (e != cudaErrorNotReady) check(e, "cudaStreamQuery");
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
}

Event event_create() {
  cudaEvent_t e;
  check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate");
  return e;
}
void event_record(Event e) {
  check(cudaEventRecord(static_cast<cudaEvent_t>(e), g_stream), "cudaEventRecord");
}
void event_wait(Event e) {
  check(cudaEventSynchronize(static_cast<cudaEvent_t>(e)), "cudaEventSynchronize");
}
void event_destroy(Event e) {
  warn(cudaEventDestroy(static_cast<cudaEvent_t>(e)), "cudaEventDestroy");
}

Difference compare(DType t, const void* got, const void* want, size_t count) {
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

void* stream() { return g_stream; }

}  // namespace commlab::gpu
