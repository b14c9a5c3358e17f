// Direct access with host-side signalling (direct_transport.hpp): the lanes
// and fences of the control block, written and polled by the host. On the
// GPU the host waits for the stream before it signals, once per step.
#pragma once
#include <cstdint>
#include <deque>
#include <vector>

#include "direct_transport.hpp"

namespace commlab {

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
