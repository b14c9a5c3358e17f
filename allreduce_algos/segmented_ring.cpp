// Segmented ring all-reduce: the ring (ring.cpp), with each reduce-scatter
// step's chunk cut into segments, so that one segment is reduced while the
// next is on the wire. The plain ring waits for the whole chunk, then
// reduces it; here only the last segment's reduction is left in the open.
// This is the pipelining of Patarasuk and Yuan 2009 and of NCCL's ring
// kernels, within each step. The segment is --segment bytes; by default the
// size the time model predicts fastest for a chunk (time_model.hpp): many
// segments where this machine overlaps reduction with transfer, or where a
// chunk no longer fits in cache; one where neither holds.
//
//   reduce-scatter, steps s = 0 .. P-2 (the ring's chunks), in k segments:
//     post segment 0 (send and receive)
//     for j = 0 .. k-1: wait for segment j; post segment j+1; reduce segment j
//   all-gather, steps P-1 .. 2P-3: the ring's, whole chunks (nothing to reduce)
//
// P = 3, N = 6 elements (chunks of 2), segments of 1 element; rank 0's first step:
//
//   posted      then waits for    then posts        while it reduces
//   seg 0       seg 0 of chunk 1  seg 1 of chunk 1  seg 0 of chunk 1
//               seg 1 of chunk 1  -                 seg 1 of chunk 1
//
// Bytes are the ring's: 2(P-1)/P x N per rank. Messages are k per chunk
// instead of one (an empty chunk, count < P, is one empty message, as in the
// ring). Chunks of one step may differ by an element, so a rank may send k
// segments and receive k' of them.
#include "segmented_ring.hpp"

#include <algorithm>

#include "collectives/algorithm.hpp"
#include "core/comm/time_model.hpp"

namespace commlab {

namespace {

struct Segments {
  size_t per;  // elements in each segment but the last
  Segments(size_t segment_B, size_t esize)
      : per(segment_B ? std::max<size_t>(1, segment_B / esize) : SIZE_MAX) {}
  size_t in(size_t n) const { return n == 0 ? 1 : (n - 1) / per + 1; }  // segments of n elements
  size_t first(size_t j) const { return j * per; }
  size_t size(size_t n, size_t j) const { return std::min(per, n - std::min(n, first(j))); }
};

// One reduce-scatter step: chunk `send` out to the right, chunk `fold` in from the left.
void pipelined_step(const CollectiveJob& job, const Chunks& work, const Segments& seg, int send,
                    int fold, int step, char* incoming) {
  Comm& comm = job.comm;
  const Ring ring(comm.size());
  const size_t n_send = work.parts.size(send), n_fold = work.parts.size(fold), es = work.esize;
  const size_t k_send = seg.in(n_send), k_fold = seg.in(n_fold);
  auto post = [&](size_t j) {
    if (j < k_fold)
      comm.irecv(ring.left(comm.rank()), incoming + seg.first(j) * es, seg.size(n_fold, j) * es,
                 {step, fold});
    if (j < k_send)
      comm.isend(ring.right(comm.rank()), work.at(send) + seg.first(j) * es,
                 seg.size(n_send, j) * es, {step, send});
    comm.round_posted();  // the segment's reduction runs while these travel
  };
  post(0);
  for (size_t j = 0; j < std::max(k_send, k_fold); ++j) {
    comm.wait_all();
    post(j + 1);
    if (j < k_fold)
      job.mem.reduce(job.red, work.at(fold) + seg.first(j) * es, incoming + seg.first(j) * es,
                     seg.size(n_fold, j));
  }
  comm.wait_all();
}

void allreduce_segmented_ring(const CollectiveJob& job) {
  const Chunks work{allreduce_buffer(job), job.parts(), job.esize()};
  const Segments seg(job.segment_B, job.esize());
  const Ring ring(job.comm.size());
  const int me = job.comm.rank();
  char* incoming = static_cast<char*>(job.mem.scratch(work.largest_B()));
  job.comm.begin_phase(Phase::reduce_scatter);
  for (int s = 0; s < ring.P - 1; ++s)
    pipelined_step(job, work, seg, ring.reduce_scatter_sends(me, s),
                   ring.reduce_scatter_sends(ring.left(me), s), s, incoming);
  ring_allgather(job.comm, ring, work, ring.P - 1);
}

// A chunk of n elements from `from` to `to` at `step`, in segments; the last
// segment's reduction is not hidden.
void tally_chunk(Tally& t, int step, int from, int to, size_t n, const Segments& seg,
                 size_t esize) {
  const size_t k = seg.in(n);
  for (size_t j = 0; j < k; ++j)
    t.message(step, from, to, seg.size(n, j) * esize,
              j + 1 == k ? Arrival::reduced : Arrival::reduced_in_flight);
}

Traffic model_allreduce_segmented_ring(const JobShape& s) {
  const Ring ring(s.P);
  const Partition parts{s.count, s.P};
  const Segments seg(s.segment_B, s.esize);
  Tally t(s.P);
  for (int step = 0; step < s.P - 1; ++step)
    for (int r = 0; r < s.P; ++r)
      tally_chunk(t, step, r, ring.right(r), parts.size(ring.reduce_scatter_sends(r, step)), seg,
                  s.esize);
  tally_ring_allgather(t, ring, parts, s.esize, s.P - 1);
  return t.traffic();
}

}  // namespace

size_t best_segment_B(const CostModel& m, size_t chunk_B, size_t esize) {
  const size_t n = chunk_B / esize;
  size_t best = chunk_B;
  double best_us = 0;
  for (size_t k = 1; k <= n && k <= (size_t{1} << 16); k *= 2) {
    const size_t segment_B = n / k * esize;
    Tally t(2);  // one step of the ring, as the model above replays it
    tally_chunk(t, 0, 0, 1, n, Segments(segment_B, esize), esize);
    const double us = m.predict_us(t.traffic());
    if (k == 1 || us < best_us) best = segment_B, best_us = us;
  }
  return best;
}

// The textbook's T: the ring's.
CollectiveAlgorithm allreduce_segmented_ring_algorithm() {
  CollectiveAlgorithm a{"segmented_ring", allreduce_segmented_ring, model_allreduce_segmented_ring};
  a.teach(taught::ring);
  a.shaped_by_timing = true;
  return a;
}

}  // namespace commlab
