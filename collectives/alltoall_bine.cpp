// Bine all-to-all (De Sensi et al., SC 2025; HLC-Lab/bine-trees,
// src/alltoall.c): a butterfly, as Bruck's algorithm is one, with Swing's
// partners. Rank r's buffer is P blocks, block j for rank j. In step s rank
// r swaps with r + rho(s) (r even) or r - rho(s) (r odd), mod P, rho(s) = 1,
// -1, 3, -5, 11, ..., and hands over every block it holds whose owner is on
// the partner's side of the butterfly's split (butterfly.hpp): P/2 blocks
// each step, whatever the step. After step s a rank holds the blocks of
// 2^(s+1) senders for P/2^(s+1) owners, and after the last, its own block
// from every rank.
//
// log2 P steps and P/2 log2 P blocks a rank, where the pairwise exchange
// sends P-1 blocks in P-1 steps: fewer, larger messages, for small blocks
// (each block crosses the network up to log2 P times: N/2 a step, 3/2 N in
// all at P = 8, against the pairwise 7/8 N). Against halving by rank bits,
// the partners are at 1, 1, 3, 5, ... ranks, not P/2, P/4, ..., 1: on a
// ring of 8 nodes, 1 + 1 + 3 = 5 hops for each step's N/2, against 4 + 2 +
// 1 = 7 (tests/models_test.cpp works the links).
//
// Which blocks go: owners are taken in the butterfly's position order, and
// the owners a rank still serves are always a run of positions, split in
// two each step; for each sender it holds, the blocks for the partner's half
// are one run, so a message is the senders' runs one after another (packed
// in scratch: local copies of N a step, and of N to lay the buffer out
// and to put the blocks in rank order at the end). P = 8 (positions: ranks
// 0 3 7 4 1 6 2 5), rank 0:
//
//   step  partner  gives the blocks of owners  keeps  holds blocks from
//   0     1        1 6 2 5                     0 3 7 4  0 1
//   1     7        7 4                         0 3      0 1 7 6
//   2     3        3                           0        every rank
//
// P not a power of two: the pairwise exchange runs (the row's note says so),
// as the paper's code does not fold either. With count < P some blocks are
// empty and their runs add no bytes.
#include <string>
#include <utility>
#include <vector>

#include "algorithms.hpp"
#include "butterfly.hpp"

namespace commlab {

namespace {

// The ranks whose blocks v holds before step s, in the order they are packed:
// its own, then each step's partner's list after its own.
std::vector<int> senders(const Butterfly& b, int v, int s) {
  if (s == 0) return {v};
  std::vector<int> mine = senders(b, v, s - 1), theirs = senders(b, b.partner(v, s - 1), s - 1);
  mine.insert(mine.end(), theirs.begin(), theirs.end());
  return mine;
}

}  // namespace

void alltoall_bine(const CollectiveJob& job) {
  Comm& comm = job.comm;
  const int P = comm.size(), me = comm.rank();
  if (!power_of_two(P)) return alltoall_pairwise(job);
  const Butterfly& b = Butterfly::of(P, swing_partner);
  const Partition blocks = job.parts();
  const size_t es = job.esize(), mine_B = blocks.size(me) * es;
  const PositionedParts laid(b, blocks, es);
  // held, next and what is sent: each at most P blocks of the largest size
  // (alltoall.cpp registers the three for the direct transport).
  const size_t room_B = size_t(P) * Partition{job.count, P}.size(0) * es;
  char* held = static_cast<char*>(job.mem.scratch(3 * room_B));
  char *next = held + room_B, *outgoing = next + room_B;
  const char* in = static_cast<const char*>(job.in_place() ? job.out : job.in);
  for (int j = 0; j < P; ++j)
    if (blocks.size(j))
      job.mem.copy(held + laid.part_B[size_t(j)], in + blocks.offset(j) * es, blocks.size(j) * es);
  const int p = b.position[me];
  Block owners{0, P};
  for (int s = 0, n = 1; s < b.steps; ++s, n *= 2) {
    const int partner = b.partner(me, s), d = P >> (s + 1);
    const Block keep = kept(owners, p, d), give = given(owners, p, d);
    const size_t run_B = laid.bytes(owners), give_B = laid.bytes(give), keep_B = laid.bytes(keep);
    const size_t give_at = laid.at_B[size_t(give.lo)] - laid.at_B[size_t(owners.lo)];
    const size_t keep_at = laid.at_B[size_t(keep.lo)] - laid.at_B[size_t(owners.lo)];
    for (int i = 0; i < n; ++i) {
      if (give_B) job.mem.copy(outgoing + i * give_B, held + i * run_B + give_at, give_B);
      if (keep_B) job.mem.copy(next + i * keep_B, held + i * run_B + keep_at, keep_B);
    }
    comm.sendrecv(partner, outgoing, n * give_B, partner, next + n * keep_B, n * keep_B,
                  {s, give.lo, give.hi - 1});
    std::swap(held, next);
    owners = keep;
  }
  // Every sender's block for me, in the order senders() gives.
  const std::vector<int> from = senders(b, me, b.steps);
  for (int i = 0; i < P; ++i)
    if (mine_B)
      job.mem.copy(static_cast<char*>(job.out) + from[size_t(i)] * mine_B, held + i * mine_B,
                   mine_B);
}

std::string remark_alltoall_bine(int P) {
  return power_of_two(P) ? "" : "P is not a power of two: ran the pairwise exchange";
}

Traffic model_alltoall_bine(int P, size_t count, size_t esize, int root) {
  if (!power_of_two(P)) return model_alltoall_pairwise(P, count, esize, root);
  const Butterfly b(P, swing_partner);
  const PositionedParts laid(b, Partition{count, P}, esize);
  Tally t(P);
  std::vector<Block> owners(size_t(P), Block{0, P});
  for (int s = 0, n = 1; s < b.steps; ++s, n *= 2)
    for (int v = 0, d = P >> (s + 1); v < P; ++v) {
      t.message(s, v, b.partner(v, s), n * laid.bytes(given(owners[v], b.position[v], d)));
      owners[v] = kept(owners[v], b.position[v], d);
    }
  return t.traffic();
}

// Its entry in the alltoall operation's list (collectives/alltoall.def).
CollectiveAlgorithm alltoall_bine_algorithm() {
  CollectiveAlgorithm a{"bine", alltoall_bine, sized<model_alltoall_bine>, remark_alltoall_bine};
  // Open MPI 4.1 and MPICH 4.0 have no Bine: a library row is not named for it.
  a.not_in_libraries = true;
  return a;
}

}  // namespace commlab
