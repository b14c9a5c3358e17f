// Direct access with device-side signalling (direct_transport.hpp,
// signals.hpp): each message, fence or wait is one SignalOp queued on the
// rank's Memory, which posts, waits and signals on its own; on the GPU the
// ops of a call and the copies and reductions between them are one device
// program (program.hpp), one kernel; the host waits only at the call's end. The
// counters' values are known here: the n-th message of a lane, the k-th
// fence, so nothing is read back.
#pragma once
#include <cstdint>
#include <vector>

#include "direct_transport.hpp"

namespace commlab {

class DeviceSignalled final : public DirectTransport {
 public:
  DeviceSignalled(Transport& control, Regions& regions, Memory& mem,
                  std::chrono::milliseconds timeout);
  ~DeviceSignalled() override { mem_.gather_programs(false); }

  void exchange(int to, const void* s, size_t sbytes, int from, void* r, size_t rbytes,
                const Fold* fold) override;
  void isend(int to, const void* buf, size_t bytes) override;
  void irecv(int from, void* buf, size_t bytes) override;
  void wait_sends() override;
  void wait_all() override;
  // Which peer posted cannot be known without reading the pad back: the
  // programs that ask (ps_sim's parameter server) do not run over direct.
  int probe_any() override;
  void fence() override;

 private:
  SignalPad pad(int rank) const { return {regions_.pad(rank), P_}; }
  SignalOp blank() const;
  // Into `op`: post the next message to `to`; take the next one from `from`
  // into dst (reduced into it, or copied); wait for this rank's message
  // number `n` to `to` to be taken.
  void post(SignalOp& op, int to, const void* buf, size_t bytes);
  void take(SignalOp& op, int from, char* dst, size_t bytes, const Fold* fold);
  static void wait_taken(SignalOp& op, const SignalPad& mine, int to, uint64_t n);

  struct Recv {  // an irecv, not yet taken
    int from;
    char* buf;
    size_t bytes;
  };
  std::vector<uint64_t> sent_, taken_from_;       // messages posted to, taken from each rank
  std::vector<std::pair<int, uint64_t>> isends_;  // (to, number) until wait_sends
  std::vector<Recv> irecvs_;                      // until wait_all
  uint64_t fences_ = 0;
  void queue(SignalOp& op) { mem_.signal(op); }
};

}  // namespace commlab
