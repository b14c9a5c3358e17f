// Butterflies: the all-reduce schedules in log2 P exchange steps, whose
// algorithms differ only in who talks to whom (recursive doubling,
// Rabenseifner, Swing). Over the p2 virtual ranks of a PowerOfTwoFold, step
// s pairs every virtual rank v with partner(v, s), each pair exchanging.
//
// Two schedules run on any butterfly:
//   exchange (latency-optimal): each step swaps the whole buffer and reduces;
//   halving-doubling (bandwidth-optimal): the buffer in p2 chunks; a
//     reduce-scatter whose step s sends p2 / 2^(s+1) chunks, then an
//     all-gather over the same steps in reverse.
// For halving-doubling, the ranks a rank reaches from step s on, R(v, s),
// must split in two at each step: R(v, s) = R(v, s+1) + R(partner, s+1).
// Ordering the ranks depth first along that split gives each rank a
// position, and every R(v, s) is then an aligned block of positions: in
// step s a rank keeps the half of its block holding its own position and
// sends the other half. The constructor checks that split (a partner
// function that cannot make one is a bug, refused by std::logic_error).
#pragma once
#include <vector>

#include "algorithm.hpp"

namespace commlab {

// partner(v, s, p2): a perfect matching of 0 .. p2-1 for each step s.
using Partner = int (*)(int v, int s, int p2);
int bit_low_first(int v, int s, int p2);  // v ^ 2^s: recursive doubling, Rabenseifner
int swing_partner(int v, int s, int p2);  // v + rho(s) (v even), v - rho(s) (v odd), mod p2
// Swing's signed distance at step s: (1 - (-2)^(s+1)) / 3 = 1, -1, 3, -5, 11, ...
long long swing_rho(int s);

struct Butterfly {
  Butterfly(int P, Partner pairs);
  PowerOfTwoFold fold;
  int steps;  // log2 p2
  Partner partner_of;
  std::vector<int> position;  // by virtual rank: the chunk it ends the reduce-scatter with
  int partner(int v, int s) const { return partner_of(v, s, fold.p2); }
  // Made once per thread for each P and partner: a timed call does not
  // build it again.
  static const Butterfly& of(int P, Partner partner);
};

// A run of positions (of chunks) [lo, hi). In a step that halves a block of
// 2d, the rank at position p keeps the half that holds p and gives the
// other; doubling, it gets its partner's half.
struct Block {
  int lo, hi;
};
Block kept(Block held, int p, int d);
Block given(Block held, int p, int d);
Block partners(Block mine, int p, int d);
Block joined(Block a, Block b);

// Every rank's part (of P) laid out in the order of the butterfly's
// positions, for an all-gather or a reduce-scatter run on it alone
// (allgather_bine, reduce_scatter_bine): position p's block holds the parts
// of the ranks its virtual rank stands for, two where the fold paired them
// (the lower rank's first), so that a run of positions is a run of bytes.
struct PositionedParts {
  PositionedParts(const Butterfly& b, const Partition& parts, size_t esize);
  std::vector<size_t> at_B;    // by position: bytes before its block; [p2] all
  std::vector<size_t> part_B;  // by rank: bytes before its part
  size_t bytes(Block k) const { return at_B[size_t(k.hi)] - at_B[size_t(k.lo)]; }
};

// The whole schedules, fold included: the exchange from the job's input into
// its result; halving and doubling on `data` (the all-reduce's buffer).
void butterfly_exchange(const CollectiveJob& job, const Butterfly& b);
void halving_doubling(const CollectiveJob& job, const Butterfly& b, char* data);
Traffic tally_butterfly_exchange(const Butterfly& b, size_t count, size_t esize);
// The exchange's copies of a rank's own vector (CollectiveAlgorithm::own_copies).
int butterfly_exchange_own_copies(const Butterfly& b, int rank, bool in_place);
Traffic tally_halving_doubling(const Butterfly& b, size_t count, size_t esize);
// The closed forms (at_scale): the busiest node's port, step by step; or
// on a network (on_network), the busiest link of it.
ScaledTraffic scaled_butterfly_exchange(int P, double N, int ranks_per_node, Partner partner,
                                        const Topology& network);
ScaledTraffic scaled_halving_doubling(int P, double N, int ranks_per_node, Partner partner,
                                      const Topology& network);

}  // namespace commlab
