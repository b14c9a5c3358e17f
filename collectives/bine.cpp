// The Bine tree of P ranks (bine.hpp says how it is laid out).
#include "bine.hpp"

#include <map>
#include <stdexcept>
#include <utility>

#include "butterfly.hpp"

namespace commlab {

namespace {
constexpr int kUnreached = -2;  // a position's step before the data reached it
}  // namespace

BineTree::BineTree(int ranks, BineOrder o) : P(ranks), p2(1), steps(0), order(o) {
  while (p2 < P) p2 *= 2, ++steps;
  // The p2 tree, step by step: every position holding the data sends it to
  // its partner. Swing's partners reach each position once (a tree); a
  // partner function that did not would be a bug, refused here.
  std::vector<int> step_at(p2, kUnreached);
  step_at[0] = -1;
  for (int t = 0; t < steps; ++t)
    for (int from = 0; from < p2; ++from) {
      if (step_at[from] == kUnreached || step_at[from] >= t) continue;  // nothing to send yet
      const int q = swing_partner(from, distance_step(t), p2);
      if (step_at[q] != kUnreached) throw std::logic_error("bine: a position reached twice");
      step_at[q] = t;
    }
  // Drop the last p2 - P leaves; the positions left hold ranks 0 .. P-1 in order.
  std::vector<bool> dropped(p2, false);
  for (int at = p2 - 1, left = p2 - P; left > 0; --at)
    if (step_at[at] == steps - 1) dropped[at] = true, --left;
  rank_at.assign(p2, -1);
  for (int at = 0, v = 0; at < p2; ++at)
    if (!dropped[at]) {
      rank_at[at] = v++;
      position.push_back(at);
      got.push_back(step_at[at]);
    }
  first.assign(P, 0), span.assign(P, 0);
  visit(0);
}

void BineTree::visit(int v) {
  first[v] = static_cast<int>(preorder.size());
  preorder.push_back(v);
  for (int t = got[v] + 1; t < steps; ++t)
    if (const int c = child(v, t); c >= 0) visit(c);
  span[v] = static_cast<int>(preorder.size()) - first[v];
}

BinePacked::BinePacked(const Partition& parts, int root, size_t esize)
    : tree(BineTree::of(parts.parts, BineOrder::halving)), at_B(parts.parts + 1, 0) {
  for (int i = 0; i < tree.P; ++i)
    at_B[i + 1] = at_B[i] + parts.size((tree.preorder[i] + root) % tree.P) * esize;
}

int BineTree::child(int v, int t) const {
  if (got[v] >= t) return -1;  // has nothing to send yet
  return rank_at[swing_partner(position[v], distance_step(t), p2)];
}

// Its partner in the step it receives in, which held the data before that
// step: not a last-step leaf, so never dropped.
int BineTree::parent(int v) const {
  return rank_at[swing_partner(position[v], distance_step(got[v]), p2)];
}

const BineTree& BineTree::of(int P, BineOrder order) {
  thread_local std::map<std::pair<int, BineOrder>, BineTree> made;
  auto it = made.find({P, order});
  if (it == made.end()) it = made.emplace(std::pair{P, order}, BineTree(P, order)).first;
  return it->second;
}

}  // namespace commlab
