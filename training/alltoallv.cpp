#include "alltoallv.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <fstream>
#include <numeric>
#include <sstream>

#include "core/comm/recorder.hpp"
#include "core/vocabulary/usage_error.hpp"

namespace commlab::moe {

Matrix read_matrix(const std::string& path, int P) {
  std::ifstream in(path);
  if (!in) throw UsageError("--matrix " + path + ": cannot be read");
  Matrix m;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    line = line.substr(0, line.find('#'));
    std::replace(line.begin(), line.end(), ',', ' ');
    std::istringstream fields(line);
    std::vector<uint64_t> row;
    for (std::string f; fields >> f;) {
      if (f.find_first_not_of("0123456789") != std::string::npos || f.size() > 18)
        throw UsageError(fmt::format("--matrix {}, line {}: '{}' is not a count", path, n, f));
      // A rank's counts add up to at most MPI's int (fits_mpi): a count past
      // it is refused here, before any sum of them could wrap.
      if (std::stoull(f) > uint64_t(INT_MAX))
        throw UsageError(fmt::format(
            "--matrix {}, line {}: {} elements: MPI_Alltoallv's counts are int", path, n, f));
      row.push_back(std::stoull(f));
    }
    if (row.empty()) continue;
    if (int(row.size()) != P)
      throw UsageError(
          fmt::format("--matrix {}, line {}: {} counts, want P = {}", path, n, row.size(), P));
    m.push_back(row);
  }
  if (int(m.size()) != P)
    throw UsageError(fmt::format("--matrix {}: {} rows, want P = {}", path, m.size(), P));
  return m;
}

namespace {
// `tokens` shared out by `weights`: floors, then the remainder one each to
// the largest fractions (the lower rank first among equals).
std::vector<uint64_t> shares(uint64_t tokens, const std::vector<double>& weights) {
  const double total = std::accumulate(weights.begin(), weights.end(), 0.0);
  std::vector<uint64_t> out;
  std::vector<std::pair<double, size_t>> rest;
  uint64_t given = 0;
  for (size_t j = 0; j < weights.size(); ++j) {
    const double exact = double(tokens) * weights[j] / total;
    out.push_back(uint64_t(std::floor(exact)));
    given += out.back();
    rest.emplace_back(-(exact - std::floor(exact)), j);
  }
  std::sort(rest.begin(), rest.end());
  for (size_t k = 0; given < tokens; ++k, ++given) ++out[rest[k % rest.size()].second];
  return out;
}
}  // namespace

Matrix generate(const std::string& skew, int P, uint64_t tokens) {
  std::vector<double> weights(size_t(P), 1.0);
  if (skew.rfind("zipf:", 0) == 0) {
    char* end = nullptr;
    const double s = std::strtod(skew.c_str() + 5, &end);
    if (end == skew.c_str() + 5 || *end || !(s >= 0 && s <= 10))
      throw UsageError("--skew " + skew + ": zipf:S wants an exponent S from 0 to 10");
    for (int j = 0; j < P; ++j) weights[j] = 1 / std::pow(j + 1.0, s);
  } else if (skew != "uniform") {
    throw UsageError("--skew " + skew + ": uniform or zipf:S");
  }
  return Matrix(size_t(P), shares(tokens, weights));
}

Blocks sends_of(const Matrix& m, int r) {
  Blocks b;
  for (uint64_t c : m[r]) b.count.push_back(c), b.offset.push_back(b.total), b.total += c;
  return b;
}

Blocks receives_of(const Matrix& m, int r) {
  Blocks b;
  for (const auto& row : m)
    b.count.push_back(row[r]), b.offset.push_back(b.total), b.total += row[r];
  return b;
}

int32_t token(int from, int to, uint64_t k) {
  return int32_t((uint32_t(from) * 2654435761u) ^ (uint32_t(to) * 40503u) ^ uint32_t(k * 7919u));
}

namespace {

std::vector<Message> linear(const Matrix& m) {
  std::vector<Message> all;
  const int P = int(m.size());
  for (int i = 0; i < P; ++i)
    for (int j = 0; j < P; ++j)
      if (i != j && m[i][j]) all.push_back({0, i, j, m[i][j]});
  return all;
}

// Pairwise in the order of `shifts`: step s sends r -> r + shifts[s].
std::vector<Message> shifted(const Matrix& m, const std::vector<int>& shifts) {
  std::vector<Message> all;
  const int P = int(m.size());
  for (size_t s = 0; s < shifts.size(); ++s)
    for (int i = 0; i < P; ++i) {
      const int j = (i + shifts[s]) % P;
      if (m[i][j]) all.push_back({int(s), i, j, m[i][j]});
    }
  return all;
}

std::vector<Message> pairwise(const Matrix& m) {
  std::vector<int> shifts;
  for (int k = 1; k < int(m.size()); ++k) shifts.push_back(k);
  return shifted(m, shifts);
}

// The shifts whose messages carry the most, over all ranks, first: the
// hottest pairs start before the others queue behind them.
std::vector<Message> by_load(const Matrix& m) {
  const int P = int(m.size());
  std::vector<std::pair<uint64_t, int>> load;
  for (int k = 1; k < P; ++k) {
    uint64_t sum = 0;
    for (int i = 0; i < P; ++i) sum += m[i][(i + k) % P];
    load.emplace_back(sum, k);
  }
  std::stable_sort(load.begin(), load.end(), [](auto& a, auto& b) { return a.first > b.first; });
  std::vector<int> shifts;
  for (const auto& [sum, k] : load) shifts.push_back(k);
  return shifted(m, shifts);
}

}  // namespace

const std::vector<Algorithm>& algorithms() {
  static const std::vector<Algorithm> all{
      {"linear", linear}, {"pairwise", pairwise}, {"by_load", by_load}};
  return all;
}

// Each step: this rank's receives posted, then its sends, then a wait (the
// linear schedule is one step: everything at once). Its own block is copied.
void run(const Algorithm& s, const AlltoallvJob& job) {
  Comm& comm = job.comm;
  const int me = comm.rank();
  const Blocks out = sends_of(job.m, me), in = receives_of(job.m, me);
  comm.memory().copy(job.out + in.offset[me], job.in + out.offset[me], out.count[me] * 4);
  const std::vector<Message> all = s.messages(job.m);
  for (size_t k = 0; k < all.size();) {
    const int step = all[k].step;
    for (; k < all.size() && all[k].step == step; ++k) {
      const Message& msg = all[k];
      if (msg.to == me) comm.irecv(msg.from, job.out + in.offset[msg.from], msg.count * 4, {step});
      if (msg.from == me) comm.isend(msg.to, job.in + out.offset[msg.to], msg.count * 4, {step});
    }
    comm.wait_all();
  }
}

Traffic model(const Algorithm& s, const Matrix& m, const Nodes& nodes) {
  std::vector<TraceEntry> trace;
  for (const Message& msg : s.messages(m))
    trace.push_back({msg.step, msg.from, msg.to, -1, msg.count * 4, Phase::exchange});
  std::sort(trace.begin(), trace.end(), [](const TraceEntry& a, const TraceEntry& b) {
    return std::tie(a.step, a.from, a.to) < std::tie(b.step, b.from, b.to);
  });
  return Recorder::counts_of(trace, int(m.size()), nodes);
}

double model_us(const Matrix& m, const CostModel& cost) {
  const int P = int(m.size());
  double slowest = 0;
  for (int r = 0; r < P; ++r) {
    double send = 0, recv = 0;
    for (int j = 0; j < P; ++j) {
      if (j == r) continue;
      if (m[r][j]) send += cost.exchange.at(double(m[r][j]) * 4);
      if (m[j][r]) recv += cost.exchange.at(double(m[j][r]) * 4);
    }
    slowest = std::max({slowest, send, recv});
  }
  return slowest;
}

}  // namespace commlab::moe
