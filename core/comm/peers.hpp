// What a transport that maps peers' memory (direct_transport.hpp) offers the
// algorithms that need it (one_shot, two_shot): where a peer's copy of one of
// this rank's registered buffers is, reads from it, and a fence. Comm wraps
// these so that every read is counted and labelled like a message.
#pragma once
#include <cstddef>
#include <cstdint>

#include "core/device/reduce.hpp"

namespace commlab {

// The bytes a rank moved through peers' memory: read from it, written into it.
struct PeerBytes {
  uint64_t read_B = 0, written_B = 0;
};

class Peers {
 public:
  virtual ~Peers() = default;
  // This rank's registered region: every buffer another rank reads lives in it.
  virtual char* region() const = 0;
  virtual size_t region_bytes() const = 0;
  // Collective: every rank's region at least `bytes` (all ask the same).
  virtual void reserve(size_t bytes) = 0;
  // The same place as `mine` (in this rank's region) in rank's region.
  virtual const char* at(int rank, const void* mine) const = 0;
  // dst := bytes at `theirs` (in rank from's region); acc (op)= count elements there.
  virtual void read(int from, const void* theirs, void* dst, size_t bytes) = 0;
  virtual void read_reduce(int from, const void* theirs, void* acc, size_t count,
                           const Reduction& red) = 0;
  // dst := a (op) b in one pass, a in rank a_from's region and b in b_from's
  // (either may be this rank's own).
  virtual void read_reduce_to(int a_from, const void* a, int b_from, const void* b, void* dst,
                              size_t count, const Reduction& red) = 0;
  // dst := terms[0] (op) terms[1] (op) ... terms[P-1] in one pass, terms[q]
  // in rank q's region (this rank's own among them): one_shot's sum.
  virtual void read_reduce_all(const void* const* terms, void* dst, size_t count,
                               const Reduction& red) = 0;
  // Returns once every rank has called it as often: what each wrote to its
  // own region before is then visible to all, and nobody still reads what
  // came before.
  virtual void fence() = 0;
};

}  // namespace commlab
