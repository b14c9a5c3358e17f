// Double binary tree all-reduce: NCCL's tree (Sanders, Speck and Träff 2009;
// NCCL 2.4). A single binary tree leaves half its ranks as leaves, which
// send and receive only once: their links idle while inner nodes carry two
// children. Two trees fix that: the first half of the buffer goes over tree
// A, the second over tree B, built so that every leaf of A is an inner node
// of B and the other way round. Each half is reduced up its tree and
// broadcast back down; both trees run at once.
//
// Tree A is the in-order binary tree on ranks: rank v, with lowest set bit
// b, has children v - b/2 and v + (the largest of b/2, b/4, ... that stays
// below P); rank 0 is the root, with one child, the largest power of two
// below P. Its leaves are the odd ranks. Tree B is A mirrored (rank r on A's
// node P-1-r) when P is even, shifted by one (rank r on node r-1) when P is
// odd: its leaves are even ranks.
//
//   P = 6    tree A, first half        tree B, second half (mirrored)
//                 0                          5
//                 4                          1
//               2   5                      3   0
//              1 3                        4 2
//
//   reduce, steps 0 .. H-1 (H = the root's height, leaves have height 0):
//     a rank of height h has its children's sums by now, adds them, and
//     sends to its parent at step h
//   broadcast, steps H .. 2H-1: a rank at depth d gets the result from its
//     parent at step H+d-1 and passes it to its children at step H+d
//
// Each step posts both trees' messages and waits for them together. The
// busiest rank is an inner node of one tree (its half up, a half to each of
// two children) and a leaf of the other (its half up): it sends 2 x N/2 +
// N/2 + N/2 = 2N, about the ring's 2(P-1)/P x N, in 2 log2 P steps instead
// of 2(P-1); the single tree's inner node sends 3N. Counts below 2 leave
// tree B an empty half: its messages travel empty.
#include <algorithm>

#include "collectives/algorithm.hpp"

namespace commlab {

namespace {

// One of the two trees. Everything about a rank follows from its node
// number in O(log P), so a run builds nothing on the timed path.
class Tree {
 public:
  Tree(int P, bool second) : P_(P), second_(second) {}
  struct Kids {
    int n = 0;
    int rank[2] = {kNoRank, kNoRank};
  };
  Kids children(int r) const {
    Kids k;
    const int v = node(r);
    if (v == 0) {
      if (P_ > 1) k.rank[k.n++] = rank(top());
      return k;
    }
    const int b = lowbit(v);
    if (b == 1) return k;
    k.rank[k.n++] = rank(v - b / 2);
    for (int h = b / 2; h >= 1; h /= 2)
      if (v + h < P_) {
        k.rank[k.n++] = rank(v + h);
        break;
      }
    return k;
  }
  // v - b or v + b (b = v's lowest bit), whichever has the next bit up;
  // v - b where v + b is past the last rank. The root's child climbs to 0.
  int parent(int r) const {
    const int v = node(r);
    if (v == 0) return kNoRank;
    const int b = lowbit(v), up = (v ^ b) | (2 * b);
    return rank(up < P_ ? up : v ^ b);
  }
  // A node's left chain is always whole: its height is its lowest bit's.
  int height(int r) const { return node(r) == 0 ? root_height() : log2_exact(lowbit(node(r))); }
  int depth(int r) const {
    int d = 0;
    for (int p = parent(r); p != kNoRank; p = parent(p)) ++d;
    return d;
  }
  int root_height() const { return binomial_rounds(P_); }
  int rank(int v) const {
    return !second_ ? v : P_ % 2 == 0 ? P_ - 1 - v : (v + 1) % P_;
  }  // node v's

 private:
  int node(int r) const { return !second_ ? r : P_ % 2 == 0 ? P_ - 1 - r : (r - 1 + P_) % P_; }
  int top() const {  // the root's one child: the largest power of two below P
    int t = 1;
    while (2 * t < P_) t *= 2;
    return t;
  }
  int P_;
  bool second_;
};

// What rank `me` does at `step` in one tree on its half `half` (bytes B):
// posts the step's messages, and after the wait reduces its children's.
struct TreeHalf {
  const Tree& tree;
  char* half;
  size_t B;
  char* incoming;  // room for two children's halves

  void post(Comm& comm, int me, int depth, int step) const {
    const int H = tree.root_height(), up = tree.parent(me);
    const Tree::Kids kids = tree.children(me);
    for (int i = 0; i < kids.n; ++i) {
      if (tree.height(kids.rank[i]) == step) comm.irecv(kids.rank[i], incoming + i * B, B, {step});
      if (H + depth == step) comm.isend(kids.rank[i], half, B, {step});
    }
    if (up == kNoRank) return;
    if (tree.height(me) == step) comm.isend(up, half, B, {step});
    if (H + depth - 1 == step) comm.irecv(up, half, B, {step});
  }
  void fold(const CollectiveJob& job, int me, int step) const {
    const Tree::Kids kids = tree.children(me);
    for (int i = 0; i < kids.n; ++i)
      if (tree.height(kids.rank[i]) == step)
        job.mem.reduce(job.red, half, incoming + i * B, B / job.esize());
  }
};

void allreduce_double_binary_tree(const CollectiveJob& job) {
  Comm& comm = job.comm;
  const int P = comm.size(), me = comm.rank();
  const Chunks halves{allreduce_buffer(job), Partition{job.count, 2}, job.esize()};
  char* room = static_cast<char*>(job.mem.scratch(2 * job.count * job.esize()));
  const Tree a(P, false), b(P, true);
  const TreeHalf both[2] = {{a, halves.at(0), halves.bytes(0), room},
                            {b, halves.at(1), halves.bytes(1), room + 2 * halves.bytes(0)}};
  const int depth[2] = {a.depth(me), b.depth(me)};
  for (int step = 0; step < 2 * a.root_height(); ++step) {  // both trees are as high
    comm.begin_phase(step < a.root_height() ? Phase::reduce : Phase::broadcast);
    for (int t = 0; t < 2; ++t) both[t].post(comm, me, depth[t], step);
    comm.wait_all();
    for (const TreeHalf& t : both) t.fold(job, me, step);
  }
}

Traffic model_allreduce_double_binary_tree(int P, size_t count, size_t esize, int) {
  const Partition halves{count, 2};
  Tally t(P);
  for (int second = 0; second < 2; ++second) {
    const Tree tree(P, second);
    const uint64_t B = halves.size(second) * esize;
    const int H = tree.root_height();
    for (int r = 0; r < P; ++r) {
      const int up = tree.parent(r);
      if (up == kNoRank) continue;
      t.message(tree.height(r), r, up, B, Arrival::reduced);
      t.message(H + tree.depth(r) - 1, up, r, B);
    }
  }
  return t.traffic();
}

// At any scale, halves of N/2. Reduce step h: in both trees every node
// whose lowest bit is 2^h sends its half up. Broadcast step H + d - 1: every
// node at depth d gets it from its parent, level by level down from each
// root. A rank reduces half for each child it has in either tree.
ScaledTraffic scaled_allreduce_double_binary_tree(int P, double N, int ranks_per_node) {
  const Tree trees[2] = {Tree(P, false), Tree(P, true)};
  const int H = trees[0].root_height();
  StepPorts ports(P, ranks_per_node);
  std::vector<int> kids(P);
  double crossing = 0;  // the busiest port's halves, summed over the steps
  for (int h = 0; h < H; ++h) {
    for (const Tree& t : trees)
      for (int64_t v = int64_t{1} << h; v < P; v += int64_t{2} << h) {
        const int r = t.rank(int(v)), up = t.parent(r);
        ports.message(r, up), ++kids[up];
      }
    crossing += double(ports.end_step());
  }
  std::vector<int> level[2] = {{trees[0].rank(0)}, {trees[1].rank(0)}};
  for (int d = 1; d <= H; ++d) {
    for (int i = 0; i < 2; ++i) {
      std::vector<int> next;
      for (int r : level[i]) {
        const Tree::Kids k = trees[i].children(r);
        for (int j = 0; j < k.n; ++j) ports.message(r, k.rank[j]), next.push_back(k.rank[j]);
      }
      level[i] = std::move(next);
    }
    crossing += double(ports.end_step());
  }
  const int most_kids = P > 1 ? *std::max_element(kids.begin(), kids.end()) : 0;
  return {2.0 * H, crossing * N / 2, most_kids * N / 2};
}

}  // namespace

// The textbook's T: what the busiest rank sends once an inner node has two children.
CollectiveAlgorithm allreduce_double_binary_tree_algorithm() {
  CollectiveAlgorithm a{"double_binary_tree", allreduce_double_binary_tree,
                        sized<model_allreduce_double_binary_tree>};
  a.teach(taught::two_trees);
  a.at_scale = scaled_allreduce_double_binary_tree;
  return a;
}

}  // namespace commlab
