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
#include "device.hpp"
#include "packs.hpp"

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

// dst = a (op) b over the split's elements, this thread's share of them
// (from `first`, every `stride`): the head element by element up to a
// 16-byte boundary, the packs with one vector load of each term before the
// store, the tail (packs.hpp). dst may be a or b; either term may be a
// peer's memory (CUDA IPC). The reduction kernel and the signal kernel's
// reducing messages both run it, so both reduce at copy speed.
template <class T, Op O>
__device__ void reduce_split(T* d, const T* a, const T* b, PackSplit s, size_t first,
                             size_t stride) {
  for (size_t i = first; i < s.head; i += stride) d[i] = combine(O, a[i], b[i]);
  auto* dp = reinterpret_cast<Pack<T>*>(d + s.head);
  auto* ap = reinterpret_cast<const Pack<T>*>(a + s.head);
  auto* bp = reinterpret_cast<const Pack<T>*>(b + s.head);
  for (size_t i = first; i < s.packs; i += stride) {
    Pack<T> x = ap[i];
    const Pack<T> y = bp[i];
#pragma unroll
    for (int k = 0; k < int(16 / sizeof(T)); ++k) x.v[k] = combine(O, x.v[k], y.v[k]);
    dp[i] = x;
  }
  const size_t rest = s.head + s.packs * (16 / sizeof(T));
  for (size_t i = first; i < s.tail; i += stride)
    d[rest + i] = combine(O, a[rest + i], b[rest + i]);
}

// dst = a (op) b, element by element, in one launch.
template <class T, Op O>
__global__ void reduce_kernel(T* d, const T* a, const T* b, PackSplit s) {
  reduce_split<T, O>(d, a, b, s, blockIdx.x * size_t(blockDim.x) + threadIdx.x,
                     size_t(gridDim.x) * blockDim.x);
}

// dst = t[0] (op) t[1] (op) ..., in that order (every rank the same sum);
// with `onto`, dst (op) t[0] (op) ... (the terms past the first launch's).
constexpr int kTermsPerLaunch = 32;
template <class T>
struct Terms {
  const T* p[kTermsPerLaunch];
  int n;
};
template <class T, Op O>
__global__ void reduce_many_kernel(T* d, Terms<T> t, size_t count, bool onto) {
  const size_t first = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  for (size_t i = first; i < count; i += size_t(gridDim.x) * blockDim.x) {
    T x = onto ? d[i] : t.p[0][i];
    for (int k = onto ? 0 : 1; k < t.n; ++k) x = combine(O, x, t.p[k][i]);
    d[i] = x;
  }
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

uint64_t g_launches = 0, g_waits = 0;  // Activity

// Device-side signalling (signals.hpp). Flags are polled with acquire loads
// and raised with release stores at system scope, after a system fence, as
// NCCL's symmetric kernels and vLLM's custom all-reduce do; one thread of a
// block waits, the block follows. A wait longer than its budget, timed by
// the GPU's own clock (%globaltimer, whose zero is not the host's epoch),
// writes what it waited for into page-locked host memory the kernel maps,
// raises the ranks' shared `failed` word, stops every block of the op, and
// is reported by the next sync. A wait that finds `failed` raised by another
// rank stops too (code 3), as the host executors do (signals.cpp).
struct SignalError {
  unsigned int code;  // 0 none, 1 a wait timed out, 2 a message of the wrong size, 3 a peer failed
  int rank;
  SignalWait wait;
  uint64_t got, want;
};
SignalError* g_error = nullptr;         // host view
SignalError* g_error_device = nullptr;  // the kernels' view of the same
int g_ranks_sharing = 1;                // ranks whose kernels share this GPU
double g_deadline_s = 60;               // the last op's, for the message

__device__ uint64_t load_acquire(const uint64_t* p) {
  uint64_t v;
  asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
__device__ void store_release(uint64_t* p, uint64_t v) {
  __threadfence_system();
  asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
__device__ uint64_t now_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// This process's error, once (the first block to fail writes it), and the
// ranks' `failed` word raised, so that their kernels stop at their next poll.
__device__ void fail(unsigned int code, const SignalOp& op, const SignalWait& w, SignalError* err) {
  if (atomicCAS(&err->code, 0u, code) == 0) err->rank = op.rank, err->wait = w;
  if (code != 3 && op.failed) {
    *(volatile uint64_t*)op.failed = 1;
    __threadfence_system();
  }
}

// Thread 0's wait: false once its budget is spent, another block of this
// process gave up, or another rank failed.
__device__ bool wait_flag(const SignalWait& w, const SignalOp& op, uint64_t budget_ns,
                          SignalError* err) {
  uint64_t start = 0;
  for (uint32_t spins = 1; load_acquire(w.flag) < w.at_least; ++spins) {
    if (spins % 256) continue;
    if (*(volatile unsigned int*)&err->code) return false;
    if (op.failed && *(volatile const uint64_t*)op.failed) return fail(3, op, w, err), false;
    const uint64_t now = now_ns();
    if (!start) start = now;  // the wait's own start, on the GPU's clock
    if (now - start > budget_ns) return fail(1, op, w, err), false;
  }
  return true;
}

// The bytes of a message: reduced into dst (T the element), or copied, each
// in 16-byte packs between a head and a tail where the two ends sit alike
// off a 16-byte boundary (as symmetric regions do), else element by element.
template <class T, Op O, bool Reduce>
__device__ void move_bytes(char* dst, const char* mine, const char* src, uint64_t bytes) {
  const size_t first = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  const auto at = [](const void* p) { return reinterpret_cast<uintptr_t>(p); };
  if (Reduce) {
    auto* d = reinterpret_cast<T*>(dst);
    auto* a = reinterpret_cast<const T*>(src);
    auto* m =
        mine ? reinterpret_cast<const T*>(mine) : d;  // dst := mine (op) src, or dst (op)= src
    const size_t count = bytes / sizeof(T);
    reduce_split<T, O>(d, m, a, split_for_packs(at(d), at(m), at(a), count, sizeof(T)), first,
                       stride);
    return;
  }
  const PackSplit s = split_for_packs(at(dst), at(src), at(src), bytes, 1);
  for (size_t i = first; i < s.head; i += stride) dst[i] = src[i];
  auto* dp = reinterpret_cast<uint4*>(dst + s.head);
  auto* sp = reinterpret_cast<const uint4*>(src + s.head);
  for (size_t i = first; i < s.packs; i += stride) dp[i] = sp[i];
  const size_t rest = s.head + s.packs * 16;
  for (size_t i = first; i < s.tail; i += stride) dst[rest + i] = src[rest + i];
}

// One SignalOp, in its order: post, raise, take, wait. Block 0 posts and
// raises; every block waits for the message and moves its share; the last
// block to finish (done counts them) says it was taken; block 0 waits last.
template <class T, Op O, bool Reduce>
__global__ void signal_kernel(SignalOp op, uint64_t budget_ns, SignalError* err) {
  __shared__ int ok;
  __shared__ SignalSlot slot;
  if (threadIdx.x == 0) {
    ok = 1;
    if (blockIdx.x == 0 && op.post) {
      ok = wait_flag(op.room, op, budget_ns, err);
      if (ok) *op.slot = op.where, store_release(op.posted.flag, op.posted.value);
    }
    for (int i = 0; ok && blockIdx.x == 0 && i < op.writes; ++i)
      store_release(op.write[i].flag, op.write[i].value);
    if (ok && op.take) {
      ok = wait_flag(op.arrived, op, budget_ns, err);
      if (ok) slot = *op.from_slot;  // written before `posted`, read after it
      if (ok && slot.bytes != op.bytes) {
        err->got = slot.bytes, err->want = op.bytes;  // read only once code is 2
        fail(2, op, op.arrived, err);
        ok = 0;
      }
    }
  }
  __syncthreads();
  if (!ok) return;
  if (op.take) {
    move_bytes<T, O, Reduce>(op.dst, op.mine, op.peer_base + slot.offset, op.bytes);
    __syncthreads();
    if (threadIdx.x == 0) {
      __threadfence();
      const unsigned long long before =
          atomicAdd(reinterpret_cast<unsigned long long*>(op.done), 1ull);
      if (before + 1 == op.done_before + gridDim.x) store_release(op.taken.flag, op.taken.value);
    }
  }
  if (threadIdx.x == 0 && blockIdx.x == 0)
    for (int i = 0; i < op.waits; ++i)
      if (!wait_flag(op.wait[i], op, budget_ns, err)) return;
}

// What a wait that timed out, or a message of the wrong size, says: thrown
// by the sync that finds it.
void check_signals() {
  if (!g_error || g_error->code == 0) return;
  const SignalError e = *g_error;
  g_error->code = 0;
  if (e.code == 3) throw OtherRankFailed{};
  if (e.code == 2)
    throw std::runtime_error("rank " + std::to_string(e.rank) + " expected " +
                             std::to_string(e.want) + " bytes from rank " +
                             std::to_string(e.wait.peer) + ", got " + std::to_string(e.got));
  throw std::runtime_error(describe_wait(e.rank, e.wait, g_deadline_s) +
                           " (device-side signalling)");
}

template <class T, Op O>
void launch_reduce(void* dst_v, const void* a_v, const void* b_v, size_t count) {
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
  if (count == 0 || n == 0) return;
  visit_dtype(t, [&](auto x) {
    using T = decltype(x);
    visit_op(op, [&](auto o) {
      for (int at = 0; at < n; at += kTermsPerLaunch) {
        Terms<T> part{};
        part.n = std::min(kTermsPerLaunch, n - at);
        for (int k = 0; k < part.n; ++k) part.p[k] = static_cast<const T*>(terms[at + k]);
        reduce_many_kernel<T, decltype(o)::value><<<blocks_for(count), kThreads, 0, g_stream>>>(
            static_cast<T*>(dst), part, count, at > 0);
        ++g_launches;
      }
    });
  });
  check(cudaGetLastError(), "reduction kernel");
}

void sync() {
  ++g_waits;
  check(cudaStreamSynchronize(g_stream), "cudaStreamSynchronize");
  check_signals();
}

Activity activity() { return {g_launches, g_waits}; }

// A kernel's parameters are at most 4 KiB (before CUDA 12.1 and Volta).
static_assert(sizeof(SignalOp) <= 4000, "a SignalOp travels as a kernel parameter");

// The kernels' view of the ranks' `failed` word (host memory every rank
// maps: the direct transport's control block), its page registered once;
// null where it cannot be, and the kernels then stop on their budgets alone.
// One control block per process (one transport, for the program's life); a
// new one is registered in its place.
namespace {
uint64_t* device_view(uint64_t* failed) {
  static uint64_t *host = nullptr, *device = nullptr;
  static void* page = nullptr;
  if (!failed) return nullptr;
  if (failed == host) return device;
  if (page) warn(cudaHostUnregister(page), "cudaHostUnregister");
  const uintptr_t page_B = uintptr_t(sysconf(_SC_PAGESIZE));  // 4 KiB, 64 KiB on some Arm hosts
  page = reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(failed) / page_B * page_B);
  host = failed, device = nullptr;
  cudaError_t e = cudaHostRegister(page, page_B, cudaHostRegisterMapped | cudaHostRegisterPortable);
  if (e == cudaErrorHostMemoryAlreadyRegistered) e = cudaSuccess, page = nullptr;
  if (e != cudaSuccess) {
    cudaGetLastError();  // not sticky: the run goes on without it
    page = nullptr;
    return nullptr;
  }
  void* seen = nullptr;
  if (cudaHostGetDevicePointer(&seen, failed, 0) == cudaSuccess)
    device = static_cast<uint64_t*>(seen);
  cudaGetLastError();
  return device;
}
}  // namespace

uint64_t signal(const SignalOp& op) {
  if (!g_error) {
    check(cudaHostAlloc(&g_error, sizeof(SignalError), cudaHostAllocMapped), "cudaHostAlloc");
    *g_error = SignalError{};
    check(cudaHostGetDevicePointer(&g_error_device, g_error, 0), "cudaHostGetDevicePointer");
  }
  const uint64_t budget_ns = uint64_t(op.deadline_s * 1e9);  // each wait's, from its start
  g_deadline_s = op.deadline_s;
  // A share of the GPU's blocks small enough that every sharing rank's op
  // is resident at once: a waiting block must never keep out the one it waits for.
  const unsigned most = std::max(1, 2 * g_multiprocessors / g_ranks_sharing);
  const unsigned blocks = op.take ? std::min<unsigned>(most, blocks_for(op.bytes / 16 + 1)) : 1;
  SignalOp launched = op;
  launched.failed = device_view(op.failed);
  if (op.take && op.reduce) {
    visit_dtype(op.dtype, [&](auto x) {
      using T = decltype(x);
      visit_op(op.op, [&](auto o) {
        signal_kernel<T, decltype(o)::value, true>
            <<<blocks, kThreads, 0, g_stream>>>(launched, budget_ns, g_error_device);
      });
    });
  } else {
    signal_kernel<char, Op::sum, false>
        <<<blocks, kThreads, 0, g_stream>>>(launched, budget_ns, g_error_device);
  }
  ++g_launches;
  check(cudaGetLastError(), "signal kernel");
  return op.take ? blocks : 0;
}

void share_with(int ranks_on_this_gpu) { g_ranks_sharing = std::max(1, ranks_on_this_gpu); }

bool sync_within(double seconds) {
  ++g_waits;
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  for (;;) {
    const cudaError_t e = cudaStreamQuery(g_stream);
    if (e == cudaSuccess) return check_signals(), true;
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
  ++g_waits;
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
