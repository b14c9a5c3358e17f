// Ring all-reduce: the bandwidth-optimal one. The buffer is cut into P chunks
// and every rank talks only to its neighbours, left (r-1) and right (r+1).
//
//   reduce-scatter, steps s = 0 .. P-2:
//     rank r sends chunk (r-s) mod P to the right, receives chunk (r-s-1) mod P
//     from the left and adds it into its own copy of that chunk.
//     After it, rank r holds chunk (r+1) mod P reduced over every rank.
//   all-gather, steps s = 0 .. P-2 (numbered P-1 .. 2P-3):
//     rank r sends chunk (r+1-s) mod P to the right, receives chunk (r-s) mod P
//     from the left and stores it.
//
// Every rank sends 2(P-1) chunks, 2(P-1)/P of the buffer, whatever P is.
// Send and receive go together (sendrecv), so no size can deadlock the ring.
#include "allreduce.hpp"
#include "core/partition.hpp"

namespace commlab {

void allreduce_ring(const AllreduceJob& job) {
  Comm& comm = job.comm;
  const int P = comm.size(), me = comm.rank();
  const int right = (me + 1) % P, left = (me - 1 + P) % P;
  const size_t esize = job.red.esize();
  const Partition chunks{job.count, P};
  auto* data = static_cast<char*>(job.data);
  auto at = [&](int c) { return data + chunks.offset(c) * esize; };
  auto bytes = [&](int c) { return chunks.size(c) * esize; };
  auto mod = [P](int x) { return ((x % P) + P) % P; };
  void* incoming = job.mem.scratch(chunks.largest() * esize);

  for (int s = 0; s < P - 1; ++s) {
    int send = mod(me - s), recv = mod(me - s - 1);
    comm.sendrecv_reduce(right, at(send), bytes(send), left, incoming, at(recv), bytes(recv),
                         job.red, {s, send});
  }
  for (int s = 0; s < P - 1; ++s) {
    int send = mod(me + 1 - s), recv = mod(me - s);
    comm.sendrecv(right, at(send), bytes(send), left, at(recv), bytes(recv), {P - 1 + s, send});
  }
}

Traffic model_ring(int P, size_t count, size_t esize) {
  const Partition chunks{count, P};
  Traffic t;
  if (P == 1) return t;
  // Rank r sends every chunk but (r+1) in reduce-scatter and every chunk but
  // (r+2) in all-gather, and receives exactly what its left neighbour sends.
  for (int r = 0; r < P; ++r) {
    uint64_t sent = (2 * count - chunks.size((r + 1) % P) - chunks.size((r + 2) % P)) * esize;
    t.sent_max_rank_B = std::max(t.sent_max_rank_B, sent);
    t.sent_total_B += sent;
  }
  t.recv_max_rank_B = t.sent_max_rank_B;
  t.msgs_total = 2 * uint64_t(P) * (P - 1);
  t.steps = 2 * uint64_t(P - 1);
  t.critical_path_B = 2 * uint64_t(P - 1) * chunks.largest() * esize;
  return t;
}

}  // namespace commlab
