#include "time_model.hpp"

#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <sstream>
#include <vector>

#include "core/device/device.hpp"
#include "core/vocabulary/stats.hpp"
#include "core/vocabulary/usage_error.hpp"

namespace commlab {

double Curve::at(double b) const {
  if (bytes.empty()) return 0;
  if (bytes.size() == 1 || b <= bytes.front()) return us.front();
  size_t i = 1;
  while (i + 1 < bytes.size() && bytes[i] < b) ++i;
  const double slope = (us[i] - us[i - 1]) / (bytes[i] - bytes[i - 1]);
  return std::max(0.0, us[i - 1] + slope * (b - bytes[i - 1]));
}

double CostModel::step_us(const StepLoad& s) const {
  auto each = [](uint64_t n, uint64_t B, const Curve& c) {
    return n ? double(n) * c.at(double(B) / double(n)) : 0.0;
  };
  // A read from a peer's memory is a copy without a message's handshake:
  // the exchange less its fixed cost; reduced from there, a reduction alone.
  // A step of reads waits once for every rank (a fence): the fixed cost.
  const bool reads = s.reads || s.read_reduces;
  const double copy_us = each(s.reads, s.read_B, exchange) - double(s.reads) * exchange.at(0);
  return each(s.msgs, s.port_B, exchange) + each(s.reduces, s.reduced_B, reduce) +
         (1 - overlap) * each(s.in_flight, s.in_flight_B, reduce) +
         (reads ? exchange.at(0) + std::max(0.0, copy_us) : 0) +
         each(s.read_reduces, s.read_reduced_B, reduce);
}

double CostModel::predict_us(const Traffic& t) const {
  if (shared)
    return shared->call_us + double(t.steps) * shared->step_us +
           double(memory_B(t)) / (shared->GBps * 1e3);
  double us = 0;
  for (const StepLoad& s : t.path) us += step_us(s);
  return us;
}

double CostModel::copy_us(double bytes, int P) const {
  if (shared) return 2 * bytes * P / (shared->GBps * 1e3);
  return std::max(0.0, exchange.at(bytes) - exchange.at(0));
}

double CostModel::node_memory_us(const Traffic& t, const MemoryLoad& load, double N_B) const {
  const double GBps = copy_GBps(copy_together, N_B);
  if (GBps <= 0) return predict_us(t);
  // Each message's handshake: the exchange of its bytes up to the eager
  // limit, past which Open MPI's shared memory sends by rendezvous (a
  // handshake, then the receiver's one copy, which the load holds).
  double us = 0;
  for (const StepLoad& s : t.path)
    if (s.msgs)
      us += double(s.msgs) *
            exchange.at(std::min(double(s.port_B) / double(s.msgs), double(kEagerLimit_B)));
  return us + double(load.rank_B) / (GBps * 1e3);
}

uint64_t memory_B(const Traffic& t) {
  uint64_t B = 0;
  std::map<std::pair<int, int>, std::pair<uint64_t, uint64_t>> passes;  // (to, step): terms, bytes
  for (const Message& m : t.messages) switch (m.arrival) {
      case Arrival::stored:
      case Arrival::read:
        B += 2 * m.bytes;
        break;
      case Arrival::reduced:
        B += 3 * m.bytes;
        break;
      case Arrival::reduced_in_flight:
        B += 5 * m.bytes;
        break;
      case Arrival::read_reduced: {
        auto& [terms, bytes] = passes[{m.to, m.step}];
        ++terms, bytes = std::max(bytes, m.bytes);
        break;
      }
    }
  for (const auto& [where, pass] : passes) B += (pass.first + 2) * pass.second;
  return B;
}

namespace {

// Each step's bytes moved in memory, by rank (memory_load says what counts);
// the own copy, when there is one, a step of its own before the others.
std::map<int, std::vector<uint64_t>> moved_by_step(const Traffic& t,
                                                   const std::vector<uint64_t>& own_copied_B) {
  const int P = int(own_copied_B.size());
  std::map<int, std::vector<uint64_t>> moved;
  auto at = [&](int step, int rank) -> uint64_t& {
    std::vector<uint64_t>& ranks = moved[step];
    if (ranks.empty()) ranks.assign(size_t(P), 0);
    return ranks.at(size_t(rank));
  };
  for (int r = 0; r < P; ++r)
    if (own_copied_B[size_t(r)]) at(-1, r) += 2 * own_copied_B[size_t(r)];
  std::map<std::pair<int, int>, std::pair<uint64_t, uint64_t>> passes;  // (to, step): terms, bytes
  for (const Message& m : t.messages) {
    const bool eager = m.bytes < kEagerLimit_B;  // the limit holds the match header too
    switch (m.arrival) {
      case Arrival::stored:
      case Arrival::reduced:
      case Arrival::reduced_in_flight:
        at(m.step, m.to) += (m.arrival == Arrival::stored ? 2 : 5) * m.bytes;
        if (eager) at(m.step, m.from) += 2 * m.bytes;
        break;
      case Arrival::read:
        at(m.step, m.to) += 2 * m.bytes;
        break;
      case Arrival::read_reduced: {
        auto& [terms, bytes] = passes[{m.to, m.step}];
        ++terms, bytes = std::max(bytes, m.bytes);
        break;
      }
    }
  }
  for (const auto& [where, pass] : passes)
    at(where.second, where.first) += (pass.first + 2) * pass.second;
  return moved;
}

}  // namespace

MemoryLoad memory_load(const Traffic& t, const std::vector<uint64_t>& own_copied_B) {
  MemoryLoad load;
  for (const auto& [step, ranks] : moved_by_step(t, own_copied_B)) {
    load.rank_B += *std::max_element(ranks.begin(), ranks.end());
    for (uint64_t b : ranks) load.node_B += b;
  }
  return load;
}

double copy_GBps(const Curve& copy, double b) {
  if (copy.bytes.empty()) return 0;
  const double us = copy.at(b);
  return us > 0 ? 2 * b / us / 1e3 : 0;
}

ProbeScale probe_scale_from_env() {
  const char* text = std::getenv("COMMLAB_PROBE_SCALE");
  if (!text || !*text) return {};
  const auto refuse = [&] {
    return UsageError(fmt::format(
        "COMMLAB_PROBE_SCALE '{}': want alpha,beta,gamma factors above 0 (or one for all three) "
        "and an overlap from 0 to 1 after them",
        text));
  };
  std::vector<double> f;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, ',');) {
    char* end = nullptr;
    const double x = std::strtod(part.c_str(), &end);
    if (part.empty() || *end || !(x >= 0 && x < 1e6)) throw refuse();
    f.push_back(x);
  }
  if (f.size() == 1) f = {f[0], f[0], f[0]};
  if (f.size() != 3 && f.size() != 4) throw refuse();
  if (f[0] == 0 || f[1] == 0 || f[2] == 0 || (f.size() == 4 && f[3] > 1)) throw refuse();
  ProbeScale s{f[0], f[1], f[2], std::nullopt};
  if (f.size() == 4) s.overlap = f[3];
  return s;
}

void scale(CostModel& m, const ProbeScale& s) {
  if (s.alpha == 1 && s.beta == 1 && s.gamma == 1 && !s.overlap) return;
  const double alpha = m.exchange.at(0);
  for (double& us : m.exchange.us) us = s.alpha * alpha + s.beta * (us - alpha);
  for (double& us : m.reduce.us) us *= s.gamma;
  if (s.overlap) m.overlap = *s.overlap;
  if (m.shared)
    m.shared->step_us *= s.alpha, m.shared->call_us *= s.alpha, m.shared->GBps /= s.beta;
  m.source += fmt::format(", scaled {},{},{}{}", s.alpha, s.beta, s.gamma,
                          s.overlap ? fmt::format(",{}", *s.overlap) : "");
}

CostModel alpha_beta(double alpha_us, double GBps) {
  CostModel m;
  const double MB = 1e6;  // a straight line through 0 B and 1 MB: us = alpha + B / (GBps x 1e3)
  m.exchange = {{0, MB}, {alpha_us, alpha_us + MB / (GBps * 1e3)}};
  m.reduce = {{0, MB}, {0, 0}};
  m.source = "given";
  return m;
}

namespace {

constexpr size_t kLargest_B = kProbeScratch_B / 3;
// The exchange curve's steps a call (waiting for each other, as an algorithm's do).
constexpr int kCurveSteps = 4;

// The median of `reps` runs of f() on every rank at once, as rank 0 saw it:
// not the best, which on a crowded machine is the rare run that found every
// rank on a core.
template <class F>
double median_us(Comm& comm, int reps, F f) {
  std::vector<double> us;
  for (int i = 0; i < reps; ++i) {
    MPI_Barrier(comm.mpi());
    const double t0 = MPI_Wtime();
    f();
    comm.memory().sync();
    us.push_back((MPI_Wtime() - t0) * 1e6);
  }
  return median(us);
}

// A larger message never costs less: noise that says so would make cutting
// a message in pieces look free.
void monotone(Curve& c) {
  for (size_t i = 1; i < c.us.size(); ++i) c.us[i] = std::max(c.us[i], c.us[i - 1]);
}

// One step of a ring, every rank at once: `bytes` to the right, as many from
// the left. With a reduction, in `pieces` pieces, each reduced after it
// lands: while the next one travels (pipelined, the segmented ring's step),
// or before the next is sent.
void shift(Comm& comm, char* out, char* in, char* acc, size_t bytes, const Reduction* red,
           size_t pieces = 1, bool pipelined = false) {
  const int P = comm.size(), right = (comm.rank() + 1) % P, left = (comm.rank() - 1 + P) % P;
  if (!red) return comm.sendrecv(right, out, bytes, left, in, bytes, {0});
  const size_t piece = bytes / pieces;
  auto post = [&](size_t j) {
    comm.irecv(left, in + j * piece, piece, {0});
    comm.isend(right, out + j * piece, piece, {0});
  };
  if (pipelined) post(0);
  for (size_t j = 0; j < pieces; ++j) {
    if (!pipelined) post(j);
    comm.wait_all();
    if (pipelined && j + 1 < pieces) post(j + 1);
    comm.memory().reduce(*red, acc + j * piece, in + j * piece, piece / red->esize());
  }
}

}  // namespace

namespace {

// The exchange and reduce curves (time_model.hpp), on rank `comm`'s scratch.
void measure_curves(Comm& comm, const Reduction* red, char* out, char* in, char* acc,
                    CostModel& m) {
  Memory& mem = comm.memory();
  for (size_t b = 0; b <= kLargest_B; b = b ? 2 * b : 8) {
    const int reps = b <= (64 << 10) ? 20 : 3;
    // Steps that wait for each other, as an algorithm's do: each sends on
    // what the last received, so a rank waits for its left neighbour's step.
    auto steps = [&] {
      for (int s = 0; s < kCurveSteps; ++s)
        shift(comm, s % 2 ? in : out, s % 2 ? out : in, acc, b, nullptr);
    };
    m.exchange.bytes.push_back(double(b));
    m.exchange.us.push_back(comm.size() > 1 ? median_us(comm, reps, steps) / kCurveSteps : 0);
    if (!red || b < 64) continue;  // below a few elements, the call's own cost
    m.reduce.bytes.push_back(double(b));
    m.reduce.us.push_back(
        median_us(comm, reps, [&] { mem.reduce(*red, acc, in, b / red->esize()); }));
  }
  monotone(m.exchange);
  monotone(m.reduce);
}

// The overlap: 1 MiB in 16 pieces, pipelined or one after the other.
double measure_overlap(Comm& comm, const Reduction* red, char* out, char* in, char* acc,
                       const CostModel& m) {
  const size_t whole = size_t{1} << 20, pieces = 16;
  auto run = [&](bool pipelined) {
    return median_us(comm, 5, [&] { shift(comm, out, in, acc, whole, red, pieces, pipelined); });
  };
  const double apart = run(false), pipelined = run(true);
  const double hideable = (pieces - 1) * m.reduce.at(double(whole / pieces));
  return hideable > 0 ? std::clamp((apart - pipelined) / hideable, 0.0, 1.0) : 0;
}

// A shared GPU's step and call from two calls of exchanges of nothing: the
// exchange curve's (kCurveSteps a call, per step: call / kCurveSteps + step)
// and one of a single step (call + step).
SharedMemory split_call(double curve_step_us, double one_step_call_us, double GBps) {
  const double step =
      std::max(0.0, (kCurveSteps * curve_step_us - one_step_call_us) / (kCurveSteps - 1));
  return SharedMemory{step, GBps, std::max(0.0, one_step_call_us - step)};
}

// Rank 0's figures for every rank, so that all choose alike.
void share_rank0(Comm& comm, CostModel& m) {
  std::vector<double> figures = m.exchange.us;
  figures.insert(figures.end(), m.reduce.us.begin(), m.reduce.us.end());
  figures.push_back(m.overlap);
  figures.push_back(m.shared ? m.shared->GBps : 0);
  figures.push_back(m.shared ? m.shared->call_us : 0);
  MPI_Bcast(figures.data(), int(figures.size()), MPI_DOUBLE, 0, comm.mpi());
  const size_t nx = m.exchange.us.size(), nr = m.reduce.us.size();
  std::copy_n(figures.begin(), nx, m.exchange.us.begin());
  std::copy_n(figures.begin() + nx, nr, m.reduce.us.begin());
  m.overlap = figures[nx + nr];
  if (m.shared) m.shared = split_call(m.exchange.at(0), figures[nx + nr + 2], figures[nx + nr + 1]);
}

}  // namespace

CostModel probe_cost(Comm& comm, const Reduction* red, bool shared_gpu) {
  Memory& mem = comm.memory();
  char* room = static_cast<char*>(mem.scratch(3 * kLargest_B));
  char *out = room, *in = room + kLargest_B, *acc = room + 2 * kLargest_B;
  // Zeros, so that the reduction probe adds numbers, not whatever the memory
  // held before (a sum of leftover int32 may overflow: undefined behaviour).
  const std::vector<char> zeros(3 * kLargest_B);
  mem.copy(room, zeros.data(), zeros.size());
  mem.sync();
  CostModel m;
  m.source = "probe";
  measure_curves(comm, red, out, in, acc, m);
  if (red && comm.size() > 1) m.overlap = measure_overlap(comm, red, out, in, acc, m);
  if (shared_gpu) {
    // The GPU's memory bandwidth, measured by rank 0 while the others wait:
    // the whole memory, which the ranks' copies and reductions share. A copy
    // of 256 MiB, four times the largest L2 of today's GPUs (an 8 MiB one
    // stays in a Hopper GPU's 50 to 60 MiB L2 and overstates the memory).
    constexpr size_t kGpuCopy_B = size_t{256} << 20;
    MPI_Barrier(comm.mpi());
    m.shared =
        SharedMemory{0, comm.rank() == 0 ? gpu::measure_bandwidth(kGpuCopy_B, 5).copy_GBps : 0};
    MPI_Barrier(comm.mpi());
    // A call of one step, beside the curve's calls of four: what a call
    // costs apart from its steps (share_rank0 splits the two).
    if (comm.size() > 1)
      m.shared->call_us = median_us(comm, 20, [&] { shift(comm, out, in, acc, 0, nullptr); });
    m.source = "probe, GPU memory shared by the ranks";
  }
  share_rank0(comm, m);
  scale(m, probe_scale_from_env());  // checked when the flags were
  return m;
}

void probe_copies(Comm& comm, const std::vector<size_t>& sizes_B, CostModel& m) {
  // Past 64 MiB the curve goes on along its last piece (a constant rate):
  // a larger probe would take more memory than the run it prices.
  constexpr size_t kLargestCopy_B = size_t{64} << 20;
  std::set<size_t> sizes;
  for (size_t b : sizes_B)
    if (b > 0) sizes.insert(std::min(b, kLargestCopy_B));
  m.copy_alone = m.copy_together = {};
  for (size_t b : sizes) {
    std::vector<char> from(b, 1), to(b, 0);  // touched: no page faults in the timing
    auto copy = [&] { std::memcpy(to.data(), from.data(), b); };
    const int reps = b <= (size_t{1} << 20) ? 9 : 5;
    m.copy_alone.bytes.push_back(double(b));
    m.copy_alone.us.push_back(median_us(comm, reps, [&] {
      if (comm.rank() == 0) copy();
    }));
    m.copy_together.bytes.push_back(double(b));
    m.copy_together.us.push_back(median_us(comm, reps, copy));
  }
  for (Curve* c : {&m.copy_alone, &m.copy_together}) {
    MPI_Bcast(c->us.data(), int(c->us.size()), MPI_DOUBLE, 0, comm.mpi());
    monotone(*c);
  }
}

std::string describe(const CostModel& m) {
  constexpr double kMiB = 1 << 20;
  auto rate = [&](const Curve& c) {  // bytes per us at 1 MiB, from the curve's slope there
    const double us = c.at(kMiB) - c.at(kMiB / 2);
    return us > 0 ? fmt::format("1/{:.1f} GB/s", kMiB / 2 / us / 1e3) : std::string("-");
  };
  if (m.shared)
    return fmt::format(
        "a call {:.2f} us and a step {:.2f} us, the GPU's memory {:.0f} GB/s, shared by the "
        "ranks ({})",
        m.shared->call_us, m.shared->step_us, m.shared->GBps, m.source);
  return fmt::format("alpha {:.2f} us, beta {} (1 MiB), gamma {} (1 MiB), overlap {:.2f} ({})",
                     m.exchange.at(0), rate(m.exchange), rate(m.reduce), m.overlap, m.source);
}

}  // namespace commlab
