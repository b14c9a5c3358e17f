// Direct access with host-side signalling (direct_transport.hpp): the lanes
// and fences of the control block, written and polled by the host. On the
// GPU the host waits for the stream before it signals, once per step.
#pragma once
#include <atomic>
#include <cstdint>
#include <deque>
#include <vector>

#include "direct_transport.hpp"

namespace commlab {

constexpr size_t kLine = 64;  // a cache line: counters written by different ranks never share one

struct alignas(kLine) Counter {
  std::atomic<uint64_t> value{0};
};

// Messages from one rank to another, in order: the sender fills slot n mod
// kSignalSlots and then counts it posted; the receiver reads and counts it taken.
struct Lane {
  Counter posted, taken;
  SignalSlot slots[kSignalSlots];
};

// The control block: whether a rank failed, each rank's fences, then P x P lanes.
struct Control {
  Counter failed;
  Counter* fences() { return reinterpret_cast<Counter*>(this + 1); }
  Lane* lanes(int P) { return reinterpret_cast<Lane*>(fences() + P); }
};
static_assert(sizeof(Control) == kLine && sizeof(Lane) % kLine == 0);

inline Control& control_of(const Regions& r) { return *static_cast<Control*>(r.control()); }

class HostSignalled final : public DirectTransport {
 public:
  HostSignalled(Transport& control, Regions& regions, Memory& mem,
                std::chrono::milliseconds timeout);

  void exchange(int to, const void* s, size_t sbytes, int from, void* r, size_t rbytes,
                const Fold* fold) override;
  void isend(int to, const void* buf, size_t bytes) override;
  void irecv(int from, void* buf, size_t bytes) override;
  void wait_sends() override;
  void wait_all() override;
  int probe_any() override;
  void fence() override;

 private:
  struct Recv {  // an irecv, or a blocking receive, not yet filled
    char* buf;
    size_t bytes;
    std::optional<Fold> fold;  // reduced straight from the sender's memory into fold->acc
  };
  struct Send {  // a message waiting for a free slot in its lane
    int to;
    size_t offset, bytes;
  };
  uint64_t post(int to, const void* buf, size_t bytes);  // its number in the lane
  void progress();  // posts what waits for a slot; reads what has arrived
  void read_one(int from, const SignalSlot& slot);
  template <class Done, class What>
  void wait(Done done, What what);

  std::vector<std::deque<Recv>> recvs_;           // per sender, in posting order
  std::deque<Send> waiting_;                      // lanes full: posted as slots free
  std::vector<uint64_t> sent_;                    // messages this rank posted to each rank
  std::vector<std::pair<int, uint64_t>> isends_;  // (to, number) until wait_sends
  uint64_t fences_ = 0;
};

}  // namespace commlab
