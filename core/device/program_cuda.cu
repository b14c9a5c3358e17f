// The device program's kernel (program.hpp, docs/direct.md): a call over
// direct access with the device's signals, every message, fence, copy and
// reduction of it, run in order by one kernel.
#include <cuda_runtime.h>
#include <unistd.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/vocabulary/failures.hpp"
#include "cuda_shared.cuh"
#include "device.hpp"

namespace commlab::gpu {

namespace detail {

namespace {

// Device programs (program.hpp): one kernel runs a call's steps in order.
// Flags are polled with acquire loads and raised with release stores at
// system scope, after a system fence, as NCCL's symmetric kernels and vLLM's
// custom all-reduce do; one thread of a block waits, the block follows. A
// wait longer than its budget, timed by the GPU's own clock (%globaltimer,
// whose zero is not the host's epoch), writes what it waited for into
// page-locked host memory the kernel maps, raises the ranks' shared `failed`
// word, stops every block of the kernel, and is reported by the next sync.
// A wait that finds `failed` raised by another rank stops too (code 3), as
// the host executors do (signals.cpp).
struct SignalError {
  unsigned int code;  // 0 none, 1 a wait timed out, 2 a message of the wrong size, 3 a peer failed
  int rank;
  SignalWait wait;
  uint64_t got, want;
};
SignalError* g_error = nullptr;         // host view
SignalError* g_error_device = nullptr;  // the kernels' view of the same
int g_ranks_sharing = 1;                // ranks whose kernels share this GPU
int g_resident_per_sm = 1;              // program blocks a multiprocessor holds (load_programs)
Program g_program;                      // gathered, not yet launched
uint64_t* g_barrier = nullptr;          // device memory: blocks that ended a step, ever
uint64_t g_barrier_at = 0;              // its value once every launched kernel has run
double g_deadline_s = 60;               // the last program's, for the message

__device__ uint64_t load_acquire(const uint64_t* p) {
  uint64_t v;
  asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
// A release at system scope. The fence before it makes the writes of the
// whole block (ordered before by a barrier) visible to peers with it; a
// run of releases (a fence's P counters) needs it once.
__device__ void release_only(uint64_t* p, uint64_t v) {
  asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
__device__ void store_release(uint64_t* p, uint64_t v) {
  __threadfence_system();
  release_only(p, v);
}
__device__ uint64_t now_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// A step as the kernel's parameters carry it: a signal op's waits and
// writes in the program's shared lists (a fence at P = 64 has 127, a
// message one or two), a copy's or reduction's pointers in dst, a, b.
struct KernelStep {
  StepKind kind;
  bool onto, post, take, reduce;
  uint16_t waits, writes;
  uint32_t first_wait, first_write, first_term, terms;
  char* dst;
  const char* a;   // copy: the source; reduce: a term; a reducing take: `mine` (or null)
  const char* b;   // reduce: the other term; a take: the sender's region
  uint64_t count;  // copy, take: bytes; reductions: elements
  SignalWait room, arrived;
  SignalSlot* slot;
  SignalSlot where;
  SignalWrite posted, taken;
  const SignalSlot* from_slot;
};

// Up to 32 KiB of parameters since CUDA 12.1 (Volta and later); 4 KiB before.
#if CUDART_VERSION >= 12010
constexpr int kProgramSteps = 96, kProgramWaits = 256, kProgramWrites = 160, kProgramTerms = 64;
#else
// Room for one op of the most waits and writes (kMaxSignalWaits) and one
// fold of kTermsPerStep terms in any case: every step fits an empty program.
constexpr int kProgramSteps = 6, kProgramWaits = 64, kProgramWrites = 64, kProgramTerms = 32;
#endif
struct KernelProgram {
  int rank = 0, steps = 0, waits = 0, writes = 0, terms = 0;
  uint64_t* failed = nullptr;  // the ranks' shared word, as the kernels see it (or null)
  uint64_t budget_ns = 0;      // each wait's, from its first poll
  SignalError* err = nullptr;
  uint64_t* barrier = nullptr;  // blocks of this process's kernels that ended a step, ever
  uint64_t barrier_at = 0;      // its value as this kernel starts
  KernelStep step[kProgramSteps];
  SignalWait wait[kProgramWaits];
  SignalWrite write[kProgramWrites];
  const void* term[kProgramTerms];
};
static_assert(sizeof(KernelProgram) <= (CUDART_VERSION >= 12010 ? 32764 : 4096),
              "a program travels as a kernel's parameters");

// This process's error, once (the first block to fail writes it), and the
// ranks' `failed` word raised, so that their kernels stop at their next poll.
__device__ void fail(unsigned int code, const KernelProgram& p, const SignalWait& w) {
  if (atomicCAS(&p.err->code, 0u, code) == 0) p.err->rank = p.rank, p.err->wait = w;
  if (code != 3 && p.failed) {
    *(volatile uint64_t*)p.failed = 1;
    __threadfence_system();
  }
}

// Thread 0's wait: false once its budget is spent, another block of this
// process gave up, or another rank failed.
__device__ bool wait_flag(const SignalWait& w, const KernelProgram& p) {
  uint64_t start = 0;
  for (uint32_t spins = 1; load_acquire(w.flag) < w.at_least; ++spins) {
    if (spins % 256) continue;
    if (*(volatile unsigned int*)&p.err->code) return false;
    if (p.failed && *(volatile const uint64_t*)p.failed) return fail(3, p, w), false;
    const uint64_t now = now_ns();
    if (!start) start = now;  // the wait's own start, on the GPU's clock
    if (now - start > p.budget_ns) return fail(1, p, w), false;
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

template <class T, Op O>
__device__ void fold_terms(const KernelProgram& p, const KernelStep& s) {
  fold_split<T, O>(reinterpret_cast<T*>(s.dst), &p.term[s.first_term], s.terms, s.count, s.onto);
}

// A signal step's start: block 0 posts its message once the slot is free
// and raises its counters; every block waits for the message it takes, reads
// where it lies (a size that is not the one expected fails) and moves its share.
template <class T, Op O>
__device__ bool start_signal(const KernelProgram& p, const KernelStep& s, int& ok,
                             SignalSlot& slot) {
  __syncthreads();  // every thread has read `ok` and `slot` of the step before
  if (threadIdx.x == 0) {
    ok = 1;
    if (blockIdx.x == 0 && s.post) {
      ok = wait_flag(s.room, p);
      if (ok) *s.slot = s.where, store_release(s.posted.flag, s.posted.value);
    }
    if (ok && blockIdx.x == 0 && s.writes) __threadfence_system();
    for (int k = 0; ok && blockIdx.x == 0 && k < s.writes; ++k)
      release_only(p.write[s.first_write + k].flag, p.write[s.first_write + k].value);
    if (ok && s.take) {
      ok = wait_flag(s.arrived, p);
      if (ok) slot = *s.from_slot;  // written before `posted`, read after it
      if (ok && slot.bytes != s.count) {
        p.err->got = slot.bytes, p.err->want = s.count;  // read only once code is 2
        fail(2, p, s.arrived);
        ok = 0;
      }
    }
  }
  __syncthreads();
  if (!ok) return false;
  if (s.take && s.reduce) move_bytes<T, O, true>(s.dst, s.a, s.b + slot.offset, s.count);
  if (s.take && !s.reduce) move_bytes<T, O, false>(s.dst, nullptr, s.b + slot.offset, s.count);
  return true;
}

// Every block past the step, its writes visible, before any begins the
// next: `target` is the count of blocks that ended a step once all of
// this one's have.
__device__ bool barrier(const KernelProgram& p, uint64_t target, int& ok) {
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    atomicAdd(reinterpret_cast<unsigned long long*>(p.barrier), 1ull);
    ok = wait_flag(SignalWait{p.barrier, target, p.rank, Awaited::blocks}, p);
  }
  __syncthreads();
  return ok;
}

// A signal step's end, after the barrier: block 0 says its message was
// taken (every block has moved its share); every block waits for the
// step's counters (its sends taken, every rank at the fence) itself, so
// that none begins the next step before they are reached.
__device__ bool finish_signal(const KernelProgram& p, const KernelStep& s, int& ok) {
  __syncthreads();
  if (threadIdx.x == 0) {
    ok = 1;
    if (blockIdx.x == 0 && s.take) store_release(s.taken.flag, s.taken.value);
    for (int k = 0; ok && k < s.waits; ++k) ok = wait_flag(p.wait[s.first_wait + k], p);
  }
  __syncthreads();
  return ok;
}

// The whole program: T and O are its reductions' (one per kernel; a
// program of copies and signals alone takes any).
template <class T, Op O>
// Two blocks a multiprocessor at least (launch_program counts on it, and
// load_programs checks it): the barrier needs every block resident.
__global__ void __launch_bounds__(kThreads, 2)
    program_kernel(const __grid_constant__ KernelProgram p) {
  __shared__ int ok;
  __shared__ SignalSlot slot;
  uint64_t ended = p.barrier_at;
  for (int i = 0; i < p.steps; ++i) {
    const KernelStep& s = p.step[i];
    switch (s.kind) {
      case StepKind::copy:
        move_bytes<T, O, false>(s.dst, nullptr, s.a, s.count);
        break;
      case StepKind::reduce:
        move_bytes<T, O, true>(s.dst, s.a, s.b, s.count * sizeof(T));
        break;
      case StepKind::reduce_many:
        fold_terms<T, O>(p, s);
        break;
      case StepKind::signal:
        if (!start_signal<T, O>(p, s, ok, slot)) return;
        break;
    }
    if (s.kind != StepKind::signal || s.take) {
      ended += gridDim.x;
      if (!barrier(p, ended, ok)) return;
    }
    if (s.kind == StepKind::signal && !finish_signal(p, s, ok)) return;
  }
}

}  // namespace

// What a wait that timed out, or a message of the wrong size, says: thrown
// by the sync that finds it.
void check_signals() {
  if (!g_error || g_error->code == 0) return;
  const SignalError e = *g_error;
  g_error->code = 0;
  // Blocks that stopped early never reached their barriers: the count
  // starts again (the stream is idle: this runs after a sync).
  warn(cudaMemset(g_barrier, 0, sizeof(uint64_t)), "cudaMemset");
  g_barrier_at = 0;
  if (e.code == 3) throw OtherRankFailed{};
  if (e.code == 2)
    throw std::runtime_error("rank " + std::to_string(e.rank) + " expected " +
                             std::to_string(e.want) + " bytes from rank " +
                             std::to_string(e.wait.peer) + ", got " + std::to_string(e.got));
  throw std::runtime_error(describe_wait(e.rank, e.wait, g_deadline_s) +
                           " (device-side signalling)");
}

namespace {

// The kernels' view of the ranks' `failed` word (host memory every rank
// maps: the direct transport's control block), its page registered once;
// null where it cannot be, and the kernels then stop on their budgets alone.
// One control block per process (one transport, for the program's life); a
// new one is registered in its place.
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

// The step in the kernel's form, its lists appended to k's; false (k as it
// was) where it does not fit.
bool add_step(KernelProgram& k, const Program& program, const ProgramStep& s) {
  if (k.steps == kProgramSteps) return false;
  KernelStep& out = k.step[k.steps];
  out = KernelStep{};
  out.kind = s.kind, out.onto = s.onto, out.count = s.count;
  out.dst = static_cast<char*>(s.dst);
  out.a = static_cast<const char*>(s.a), out.b = static_cast<const char*>(s.b);
  if (s.kind == StepKind::reduce_many) {
    if (k.terms + int(s.n) > kProgramTerms) return false;
    out.first_term = uint32_t(k.terms), out.terms = s.n;
    for (uint32_t i = 0; i < s.n; ++i) k.term[k.terms++] = program.term(s.first + i);
  }
  if (s.kind == StepKind::signal) {
    const SignalOp& op = program.signal_of(s);
    if (k.waits + op.waits > kProgramWaits || k.writes + op.writes > kProgramWrites) return false;
    out.post = op.post, out.take = op.take, out.reduce = op.reduce;
    out.room = op.room, out.slot = op.slot, out.where = op.where, out.posted = op.posted;
    out.arrived = op.arrived, out.from_slot = op.from_slot, out.taken = op.taken;
    out.dst = op.dst, out.a = op.mine, out.b = op.peer_base, out.count = op.bytes;
    out.first_wait = uint32_t(k.waits), out.waits = uint16_t(op.waits);
    out.first_write = uint32_t(k.writes), out.writes = uint16_t(op.writes);
    for (int i = 0; i < op.waits; ++i) k.wait[k.waits++] = op.wait[i];
    for (int i = 0; i < op.writes; ++i) k.write[k.writes++] = op.write[i];
  }
  ++k.steps;
  return true;
}

// Whether the step reduces (with its dtype and op).
bool reduces(const Program& p, const ProgramStep& s) {
  if (s.kind == StepKind::signal) return p.signal_of(s).take && p.signal_of(s).reduce;
  return s.kind == StepKind::reduce || s.kind == StepKind::reduce_many;
}

void launch(const KernelProgram& k, DType t, Op op, unsigned blocks) {
  visit_dtype(t, [&](auto x) {
    using T = decltype(x);
    visit_op(op, [&](auto o) {
      program_kernel<T, decltype(o)::value><<<blocks, kThreads, 0, g_stream>>>(k);
    });
  });
  ++g_launches;
  check(cudaGetLastError(), "device program kernel");
}

}  // namespace

// Every program kernel loaded now: CUDA 12.2 on loads a kernel at its
// first launch, and a load while another rank's program spins on this
// one's flags would stall both (a program waits for its peers for the
// whole call). A kernel's attributes are read only once it is loaded.
// Also how many of its blocks a multiprocessor holds at once, the fewest of
// any instantiation, at most 2: what launch_program may count on.
void load_programs() {
  int fewest = 2;
  for (DType t : all_dtypes())
    visit_dtype(t, [&](auto x) {
      using T = decltype(x);
      for (Op op : {Op::sum, Op::prod, Op::max, Op::min})
        visit_op(op, [&](auto o) {
          auto* kernel = &program_kernel<T, decltype(o)::value>;
          cudaFuncAttributes attributes{};
          check(cudaFuncGetAttributes(&attributes, kernel), "loading the device program's kernels");
          int resident = 0;
          check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, kernel, kThreads, 0),
                "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
          fewest = std::min(fewest, resident);
        });
    });
  if (fewest < 1) throw std::runtime_error("the device program's kernel cannot run on this GPU");
  g_resident_per_sm = fewest;
}

// The program's rank, the ranks' failed word and each wait's budget, from
// its first signal op (every op of a transport says the same), into k.
void who_runs(KernelProgram& k, const Program& program) {
  k.budget_ns = uint64_t(60e9), k.err = g_error_device, k.barrier = g_barrier;
  for (const ProgramStep& s : program.steps()) {
    if (s.kind != StepKind::signal) continue;
    const SignalOp& op = program.signal_of(s);
    k.rank = op.rank, k.failed = device_view(op.failed);
    k.budget_ns = uint64_t(op.deadline_s * 1e9), g_deadline_s = op.deadline_s;
    return;
  }
}

// The gathered program, as few kernels as its size allows (one, but for a
// program past the parameters' room, or with two kinds of reduction).
void launch_program() {
  if (g_program.empty()) return;
  if (!g_error) {
    check(cudaHostAlloc(&g_error, sizeof(SignalError), cudaHostAllocMapped), "cudaHostAlloc");
    *g_error = SignalError{};
    check(cudaHostGetDevicePointer(&g_error_device, g_error, 0), "cudaHostGetDevicePointer");
    check(cudaMalloc(&g_barrier, sizeof(uint64_t)), "cudaMalloc");
    check(cudaMemsetAsync(g_barrier, 0, sizeof(uint64_t), g_stream), "cudaMemsetAsync");
  }
  const Program program = std::move(g_program);
  g_program.clear();
  static KernelProgram k;  // 26 KiB: not on the stack
  who_runs(k, program);
  // A share of the GPU's blocks small enough that every sharing rank's
  // kernel is resident at once: a waiting block must never keep out the one
  // it waits for.
  const unsigned most = std::max(1, g_resident_per_sm * g_multiprocessors / g_ranks_sharing);
  const std::vector<ProgramStep>& steps = program.steps();
  for (size_t i = 0; i < steps.size();) {
    k.steps = k.waits = k.writes = k.terms = 0;
    k.barrier_at = g_barrier_at;
    const ProgramStep* reduction = nullptr;
    size_t largest_B = 0, barriers = 0;
    for (; i < steps.size(); ++i) {
      const ProgramStep& s = steps[i];
      if (reduces(program, s) && reduction &&
          (s.dtype != reduction->dtype || s.op != reduction->op))
        break;
      if (!add_step(k, program, s)) break;
      if (reduces(program, s) && !reduction) reduction = &s;
      const KernelStep& added = k.step[k.steps - 1];
      if (s.kind != StepKind::signal || added.take) ++barriers;
      largest_B = std::max<size_t>(largest_B, s.kind == StepKind::copy || s.kind == StepKind::signal
                                                  ? added.count
                                                  : added.count * element_size(s.dtype));
    }
    if (k.steps == 0) throw std::logic_error("a device program's step does not fit a kernel");
    const unsigned blocks = std::min<unsigned>(most, blocks_for(largest_B / 16 + 1));
    launch(k, reduction ? reduction->dtype : DType::int32, reduction ? reduction->op : Op::sum,
           blocks);
    g_barrier_at += barriers * blocks;
  }
}

}  // namespace detail

Program& program() { return detail::g_program; }

void share_with(int ranks_on_this_gpu) { detail::g_ranks_sharing = std::max(1, ranks_on_this_gpu); }

}  // namespace commlab::gpu
