#include "comm.hpp"

#include "names.hpp"

#include <algorithm>
#include <stdexcept>

#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>  // Open MPI's MPIX_Query_cuda_support
#endif

namespace commlab {

bool mpi_is_cuda_aware() {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

Nodes::Nodes(std::vector<int> node_of_rank) : of_rank_(std::move(node_of_rank)) {
  for (int r = 0; r < int(of_rank_.size()); ++r) {
    const int node = of_rank_[r];
    if (node >= int(groups_.size())) groups_.resize(node + 1);
    groups_[node].push_back(r);
  }
  for (const auto& g : groups_) {
    leaders_.push_back(g.empty() ? -1 : g.front());
    largest_ = std::max(largest_, g.size());
  }
}

Nodes Nodes::blocks(int P, int ranks_per_node) {
  std::vector<int> of_rank;
  for (int r = 0; r < P; ++r) of_rank.push_back(r / ranks_per_node);
  return Nodes(std::move(of_rank));
}

Nodes nodes_of(MPI_Comm comm) {
  int me, P;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &P);
  MPI_Comm node;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int lowest = me;
  MPI_Allreduce(MPI_IN_PLACE, &lowest, 1, MPI_INT, MPI_MIN, node);
  MPI_Comm_free(&node);
  std::vector<int> lowest_of(P);
  MPI_Allgather(&lowest, 1, MPI_INT, lowest_of.data(), 1, MPI_INT, comm);
  std::vector<int> number(P, -1), of_rank;
  int next = 0;
  for (int r = 0; r < P; ++r) {
    int& mine = number[lowest_of[r]];
    if (mine < 0) mine = next++;
    of_rank.push_back(mine);
  }
  return Nodes(std::move(of_rank));
}
Comm::Comm(MPI_Comm comm)
    : owned_(make_mpi_transport(comm, TransportKind::host, host_)),
      t_(owned_.get()),
      nodes_(nodes_of(comm)) {}

Comm::Comm(Transport& transport, Memory& mem)
    : mem_(&mem), t_(&transport), nodes_(Nodes::blocks(transport.size(), transport.size())) {}

void Comm::use(Memory& mem, TransportKind kind) {
  if (!owned_) throw std::logic_error("Comm::use: only a Comm over MPI changes its transport");
  // A new transport even for the same kind: an MPI transport keeps the Memory it syncs.
  owned_ = make_mpi_transport(t_->mpi(), kind, mem);
  t_ = owned_.get();
  mem_ = &mem;
}

std::string name(Phase p) {
  static const Names<Phase> table = {
      {Phase::none, ""},           {Phase::reduce_scatter, "reduce-scatter"},
      {Phase::all_gather, "all-gather"}, {Phase::reduce, "reduce"},
      {Phase::broadcast, "broadcast"},   {Phase::scatter, "scatter"},
      {Phase::exchange, "exchange"},
      {Phase::fold, "fold (the ranks past a power of two)"}};
  return name_in(table, p);
}

const Snapshot* state_after(const std::vector<Snapshot>& snapshots, int step) {
  const Snapshot* found = nullptr;
  for (const Snapshot& s : snapshots)
    if (s.after_step <= step && (!found || s.after_step >= found->after_step)) found = &s;
  return found;
}

int Comm::enter(Step step) {
  const int index = step.index + step_offset_;
  if (index <= step_now_) return index;
  if (tracing_ && watched_) snapshot();
  return step_now_ = index;
}

void Comm::snapshot() {
  Snapshot s{step_now_, std::vector<char>(watched_B_)};
  if (watched_B_) mem_->copy(s.bytes.data(), watched_, watched_B_);
  mem_->sync();
  snapshots_.push_back(std::move(s));
}

void Comm::count_send(int to, size_t bytes, Step step) {
  const int index = enter(step);
  sent_B_ += bytes;
  ++msgs_;
  last_step_ = std::max<int64_t>(last_step_, index);
  if (tracing_) trace_.push_back({index, rank(), to, step.chunk, bytes, phase_});
}

void Comm::count_recv(size_t bytes, Step step) {
  enter(step);
  recv_B_ += bytes;
}

void Comm::exchange(int to, const void* s, size_t sbytes, int from, void* r, size_t rbytes,
                    const Reduction* red, void* acc) {
  if (!red) return t_->exchange(to, s, sbytes, from, r, rbytes, nullptr);
  // The lambda holds one pointer, so std::function keeps it inline: no
  // allocation per message on the timed path.
  struct Fold {
    Memory* mem;
    const Reduction* red;
    char *acc, *in;
  } f{mem_, red, static_cast<char*>(acc), static_cast<char*>(r)};
  const Landed fold = [&f](size_t at, size_t len) {
    f.mem->reduce(*f.red, f.acc + at, f.in + at, len / f.red->esize());
  };
  t_->exchange(to, s, sbytes, from, r, rbytes, &fold);
}

void Comm::send(int to, const void* buf, size_t bytes, Step step) {
  count_send(to, bytes, step);
  exchange(to, buf, bytes, kNoRank, nullptr, 0, nullptr, nullptr);
}

void Comm::recv(int from, void* buf, size_t bytes, Step step) {
  count_recv(bytes, step);
  exchange(kNoRank, nullptr, 0, from, buf, bytes, nullptr, nullptr);
}

void Comm::sendrecv(int to, const void* sbuf, size_t sbytes, int from, void* rbuf, size_t rbytes,
                    Step step) {
  count_send(to, sbytes, step);
  count_recv(rbytes, step);
  exchange(to, sbuf, sbytes, from, rbuf, rbytes, nullptr, nullptr);
}

void Comm::recv_reduce(int from, void* incoming, void* acc, size_t bytes, const Reduction& red,
                       Step step) {
  count_recv(bytes, step);
  exchange(kNoRank, nullptr, 0, from, incoming, bytes, &red, acc);
}

void Comm::sendrecv_reduce(int to, const void* sbuf, size_t sbytes, int from, void* incoming,
                           void* acc, size_t rbytes, const Reduction& red, Step step) {
  count_send(to, sbytes, step);
  count_recv(rbytes, step);
  exchange(to, sbuf, sbytes, from, incoming, rbytes, &red, acc);
}

void Comm::isend(int to, const void* buf, size_t bytes, Step step) {
  count_send(to, bytes, step);
  t_->isend(to, buf, bytes);
}

void Comm::irecv(int from, void* buf, size_t bytes, Step step) {
  count_recv(bytes, step);
  t_->irecv(from, buf, bytes);
}

void Comm::wait_sends() { t_->wait_sends(); }
void Comm::wait_all() { t_->wait_all(); }
int Comm::probe_any() { return t_->probe_any(); }

void Comm::reset_counts() {
  sent_B_ = recv_B_ = msgs_ = 0;
  last_step_ = -1;
  trace_.clear();
  phase_ = Phase::none;
  step_now_ = -1;
  snapshots_.clear();
}

Traffic Comm::gather_counts() const {
  const uint64_t steps = static_cast<uint64_t>(last_step_ + 1);
  Traffic t;
  for (const auto& c : t_->allgather({sent_B_, recv_B_, steps, msgs_})) {
    t.sent_max_rank_B = std::max(t.sent_max_rank_B, c[0]);
    t.recv_max_rank_B = std::max(t.recv_max_rank_B, c[1]);
    t.steps = std::max(t.steps, c[2]);
    t.sent_total_B += c[0];
    t.msgs_total += c[3];
  }
  // Which messages crossed between nodes needs every rank's, so the trace.
  std::vector<Message> sent;
  for (const TraceEntry& e : gather_trace()) sent.push_back({e.step, e.from, e.to, e.bytes});
  t.port_critical_B = port_critical_B(sent, nodes_.of_rank());
  return t;
}

std::vector<TraceEntry> Comm::gather_trace() const {
  std::vector<uint64_t> mine;
  for (const TraceEntry& e : trace_)
    mine.insert(mine.end(), {uint64_t(uint32_t(e.step)), uint64_t(uint32_t(e.from)),
                             uint64_t(uint32_t(e.to)), uint64_t(uint32_t(e.chunk)), e.bytes,
                             uint64_t(e.phase)});
  std::vector<TraceEntry> all;
  for (const auto& theirs : t_->allgather(mine))
    for (size_t i = 0; i + 6 <= theirs.size(); i += 6)
      all.push_back({int(theirs[i]), int(theirs[i + 1]), int(theirs[i + 2]), int(theirs[i + 3]),
                     theirs[i + 4], Phase(theirs[i + 5])});
  std::stable_sort(all.begin(), all.end(), [](const TraceEntry& a, const TraceEntry& b) {
    return a.step != b.step ? a.step < b.step : a.from < b.from;
  });
  return all;
}

// Each snapshot goes as its step, its byte count, then its bytes eight to a word.
std::vector<std::vector<Snapshot>> Comm::gather_snapshots() const {
  std::vector<uint64_t> mine;
  for (const Snapshot& s : snapshots_) {
    mine.insert(mine.end(), {uint64_t(uint32_t(s.after_step)), s.bytes.size()});
    const size_t words = (s.bytes.size() + 7) / 8;
    mine.resize(mine.size() + words);
    std::copy(s.bytes.begin(), s.bytes.end(), reinterpret_cast<char*>(mine.data() + mine.size() - words));
  }
  std::vector<std::vector<Snapshot>> all;
  for (const auto& theirs : t_->allgather(mine)) {
    all.emplace_back();
    for (size_t i = 0; i + 2 <= theirs.size();) {
      Snapshot s{int(int32_t(uint32_t(theirs[i]))), std::vector<char>(theirs[i + 1])};
      const char* from = reinterpret_cast<const char*>(theirs.data() + i + 2);
      std::copy(from, from + s.bytes.size(), s.bytes.begin());
      i += 2 + (s.bytes.size() + 7) / 8;
      all.back().push_back(std::move(s));
    }
  }
  return all;
}

}  // namespace commlab
