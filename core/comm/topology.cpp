#include "topology.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <regex>
#include <utility>

#include "core/vocabulary/usage_error.hpp"

namespace commlab {

namespace {

const char* kNames = "use switch, ring:K, torus:AxB, fattree:K:O or dragonfly:GxA";

Topology torus(std::vector<int> dims) {
  Topology t;
  t.kind = Topology::Kind::torus;
  t.dims = std::move(dims);
  return t;
}

}  // namespace

Topology Topology::parse(const std::string& text) {
  std::smatch m;
  constexpr int kMost = 1 << 20;  // nodes in all, as P at most
  const auto count = [&](const std::string& s, int least, const char* what) {
    if (s.size() > 7 || std::stoi(s) < least || std::stoi(s) > kMost)
      throw UsageError(
          fmt::format("--topology {}: {} {} (use {} to {})", text, s, what, least, kMost));
    return std::stoi(s);
  };
  const auto at_most = [&](int64_t nodes) {
    if (nodes > kMost)
      throw UsageError(fmt::format("--topology {}: {} nodes at most", text, kMost));
  };
  if (text == "switch") return {};
  if (std::regex_match(text, m, std::regex("ring:([0-9]+)")))
    return torus({count(m[1], 2, "nodes in a dimension")});
  if (std::regex_match(text, m, std::regex("torus:([0-9]+)x([0-9]+)"))) {
    Topology t =
        torus({count(m[1], 2, "nodes in a dimension"), count(m[2], 2, "nodes in a dimension")});
    at_most(int64_t(t.dims[0]) * t.dims[1]);
    return t;
  }
  Topology t;
  if (std::regex_match(text, m, std::regex("fattree:([0-9]+):([0-9]+)"))) {
    t.kind = Kind::fat_tree;
    t.group = count(m[1], 1, "nodes per leaf");
    const int over = count(m[2], 1, "oversubscription");
    if (over > t.group || t.group % over)
      throw UsageError(fmt::format(
          "--topology {}: the oversubscription must divide the {} nodes of a leaf", text, t.group));
    t.uplinks = t.group / over;
    return t;
  }
  if (std::regex_match(text, m, std::regex("dragonfly:([0-9]+)x([0-9]+)"))) {
    t.kind = Kind::dragonfly;
    t.groups = count(m[1], 2, "groups");
    t.group = count(m[2], 1, "nodes per group");
    at_most(int64_t(t.groups) * t.group);
    return t;
  }
  throw UsageError(fmt::format("--topology {}: {}", text, kNames));
}

std::string Topology::describe() const {
  switch (kind) {
    case Kind::ideal_switch:
      return "switch";
    case Kind::torus:
      return dims.size() == 1 ? fmt::format("ring:{}", dims[0])
                              : fmt::format("torus:{}x{}", dims[0], dims[1]);
    case Kind::fat_tree:
      return fmt::format("fattree:{}:{}", group, group / uplinks);
    case Kind::dragonfly:
      return fmt::format("dragonfly:{}x{}", groups, group);
  }
  return "";
}

int Topology::nodes() const {
  if (kind == Kind::dragonfly) return groups * group;
  if (kind != Kind::torus) return 0;
  int n = 1;
  for (int d : dims) n *= d;
  return n;
}

// Ids. The switch and the dragonfly number each node's link out 2n and in
// 2n+1; the dragonfly's global links follow, g to h at 2 x nodes + g x
// groups + h. The fat tree numbers leaf by leaf, each leaf's block its
// nodes' links (out, in) then its uplinks' (up, down). A torus link:
// (node x dimensions + dimension) x 2 + direction (0: positive).
int Topology::links(int nodes_used) const {
  const int leaves = kind == Kind::fat_tree ? (nodes_used + group - 1) / group : 0;
  switch (kind) {
    case Kind::ideal_switch:
      return 2 * nodes_used;
    case Kind::torus:
      return 2 * nodes() * int(dims.size());
    case Kind::fat_tree:
      return leaves * 2 * (group + uplinks);
    case Kind::dragonfly:
      return 2 * nodes() + groups * groups;
  }
  return 0;
}

std::vector<int> Topology::route(int a, int b) const {
  std::vector<int> links;
  route(a, b, links);
  return links;
}

void Topology::route(int a, int b, std::vector<int>& links) const {
  links.clear();
  if (a == b) return;
  if (kind == Kind::ideal_switch) {
    links = {2 * a, 2 * b + 1};  // a's link out, b's link in
  } else if (kind == Kind::fat_tree) {
    const int block = 2 * (group + uplinks), la = a / group, lb = b / group;
    const auto node_link = [&](int n) { return n / group * block + 2 * (n % group); };
    links.push_back(node_link(a));
    if (la != lb) {
      const int spine = b % uplinks;  // D-mod-k: the destination picks the spine
      links.push_back(la * block + 2 * (group + spine));
      links.push_back(lb * block + 2 * (group + spine) + 1);
    }
    links.push_back(node_link(b) + 1);
  } else if (kind == Kind::dragonfly) {
    const int ga = a / group, gb = b / group;
    links.push_back(2 * a);
    if (ga != gb) links.push_back(2 * nodes() + ga * groups + gb);
    links.push_back(2 * b + 1);
  } else {
    torus_route(a, b, links);
  }
}

void Topology::torus_route(int a, int b, std::vector<int>& links) const {
  std::vector<int> at(dims.size()), to(dims.size());  // coordinates, columns first
  for (size_t k = 0, stride = 1; k < dims.size(); stride *= dims[k], ++k)
    at[k] = a / int(stride) % dims[k], to[k] = b / int(stride) % dims[k];
  const auto node = [&] {
    int n = 0;
    for (size_t k = dims.size(); k-- > 0;) n = n * dims[k] + at[k];
    return n;
  };
  for (size_t k = 0; k < dims.size(); ++k) {
    const int K = dims[k], up = ((to[k] - at[k]) % K + K) % K;  // hops the positive way
    const bool positive = 2 * up <= K;                          // a tie goes the positive way
    for (int h = 0; h < (positive ? up : K - up); ++h) {
      links.push_back((node() * int(dims.size()) + int(k)) * 2 + (positive ? 0 : 1));
      at[k] = (at[k] + (positive ? 1 : K - 1)) % K;
    }
  }
}

// On a torus, load_ holds for each dimension k and direction a difference
// array per line of dims[k] nodes (K + 1 entries): a run of h hops from
// position x adds at x and takes off past its end, wrapping round. The rows
// (dimension 0) lie line by line and the columns position by position, so
// that messages from neighbouring nodes touch neighbouring entries.
LinkCounter::LinkCounter(const Topology& topology, int nodes_used) : t_(topology) {
  if (t_.nodes() && nodes_used > t_.nodes())
    throw UsageError(
        fmt::format("{} has {} nodes; the ranks ran on {}", t_.describe(), t_.nodes(), nodes_used));
  if (t_.kind != Topology::Kind::torus) {
    load_.assign(size_t(t_.links(nodes_used)), 0);
    return;
  }
  size_t size = 0;
  for (size_t k = 0; k < t_.dims.size(); ++k) {
    const int K = t_.dims[k];
    const size_t lines = size_t(t_.nodes() / K), entries = lines * size_t(K + 1);
    const size_t line_stride = k == 0 ? size_t(K + 1) : 1, pos_stride = k == 0 ? 1 : lines;
    lines_.push_back({{{size, lines, K, line_stride, pos_stride},
                       {size + entries, lines, K, line_stride, pos_stride}}});
    size += 2 * entries;
  }
  load_.assign(size, 0);
}

void LinkCounter::add(int a, int b, uint64_t bytes) {
  used_ = true;
  if (t_.kind != Topology::Kind::torus) {
    t_.route(a, b, scratch_);
    for (int link : scratch_) load_[size_t(link)] += bytes;
    hop_B_ += bytes * scratch_.size();
    return;
  }
  // Columns first (dimension 0), then rows; the line of a run is the other
  // coordinate (a ring has one line).
  const int A = t_.dims[0];
  const bool ring = t_.dims.size() == 1;
  const int xa = ring ? a : a % A, xb = ring ? b : b % A;
  const int ya = ring ? 0 : a / A, yb = ring ? 0 : b / A;
  run(0, ya, xa, xb, bytes);
  if (!ring) run(1, xb, ya, yb, bytes);
}

// From position `from` to `to` along line `line` of dimension k, the
// shorter way (half way round: the positive way).
void LinkCounter::run(size_t k, int line, int from, int to, uint64_t bytes) {
  const int K = t_.dims[k];
  int up = to - from;
  if (up == 0) return;
  if (up < 0) up += K;
  const bool positive = 2 * up <= K;
  const int hops = positive ? up : K - up;
  // Links x, x+1, ... (positive) or x, x-1, ... (negative), each named by
  // the node it leaves.
  const Lines& l = lines_[k][positive ? 0 : 1];
  int lo = positive ? from : from - hops + 1;
  if (lo < 0) lo += K;
  uint64_t* d = &load_[l.at + size_t(line) * l.line_stride];
  d[size_t(lo) * l.pos_stride] += bytes;
  if (lo + hops <= K) {
    d[size_t(lo + hops) * l.pos_stride] -= bytes;
  } else {  // round past the end: unsigned arithmetic wraps back, the sums come out right
    d[0] += bytes;
    d[size_t(lo + hops - K) * l.pos_stride] -= bytes;
  }
  hop_B_ += bytes * uint64_t(hops);
}

// The most on one link of these lines, each the prefix sum of its
// differences; and clears them.
uint64_t LinkCounter::Lines::busiest(std::vector<uint64_t>& load) const {
  uint64_t most = 0;
  uint64_t* d = &load[at];
  if (pos_stride == 1) {
    for (size_t line = 0; line < lines; ++line, d += line_stride) {
      uint64_t sum = 0;
      for (int x = 0; x < K; ++x) most = std::max(most, sum += d[x]);
    }
  } else {
    std::vector<uint64_t> sum(lines);
    for (int x = 0; x < K; ++x, d += pos_stride)
      for (size_t line = 0; line < lines; ++line) most = std::max(most, sum[line] += d[line]);
  }
  std::fill_n(load.begin() + long(at), lines * size_t(K + 1), 0);
  return most;
}

uint64_t LinkCounter::end_step() {
  if (!used_) return 0;
  used_ = false;
  uint64_t busiest = 0;
  if (t_.kind != Topology::Kind::torus) {
    for (uint64_t& l : load_) busiest = std::max(busiest, std::exchange(l, 0));
    return busiest;
  }
  for (const auto& directions : lines_)
    for (const Lines& l : directions) busiest = std::max(busiest, l.busiest(load_));
  return busiest;
}

}  // namespace commlab
