// The direct transport's side of a hand-written case (--transport direct,
// docs/direct.md), built here and nowhere else. Peers find a buffer at the
// same offset of every rank's registered region, so the cases run on
// registered buffers:
// - private buffers (the default): the user's input is copied into the
//   registered one and the result out of it inside the timed call, as a
//   library on private memory pays for it. An algorithm that reads peers'
//   memory is handed the user's buffers and copies what its peers read
//   itself, as vLLM's does: it runs as on any transport.
// - --registered: the result is the registered buffer itself, and the input
//   is put in place before each run (untimed).
#pragma once
#include <functional>
#include <vector>

#include "buffer.hpp"
#include "core/device/memory.hpp"
#include "operations/predicted.hpp"
#include "runner.hpp"

namespace commlab {

class DirectCase {
 public:
  // A call of the algorithm from one buffer into another.
  using Job = std::function<void(const void* from, void* to)>;

  // The buffers of `layout`, registered (collective: every rank asks the same).
  DirectCase(Runner& runner, const RegionLayout& layout, bool registered_flag);

  // Where the hand-written results go: the registered buffer itself
  // (--registered), or a private one.
  Buffer result(DType dtype, size_t count, Device device) const;
  // Whether a case runs on the registered buffers: all but an algorithm
  // that reads peers' memory on private buffers.
  bool runs_registered(bool reads_peers) const { return registered_ || !reads_peers; }
  // Makes c run `job` on them: c.run, c.prepare and c.watched.
  void wire(Case& c, const Job& job, const Buffer& input, Buffer& out, bool in_place,
            Memory& mem) const;
  // What the time model adds for the private copies: the input in, and the
  // result out for an algorithm that sends from registered memory, each
  // priced as a copy (CostModel::copy_us: every rank's at once).
  void price_copies(std::vector<Predicted>& predicted, const Operation& op, const CostModel& cost,
                    double bytes) const;
  // What a row says of its buffers.
  Buffers buffers() const { return registered_ ? Buffers::registered : Buffers::user; }

 private:
  void wire_registered(Case& c, const Job& job, const Buffer& input, bool in_place,
                       Memory& mem) const;
  void wire_private(Case& c, const Job& job, const Buffer& input, Buffer& out, bool in_place,
                    Memory& mem) const;

  Runner::Registered reg_;
  bool registered_;
  int P_;
};

}  // namespace commlab
