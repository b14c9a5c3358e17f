// Device-side signalling for the direct transport (direct_transport.hpp,
// docs/direct.md): where every rank's kernels run at once (MPS, or a GPU per
// rank), a message costs one launch and no host round trip. The flags are
// counters in a signal pad every rank maps, each in its own 128-byte line,
// laid out as the inboxes of NCCL's symmetric kernels and vLLM's custom
// all-reduce: a rank writes into the peer's pad and polls its own.
//
//   pad of rank r      written by       counts
//   posted[q]          q                messages q has posted to r
//   slots[q][n % 16]   q                where q's message n lies: offset, bytes
//   taken[q]           q                messages of r's that q has read
//   fence[q]           q                fences q has reached
//
// Counters only grow (the host knows every value it waits for: the n-th
// message of a lane, the k-th fence), so nothing is ever reset. A SignalOp
// is what one launch does, in this order: wait for a free slot and post a
// message into the receiver's pad; raise counters in peers' pads (a fence);
// take a message (wait until posted, read where it lies, copy it or reduce
// it into this rank's buffer, then count it taken in the sender's pad); and
// wait for counters in its own pad (its sends taken, every rank at the fence).
// Stores that publish are releases at system scope, polls are acquires.
// Every wait has a deadline: past it the op stops and says which rank waited
// for what, instead of hanging.
//
// On the GPU the ops of a call are the steps of one device program
// (program.hpp), one kernel. Three executors, one meaning: that kernel
// (device_cuda.cu), the host (run_signal_op below: the in-process tests'
// ranks as threads, and the emulated GPU's stream).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/vocabulary/types.hpp"

namespace commlab {

constexpr uint64_t kSignalSlots = 16;  // messages in flight from one rank to another
constexpr int kMaxSignalWaits = 64;    // counters one op raises or waits for

struct alignas(128) SignalLine {
  uint64_t value;
};
struct SignalSlot {
  uint64_t offset, bytes;
};

// The pad's layout for P ranks, at `base` (any rank's pad: the same layout).
struct SignalPad {
  char* base;
  int P;
  static size_t bytes(int P) {
    return 3 * size_t(P) * sizeof(SignalLine) + size_t(P) * kSignalSlots * sizeof(SignalSlot);
  }
  uint64_t* posted(int q) const { return &line(q)->value; }
  uint64_t* taken(int q) const { return &line(P + q)->value; }
  uint64_t* fence(int q) const { return &line(2 * P + q)->value; }
  SignalSlot* slot(int q, uint64_t n) const {
    auto* slots = reinterpret_cast<SignalSlot*>(line(3 * P));
    return slots + size_t(q) * kSignalSlots + n % kSignalSlots;
  }

 private:
  SignalLine* line(int i) const { return reinterpret_cast<SignalLine*>(base) + i; }
};

// What a wait waits for, to say so when it times out.
// `blocks`: a device program's blocks, at the barrier that ends a step.
enum class Awaited : int { room, posted, taken, fence, blocks };
struct SignalWait {
  const uint64_t* flag = nullptr;
  uint64_t at_least = 0;
  int peer = -1;
  Awaited what = Awaited::posted;
};
struct SignalWrite {
  uint64_t* flag = nullptr;
  uint64_t value = 0;
};

struct SignalOp {
  int rank = 0;            // whose op, for the message of a timeout
  double deadline_s = 60;  // each wait's
  // Non-zero once a rank failed: every executor's waits stop on it, and a
  // device op that fails raises it (device_cuda.cu).
  uint64_t* failed = nullptr;
  // 1. A message: once its slot is free (room), the slot written and posted raised.
  bool post = false;
  SignalWait room;
  SignalSlot* slot = nullptr;
  SignalSlot where{};
  SignalWrite posted;
  // 2. Counters raised in peers' pads (a fence's announcements).
  int writes = 0;
  SignalWrite write[kMaxSignalWaits];
  // 3. A message taken: once posted (arrived), the bytes its slot names at
  //    peer_base + offset copied to dst, or reduced into it (dst (op)= them);
  //    then taken raised in the sender's pad (on the GPU once every block
  //    of the kernel has moved its share).
  bool take = false;
  SignalWait arrived;
  const SignalSlot* from_slot = nullptr;
  const char* peer_base = nullptr;
  char* dst = nullptr;
  const char* mine = nullptr;  // reducing: dst := mine (op) them; null: dst (op)= them
  uint64_t bytes = 0;          // what this rank expects: the slot must say as much
  bool reduce = false;
  DType dtype = DType::float32;
  Op op = Op::sum;
  SignalWrite taken;
  // 4. Counters in its own pad waited for (its sends taken, a fence).
  int waits = 0;
  SignalWait wait[kMaxSignalWaits];
};

// What a timed-out wait says: "rank 2 waited 60 s for rank 1 to post its
// message 3 (the schedule deadlocks, or rank 1 failed)".
std::string describe_wait(int rank, const SignalWait& w, double seconds);

// The op, on the host: every wait spins, then yields, and throws Timeout
// (transport.hpp) past the deadline, or OtherRankFailed once op.failed reads
// non-zero. Bytes move by memcpy or the reduction on the host. The emulated
// GPU's stream runs its ops with this.
void run_signal_op(const SignalOp& op);

}  // namespace commlab
