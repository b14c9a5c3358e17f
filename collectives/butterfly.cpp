// The butterflies' partners, the two schedules every butterfly runs, and
// their exact and closed-form models (butterfly.hpp says what each is).
#include "butterfly.hpp"

#include <map>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

#include "algorithms.hpp"

namespace commlab {

int bit_low_first(int v, int s, int) { return v ^ (1 << s); }

long long swing_rho(int s) {
  const long long magnitude = 1LL << (s + 1);              // |(-2)^(s+1)|; shifting a
  const long long power = s % 2 ? magnitude : -magnitude;  // negative number is undefined
  return (1 - power) / 3;
}

// p2 is a power of two, so "mod p2" is a mask (for negative numbers too, in
// two's complement): the closed forms call this P log2 P times at P = 2^20.
int swing_partner(int v, int s, int p2) {
  const long long d = swing_rho(s), to = v % 2 == 0 ? v + d : v - d;
  return int(to & (p2 - 1));
}

namespace {

// Depth first along the split: R(v, s) is R(v, s+1), then R(partner, s+1).
void order(const Butterfly& b, int v, int s, std::vector<int>& out) {
  if (s == b.steps) return out.push_back(v);
  order(b, v, s + 1, out);
  order(b, b.partner(v, s), s + 1, out);
}

}  // namespace

Butterfly::Butterfly(int P, Partner pairs) : fold(P), steps(0), partner_of(pairs) {
  while ((1 << steps) < fold.p2) ++steps;
  std::vector<int> ranks;
  order(*this, 0, 0, ranks);
  position.assign(fold.p2, -1);
  for (int at = 0; at < fold.p2; ++at) {
    if (position[ranks[at]] != -1) throw std::logic_error("butterfly: a rank reached twice");
    position[ranks[at]] = at;
  }
  // Step s: v and its partner hold the same block, in its two halves.
  for (int v = 0; v < fold.p2; ++v)
    for (int s = 0; s < steps; ++s) {
      const int q = partner(v, s), half = steps - s - 1;
      if (partner(q, s) != v || (position[v] >> half) != ((position[q] >> half) ^ 1))
        throw std::logic_error("butterfly: the partners do not split the ranks in halves");
    }
}

const Butterfly& Butterfly::of(int P, Partner partner) {
  thread_local std::map<std::pair<int, Partner>, Butterfly> made;
  auto it = made.find({P, partner});
  if (it == made.end()) it = made.emplace(std::pair{P, partner}, Butterfly(P, partner)).first;
  return it->second;
}

namespace {
// Whether the exchange starts from the input: not in place, outside the fold.
bool starts_from_input(const Butterfly& b, int rank, bool in_place) {
  return !in_place && rank >= 2 * b.fold.extra;
}
}  // namespace

void butterfly_exchange(const CollectiveJob& job, const Butterfly& b) {
  const size_t bytes = job.count * job.esize();
  char* data = static_cast<char*>(job.out);
  const int v = b.fold.virtual_rank(job.comm.rank());
  // Each step sends this rank's buffer and reduces it with the partner's
  // into another (the result and scratch, in turn): no buffer is written
  // while the partner may still read it, so over direct access the partner's
  // bytes are reduced straight from its memory, one pass a step. Not in
  // place, a rank outside the fold starts from its input and the turns end
  // in the result: it copies nothing of its own (a copy costs about what a
  // step's reduction does on one node). In place, or in the fold, it starts
  // from the result, and copies back after an odd number of steps.
  const bool from_input = starts_from_input(b, job.comm.rank(), job.in_place());
  if (!from_input) allreduce_buffer(job);
  b.fold.fold_in(job, data, bytes);
  char* scratch = static_cast<char*>(job.mem.scratch(bytes));
  const char* mine = from_input ? static_cast<const char*>(job.in) : data;
  auto into = [&](int s) {  // where step s - 1's sum lands
    return (from_input ? (b.steps - s) % 2 : s % 2) ? scratch : data;
  };
  int step = b.fold.first_step();
  job.comm.begin_phase(Phase::exchange);
  for (int s = 0; s < b.steps; ++s, ++step) {
    if (v < 0) continue;  // folded away: waits for the result
    const int partner = b.fold.real_rank(b.partner(v, s));
    char* other = into(s + 1);
    job.comm.watch(mine, bytes);  // --steps: the buffer that holds the last step's sum
    job.comm.sendrecv_reduce_to(partner, mine, bytes, partner, other, mine, bytes, job.red, {step});
    mine = other;
  }
  if (mine != data) job.mem.copy(data, mine, bytes);  // P = 1 too
  job.comm.watch(data, bytes);
  b.fold.fold_out(job, data, bytes, step);
}

int butterfly_exchange_own_copies(const Butterfly& b, int rank, bool in_place) {
  const bool from_input = starts_from_input(b, rank, in_place);
  if (from_input) return b.steps == 0 ? 1 : 0;  // P = 1: the input is the answer
  const bool copies_back = b.fold.virtual_rank(rank) >= 0 && b.steps % 2;
  return (in_place ? 0 : 1) + (copies_back ? 1 : 0);
}

Block kept(Block held, int p, int d) {
  return p & d ? Block{held.lo + d, held.hi} : Block{held.lo, held.lo + d};
}
Block given(Block held, int p, int d) {
  return p & d ? Block{held.lo, held.lo + d} : Block{held.lo + d, held.hi};
}
Block partners(Block mine, int p, int d) {
  return p & d ? Block{mine.lo - d, mine.lo} : Block{mine.hi, mine.hi + d};
}
Block joined(Block a, Block b) { return {std::min(a.lo, b.lo), std::max(a.hi, b.hi)}; }

PositionedParts::PositionedParts(const Butterfly& b, const Partition& parts, size_t esize)
    : at_B(size_t(b.fold.p2) + 1, 0), part_B(size_t(b.fold.P), 0) {
  std::vector<int> at_position(size_t(b.fold.p2));
  for (int v = 0; v < b.fold.p2; ++v) at_position[size_t(b.position[v])] = v;
  for (int p = 0; p < b.fold.p2; ++p) {
    const int v = at_position[size_t(p)], r = b.fold.real_rank(v);
    const int first = v < b.fold.extra ? r - 1 : r;  // the rank folded into v first
    size_t end_B = at_B[size_t(p)];
    for (int q = first; q <= r; ++q) part_B[size_t(q)] = end_B, end_B += parts.size(q) * esize;
    at_B[size_t(p) + 1] = end_B;
  }
}

void halving_doubling(const CollectiveJob& job, const Butterfly& b, char* data) {
  const size_t es = job.esize();
  b.fold.fold_in(job, data, job.count * es);
  const int v = b.fold.virtual_rank(job.comm.rank()), p2 = b.fold.p2;
  const int p = v < 0 ? 0 : b.position[v];
  const Chunks chunks{data, {job.count, p2}, es};
  auto at = [&](Block k) { return chunks.at(k.lo); };
  auto bytes = [&](Block k) {
    return (chunks.parts.offset(k.hi) - chunks.parts.offset(k.lo)) * es;
  };
  int step = b.fold.first_step();
  Block held{0, p2};
  void* incoming = job.mem.scratch(job.count * es);
  job.comm.begin_phase(Phase::reduce_scatter);
  for (int s = 0; s < b.steps; ++s, ++step) {
    if (v < 0) continue;
    const int partner = b.fold.real_rank(b.partner(v, s)), d = p2 >> (s + 1);
    const Block keep = kept(held, p, d), give = given(held, p, d);
    job.comm.sendrecv_reduce(partner, at(give), bytes(give), partner, incoming, at(keep),
                             bytes(keep), job.red, {step, give.lo, give.hi - 1});
    held = keep;
  }
  job.comm.begin_phase(Phase::all_gather);
  for (int s = b.steps - 1; s >= 0; --s, ++step) {
    if (v < 0) continue;
    const int partner = b.fold.real_rank(b.partner(v, s)), d = p2 >> (s + 1);
    const Block theirs = partners(held, p, d);
    job.comm.sendrecv(partner, at(held), bytes(held), partner, at(theirs), bytes(theirs),
                      {step, held.lo, held.hi - 1});
    held = joined(held, theirs);
  }
  b.fold.fold_out(job, data, job.count * es, step);
}

Traffic tally_butterfly_exchange(const Butterfly& b, size_t count, size_t esize) {
  const uint64_t bytes = count * esize;
  Tally t(b.fold.P);
  b.fold.tally_in(t, bytes);
  int step = b.fold.first_step();
  for (int s = 0; s < b.steps; ++s, ++step)
    for (int v = 0; v < b.fold.p2; ++v)
      t.message(step, b.fold.real_rank(v), b.fold.real_rank(b.partner(v, s)), bytes,
                Arrival::reduced);
  b.fold.tally_out(t, bytes, step);
  return t.traffic();
}

Traffic tally_halving_doubling(const Butterfly& b, size_t count, size_t esize) {
  const int p2 = b.fold.p2;
  const Partition parts{count, p2};
  auto bytes = [&](Block k) { return (parts.offset(k.hi) - parts.offset(k.lo)) * esize; };
  auto real = [&](int v) { return b.fold.real_rank(v); };
  Tally t(b.fold.P);
  b.fold.tally_in(t, count * esize);
  std::vector<Block> held(p2, Block{0, p2});
  int step = b.fold.first_step();
  for (int s = 0; s < b.steps; ++s, ++step)
    for (int v = 0, d = p2 >> (s + 1); v < p2; ++v) {
      t.message(step, real(v), real(b.partner(v, s)), bytes(given(held[v], b.position[v], d)),
                Arrival::reduced);
      held[v] = kept(held[v], b.position[v], d);
    }
  for (int s = b.steps - 1; s >= 0; --s, ++step) {
    const int d = p2 >> (s + 1);
    for (int v = 0; v < p2; ++v) t.message(step, real(v), real(b.partner(v, s)), bytes(held[v]));
    for (int v = 0; v < p2; ++v) held[v] = joined(held[v], partners(held[v], b.position[v], d));
  }
  b.fold.tally_out(t, count * esize, step);
  return t.traffic();
}

namespace {

// The busiest node's (or link's) messages in step s of the butterfly. A
// step is counted once per process and placement: latency- and
// bandwidth-optimal forms share their partners (Rabenseifner's are
// recursive doubling's, Swing's are Swing's), so predict at P = 2^20 routes
// each step of a pair of algorithms once.
int64_t step_ports(const PowerOfTwoFold& fold, StepPorts& ports, Partner partner, int s,
                   int ranks_per_node, const Topology& network) {
  using Key = std::tuple<Partner, int, int, int, std::string>;
  thread_local std::map<Key, int64_t> counted;
  const Key key{partner, fold.P, ranks_per_node, s, network.describe()};
  if (const auto found = counted.find(key); found != counted.end()) return found->second;
  for (int v = 0; v < fold.p2; ++v)
    ports.message(fold.real_rank(v), fold.real_rank(partner(v, s, fold.p2)));
  return counted[key] = ports.end_step();
}

}  // namespace

// The fold's step in and step out (ranks past the power of two hand N to a
// partner and take the result back), and log2 p2 steps in which every
// virtual rank swaps N with its partner and reduces it.
ScaledTraffic scaled_butterfly_exchange(int P, double N, int ranks_per_node, Partner partner,
                                        const Topology& network) {
  const PowerOfTwoFold fold(P);
  StepPorts ports(P, ranks_per_node, network);
  const double folds = fold.extra ? 2 : 0;  // the step in, and the same back out
  double crossing = folds * double(fold.fold_ports(ports)), exchanges = 0;
  for (int s = 0; (1 << s) < fold.p2; ++s, ++exchanges)
    crossing += double(step_ports(fold, ports, partner, s, ranks_per_node, network));
  return {folds + exchanges, crossing * N, (exchanges + (fold.extra ? 1 : 0)) * N};
}

// Chunks of N/p2: the fold's step in and out, then for each step s one
// halving and one doubling step between the same partners, each message
// p2/2^(s+1) chunks; the halving reduces (p2-1)/p2 x N on every rank, plus N
// on the ranks that took a fold.
ScaledTraffic scaled_halving_doubling(int P, double N, int ranks_per_node, Partner partner,
                                      const Topology& network) {
  const PowerOfTwoFold fold(P);
  StepPorts ports(P, ranks_per_node, network);
  double steps = fold.extra ? 2 : 0;  // the fold's step in, and the same back out
  double crossing_B = steps * double(fold.fold_ports(ports)) * N;
  for (int s = 0; (1 << s) < fold.p2; ++s, steps += 2)
    crossing_B += 2 * double(step_ports(fold, ports, partner, s, ranks_per_node, network)) *
                  (fold.p2 >> (s + 1)) * N / fold.p2;
  return {steps, crossing_B, (fold.extra ? N : 0) + (fold.p2 - 1) * N / fold.p2};
}

}  // namespace commlab
