#include "recorder.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <type_traits>

namespace commlab {

namespace {

// The figures that depend on where the ranks ran (nodes.hpp): which
// messages crossed between nodes needs every rank's, so the gathered trace.
void count_where(Traffic& t, const std::vector<TraceEntry>& trace, const Nodes& nodes) {
  std::vector<Message> sent;
  for (const TraceEntry& e : trace) sent.push_back({e.step, e.from, e.to, e.bytes});
  count_where(t, sent, nodes);
}

// Every rank's records, in rank order, on every rank: structs travel as their
// bytes, so nothing is packed by hand.
template <class Record>
std::vector<std::vector<Record>> gather_records(Transport& t, const std::vector<Record>& mine) {
  static_assert(std::is_trivially_copyable_v<Record>, "records travel as their bytes");
  std::vector<char> bytes(mine.size() * sizeof(Record));
  if (!bytes.empty()) std::memcpy(bytes.data(), mine.data(), bytes.size());
  std::vector<std::vector<Record>> all;
  for (const std::vector<char>& theirs : t.allgather(bytes)) {
    all.emplace_back(theirs.size() / sizeof(Record));
    if (!theirs.empty()) std::memcpy(all.back().data(), theirs.data(), theirs.size());
  }
  return all;
}

}  // namespace

std::string chunks_text(int chunk, int last_chunk) {
  if (chunk == kWholeBuffer) return "";
  if (last_chunk >= 0 && last_chunk != chunk)
    return fmt::format("chunks {}..{}", chunk, last_chunk);
  return fmt::format("chunk {}", chunk);
}

const Snapshot* state_after(const std::vector<Snapshot>& snapshots, int step) {
  const Snapshot* found = nullptr;
  for (const Snapshot& s : snapshots)
    if (s.after_step <= step && (!found || s.after_step >= found->after_step)) found = &s;
  return found;
}

void Recorder::begin_step(int step, Memory& mem) {
  if (step <= step_now_) return;
  if (watched_) snapshot(mem);  // only where states are kept (watch)
  step_now_ = step;
}

void Recorder::sent(const TraceEntry& message) {
  mine_.sent_B += message.bytes;
  ++mine_.msgs;
  mine_.last_step = std::max<int64_t>(mine_.last_step, message.step);
  if (keep_ != Keep::counts) trace_.push_back(message);
}

void Recorder::read(const TraceEntry& message) {
  mine_.recv_B += message.bytes;
  ++mine_.msgs;
  mine_.last_step = std::max<int64_t>(mine_.last_step, message.step);
  trace_.push_back(message);
  trace_.back().read = true;
}

void Recorder::snapshot(Memory& mem) {
  moved_start_B_ += watched_B_ ? 2 * watched_B_ : 0;  // the recorder's own copy, not the run's
  Snapshot s{step_now_, std::vector<char>(watched_B_)};
  if (watched_B_) mem.copy(s.bytes.data(), watched_, watched_B_);
  mem.sync();
  snapshots_.push_back(std::move(s));
}

Traffic Recorder::gather_counts(Transport& transport, const Nodes& nodes) const {
  return gather_counts(transport, nodes, gather_trace(transport));
}

Traffic Recorder::gather_counts(Transport& transport, const Nodes& nodes,
                                const std::vector<TraceEntry>& trace) const {
  Counts mine = mine_;
  const PeerBytes now = transport.peer_bytes();
  mine.peer = {now.read_B - peer_start_.read_B, now.written_B - peer_start_.written_B};
  if (mem_) mine.moved_B = mem_->moved_B() - moved_start_B_;
  const auto all = gather_records(transport, std::vector<Counts>{mine});
  // A message read from a peer's memory is its sender's, though only its reader recorded it.
  std::vector<uint64_t> sent_B(all.size());
  for (size_t r = 0; r < all.size(); ++r) sent_B[r] = all[r].at(0).sent_B;
  for (const TraceEntry& e : trace)
    if (e.read) sent_B.at(e.from) += e.bytes;
  Traffic t;
  for (size_t r = 0; r < all.size(); ++r) {
    const Counts& c = all[r].at(0);
    t.sent_max_rank_B = std::max(t.sent_max_rank_B, sent_B[r]);
    t.recv_max_rank_B = std::max(t.recv_max_rank_B, c.recv_B);
    t.steps = std::max(t.steps, uint64_t(c.last_step + 1));
    t.sent_total_B += sent_B[r];
    t.msgs_total += c.msgs;
    t.peer_read_max_rank_B = std::max(t.peer_read_max_rank_B, c.peer.read_B);
    t.peer_written_max_rank_B = std::max(t.peer_written_max_rank_B, c.peer.written_B);
    t.memory_moved_total_B += c.moved_B;
  }
  count_where(t, trace, nodes);
  return t;
}

Traffic Recorder::counts_of(const std::vector<TraceEntry>& trace, int P, const Nodes& nodes) {
  std::vector<uint64_t> sent_B(P), recv_B(P);
  Traffic t;
  for (const TraceEntry& e : trace) {
    sent_B.at(e.from) += e.bytes;
    recv_B.at(e.to) += e.bytes;
    t.sent_total_B += e.bytes;
    ++t.msgs_total;
    t.steps = std::max(t.steps, uint64_t(e.step + 1));
  }
  for (int r = 0; r < P; ++r) {
    t.sent_max_rank_B = std::max(t.sent_max_rank_B, sent_B[r]);
    t.recv_max_rank_B = std::max(t.recv_max_rank_B, recv_B[r]);
  }
  count_where(t, trace, nodes);
  return t;
}

namespace {

std::vector<TraceEntry> gather_sorted(Transport& transport, const std::vector<TraceEntry>& mine,
                                      bool keep) {
  const auto gathered = gather_records(transport, mine);
  std::vector<TraceEntry> all;
  if (!keep) return all;
  for (const auto& theirs : gathered) all.insert(all.end(), theirs.begin(), theirs.end());
  std::stable_sort(all.begin(), all.end(), [](const TraceEntry& a, const TraceEntry& b) {
    return a.step != b.step ? a.step < b.step : a.from < b.from;
  });
  return all;
}

}  // namespace

std::vector<TraceEntry> Recorder::gather_trace(Transport& transport, bool keep) const {
  return gather_sorted(transport, trace_, keep);
}

std::vector<TraceEntry> Recorder::gather_arrivals(Transport& transport, bool keep) const {
  return gather_sorted(transport, arrivals_, keep);
}

// Each rank's snapshots travel as two records: what each is (its step and
// size), then all their bytes one after another.
std::vector<std::vector<Snapshot>> Recorder::gather_snapshots(Transport& transport) const {
  struct Header {
    int after_step;
    uint64_t bytes;
  };
  std::vector<Header> headers;
  std::vector<char> bytes;
  for (const Snapshot& s : snapshots_) {
    headers.push_back({s.after_step, s.bytes.size()});
    bytes.insert(bytes.end(), s.bytes.begin(), s.bytes.end());
  }
  const auto all_headers = gather_records(transport, headers);
  const auto all_bytes = gather_records(transport, bytes);
  std::vector<std::vector<Snapshot>> all(all_headers.size());
  for (size_t r = 0; r < all.size(); ++r) {
    auto from = all_bytes[r].begin();
    for (const Header& h : all_headers[r]) {
      all[r].push_back({h.after_step, std::vector<char>(from, from + h.bytes)});
      from += h.bytes;
    }
  }
  return all;
}

}  // namespace commlab
