// The GPU, as the harness uses it: memory, copies, the reduction kernels and
// one stream everything is queued on. Built from device_cuda.cu when CUDA is;
// otherwise device_host.cpp refuses -d cuda with the reason.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/vocabulary/types.hpp"
#include "program.hpp"

namespace commlab::gpu {

// Why -d cuda cannot run here, or "" when it can.
std::string unavailable_reason();

// Makes GPU (local_rank mod GPUs on this node) this process's device and
// creates its stream. Returns the number of GPUs on the node.
int select(int local_rank);
// The GPUs on this node and the memory of the smallest, asked without
// opening a context on any (before select()).
struct Inventory {
  int gpus = 0;
  size_t smallest_B = 0;
  // Each GPU's PCI address ("0000:1b:00.0"), in device order: what tells two
  // processes apart that each see their GPU as device 0 (CUDA_VISIBLE_DEVICES
  // per rank, as Slurm's --gpus-per-task sets it).
  std::vector<std::string> bus_ids;
};
Inventory inventory();
// The PCI address of this process's GPU (after select()).
std::string bus_id();

// "NVIDIA H100 80GB HBM3, driver 13.0, runtime 13.0": what a results folder records.
std::string describe();
// The emulated GPU of the tests (tests/support/emulated_gpu.cpp): every
// process's kernels run when it waits for them, so all ranks' run at once.
bool emulated();
// Whether this process's context is shared through MPS, as the device says
// (cudaDevAttrMpsEnabled, once the context exists after select()): a pipe
// left by a daemon that died is not MPS. The emulated GPU: yes.
bool mps_enabled();

void* alloc(size_t bytes);  // device memory, never null (even for 0 bytes)
void release(void* p);
void* alloc_pinned(size_t bytes);  // page-locked host memory, for staging
void release_pinned(void* p);

// Device memory other processes on this node map (CUDA IPC, for the direct
// transport): its handle travels to them as bytes; open_shared() throws
// with the reason where this GPU cannot map that memory.
struct IpcHandle {
  unsigned char bytes[64];  // a cudaIpcMemHandle_t
};
void* alloc_shared(size_t bytes, IpcHandle& handle);
void release_shared(void* p);
void* open_shared(const IpcHandle& handle);
void close_shared(void* p);

// Queued on the stream, in order: later work sees their results. Each is
// one launch (one copy, or one kernel, whatever the alignment), after the
// program gathered so far (program()).
void copy(void* dst, const void* src, size_t bytes);                   // any direction
void reduce(DType t, Op op, void* acc, const void* in, size_t count);  // acc[i] = acc[i] op in[i]
// dst[i] = a[i] op b[i], one pass; dst may be a or b.
void reduce_to(DType t, Op op, void* dst, const void* a, const void* b, size_t count);
// dst[i] = terms[0][i] op terms[1][i] op ..., one pass (one launch per 32 terms).
void reduce_many(DType t, Op op, void* dst, const void* const* terms, int n, size_t count);
// The device program being gathered (program.hpp): a direct transport's
// messages and fences (flags written and polled by the kernel, signals.hpp),
// and the copies and reductions its Memory adds beside them. Launched as
// one kernel before any call here queues or waits for anything else. A wait
// that times out stops the kernel and is reported by the next sync, as one
// line naming the rank and what it waited for.
Program& program();
// How many ranks' kernels share this GPU: a program takes a share of its
// blocks small enough that all of theirs are resident at once.
void share_with(int ranks_on_this_gpu);
void sync();  // until everything queued has finished

// What this process asked of the GPU so far: launches (copies and kernels)
// and host waits (syncs, events, compares): what the direct transport's
// rows count per call (docs/direct.md).
struct Activity {
  uint64_t launches = 0, host_waits = 0;
};
Activity activity();

// The same, for at most `seconds`: false if the work has not finished by
// then (a peer read over a broken PCIe path can stall for ever).
bool sync_within(double seconds);

// Staging: an event marks a point in the stream, so a pinned buffer is reused
// only once the copy that reads or fills it is done.
using Event = void*;
Event event_create();
void event_record(Event e);
void event_wait(Event e);  // the host blocks until the stream passed e
void event_destroy(Event e);

// Elements of `got` differing from `want` (both on the GPU), and the first index of one.
struct Difference {
  uint64_t count = 0;
  size_t first = 0;
};
Difference compare(DType t, const void* got, const void* want, size_t count);

// Bandwidths in GB/s (bytes read + written per second), each the best of `repeats`:
// a device-to-device copy, and the sum kernel (reads two arrays, writes one).
struct Bandwidth {
  double copy_GBps, reduce_GBps;
};
Bandwidth measure_bandwidth(size_t bytes, int repeats);

// The stream everything above is queued on, for NCCL (a cudaStream_t).
void* stream();

}  // namespace commlab::gpu
