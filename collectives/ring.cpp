// The ring's two halves, written once: the reduce-scatter ring, the all-gather
// ring and the ring all-reduce are built from them, with one chunk numbering
// (struct Ring). The buffer is cut into P chunks (Partition); rank r talks
// only to r+1 (its right) and r-1 (its left).
//
// Reduce-scatter, steps s = 0 .. P-2: rank r sends chunk (r-s-1) mod P and
// folds chunk (r-s-2) mod P, arriving from its left, into its own. With P = 4
// ranks holding a, b, c, d, the chunk each rank folds at each step:
//
//            rank 0        rank 1        rank 2        rank 3
//   s = 0    2: a+d        3: a+b        0: b+c        1: c+d
//   s = 1    1: a+c+d      2: a+b+d      3: a+b+c      0: b+c+d
//   s = 2    0: a+b+c+d    1: a+b+c+d    2: a+b+c+d    3: a+b+c+d
//
// so rank r ends with chunk r reduced over every rank. All-gather, steps
// s = 0 .. P-2: rank r sends chunk (r-s) mod P and stores chunk (r-s-1) mod P
// from its left; the complete chunks each rank gains:
//
//   s = 0    3             0             1             2
//   s = 1    2             3             0             1
//   s = 2    1             2             3             0
//
// Each half is P-1 steps in which every rank sends the whole buffer but one
// chunk. With
// count < P some chunks are empty: they still travel, as zero-byte messages,
// so every step keeps its shape.
#include <algorithm>

#include "algorithms.hpp"

namespace commlab {

int Ring::position_of(int rank) const {
  if (ranks.empty()) return rank;
  return int(std::find(ranks.begin(), ranks.end(), rank) - ranks.begin());
}

void ring_reduce_scatter(Comm& comm, const Ring& ring, const Chunks& work, const Reduction& red,
                         Memory& mem, int first_step) {
  const int me = ring.position_of(comm.rank());
  comm.begin_phase(Phase::reduce_scatter);
  void* incoming = mem.scratch(work.largest_B());
  for (int s = 0; s < ring.P - 1; ++s) {
    const int send = ring.reduce_scatter_sends(me, s),
              recv = ring.reduce_scatter_sends(ring.left(me), s);
    comm.sendrecv_reduce(ring.rank_at(ring.right(me)), work.at(send), work.bytes(send),
                         ring.rank_at(ring.left(me)), incoming, work.at(recv), work.bytes(recv),
                         red, {first_step + s, send});
  }
}

void ring_allgather(Comm& comm, const Ring& ring, const Chunks& buffer, int first_step) {
  const int me = ring.position_of(comm.rank());
  comm.begin_phase(Phase::all_gather);
  for (int s = 0; s < ring.P - 1; ++s) {
    const int send = ring.allgather_sends(me, s), recv = ring.allgather_sends(ring.left(me), s);
    comm.sendrecv(ring.rank_at(ring.right(me)), buffer.at(send), buffer.bytes(send),
                  ring.rank_at(ring.left(me)), buffer.at(recv), buffer.bytes(recv),
                  {first_step + s, send});
  }
}

void tally_ring_reduce_scatter(Tally& t, const Ring& ring, const Partition& parts, size_t esize,
                               int first_step) {
  for (int s = 0; s < ring.P - 1; ++s)
    for (int r = 0; r < ring.P; ++r)
      t.message(first_step + s, ring.rank_at(r), ring.rank_at(ring.right(r)),
                parts.size(ring.reduce_scatter_sends(r, s)) * esize, Arrival::reduced);
}

void tally_ring_allgather(Tally& t, const Ring& ring, const Partition& parts, size_t esize,
                          int first_step) {
  for (int s = 0; s < ring.P - 1; ++s)
    for (int r = 0; r < ring.P; ++r)
      t.message(first_step + s, ring.rank_at(r), ring.rank_at(ring.right(r)),
                parts.size(ring.allgather_sends(r, s)) * esize);
}

}  // namespace commlab
