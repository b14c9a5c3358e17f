// What goes over the wire in one run of an algorithm, counted or modelled.
#pragma once
#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "topology.hpp"

namespace commlab {

// One step of a schedule, for the time model: in each field, the most that
// any one rank has of it in the step.
struct StepLoad {
  uint64_t msgs = 0;         // messages it sends
  uint64_t port_B = 0;       // bytes it sends, or receives, whichever is more
  uint64_t reduces = 0;      // messages it reduces on arrival, before the step can end
  uint64_t reduced_B = 0;    //   their bytes
  uint64_t in_flight = 0;    // messages it reduces while the next is on the wire
  uint64_t in_flight_B = 0;  //   their bytes
  // Direct access (one_shot, two_shot): what it reads from peers' memory,
  // with no message's handshake: copied, or reduced straight from there.
  uint64_t reads = 0, read_B = 0;
  uint64_t read_reduces = 0, read_reduced_B = 0;
};

// What the receiver does with a message before its step can end: stores it,
// reduces it into its own buffer, or reduces it while the next message of
// the step is already in flight (a pipeline: only the last one's reduction
// shows in the time). Or, where ranks map each other's memory, no message
// at all: the receiver reads the bytes from the sender's memory (a copy),
// or reduces them from there into its own (one pass, nothing copied).
enum class Arrival { stored, reduced, reduced_in_flight, read, read_reduced };

// One message of a schedule: in which step who sends how many bytes to whom,
// and what the receiver does with it.
struct Message {
  int step, from, to;
  uint64_t bytes;
  Arrival arrival = Arrival::stored;
};

// The bytes that cross the busiest node's port, summed over the steps. Each
// node has one link, full duplex, shared by the ranks on it; in each step
// the link that carries the most to other nodes, or from them, is the one
// the step waits for. Messages between ranks on one node go through memory
// and are not counted. node_of_rank empty: one node, nothing crosses.
//
//   P = 4 on 2 nodes (n0: 0 1, n1: 2 3), a ring step (r sends c to r+1):
//   n0 sends c (1 -> 2) and receives c (3 -> 0): its port carries c each way,
//   where a critical path of ranks would also say c; a tree step in which
//   ranks 1 and 2 both send N to rank 0 on another node gives 2N.
uint64_t port_critical_B(const std::vector<Message>& messages,
                         const std::vector<int>& node_of_rank);

// The messages routed over a network of nodes (topology.hpp), step by step.
struct LinkLoad {
  uint64_t link_critical_B = 0;  // per step, the bytes on the busiest directed link, summed
  uint64_t hop_B = 0;            // every message's bytes times the links it crosses
};
// For `messages` of ranks placed on nodes by node_of_rank (empty: one node,
// nothing crosses). A node beyond the topology's is a UsageError.
LinkLoad link_load(const std::vector<Message>& messages, const std::vector<int>& node_of_rank,
                   const Topology& topology);

struct Traffic {
  uint64_t sent_max_rank_B = 0;  // bytes sent by the busiest sender
  uint64_t recv_max_rank_B = 0;  // bytes received by the busiest receiver
  uint64_t sent_total_B = 0;     // bytes sent, summed over all ranks
  uint64_t msgs_total = 0;       // messages sent, summed over all ranks
  uint64_t steps = 0;            // communication rounds in the schedule
  uint64_t critical_path_B = 0;  // bytes along the longest chain of dependent messages
  uint64_t port_critical_B = 0;  // through the busiest node's link, step by step (above)
  // Over the nodes' network (Nodes::network): the busiest link's bytes, step
  // by step, and every message's bytes times the links it crosses (link_load).
  uint64_t link_critical_B = 0;
  uint64_t hop_B = 0;
  uint64_t reduced_max_rank_B = 0;  // bytes reduced by the rank that reduces the most (model)
  // Direct access (the direct transport): the most bytes one rank read from
  // peers' memory, and wrote into it. Counted by the transport as it copies;
  // 0 on every other transport.
  uint64_t peer_read_max_rank_B = 0, peer_written_max_rank_B = 0;
  // Counted only, and not compared with a model: the bytes every rank's
  // copies and reductions read and wrote (Memory::moved_B), summed.
  uint64_t memory_moved_total_B = 0;
  // The schedule step by step as the time model sees it (time_model.hpp);
  // like the critical path, model-only.
  std::vector<StepLoad> path;
  // Every message, for port_critical_B once the placement is known (model-only).
  std::vector<Message> messages;

  // The counted transport cannot see the critical path; it is a model-only
  // figure. The port's bytes it counts from the messages each step really sent.
  bool same_counts(const Traffic& o) const {
    return sent_max_rank_B == o.sent_max_rank_B && recv_max_rank_B == o.recv_max_rank_B &&
           sent_total_B == o.sent_total_B && msgs_total == o.msgs_total && steps == o.steps &&
           port_critical_B == o.port_critical_B && link_critical_B == o.link_critical_B &&
           hop_B == o.hop_B && peer_read_max_rank_B == o.peer_read_max_rank_B &&
           peer_written_max_rank_B == o.peer_written_max_rank_B;
  }
  // The model over direct access: every message is read by its receiver
  // from its sender's memory, and nothing is written into a peer's.
  Traffic pulled() const {
    Traffic t = *this;
    t.peer_read_max_rank_B = recv_max_rank_B;
    return t;
  }
  // What a library's traffic is compared on: the bytes and the messages. Its
  // steps are not visible from outside (counted ones are each rank's
  // messages in the order sent), so neither are the port's bytes per step.
  bool same_bytes(const Traffic& o) const {
    return sent_max_rank_B == o.sent_max_rank_B && recv_max_rank_B == o.recv_max_rank_B &&
           sent_total_B == o.sent_total_B && msgs_total == o.msgs_total;
  }
};

// The time model's figures for a run too large to list message by message
// (P = 2^20): an algorithm's closed form of its Tally, for ranks in blocks of
// k per node (Nodes::blocks) and N bytes cut evenly: its steps do not depend
// on N and its bytes grow in proportion to it. The unit tests hold each one
// to its Tally's figures; bin/predict evaluates them.
struct ScaledTraffic {
  double steps = 0;
  double port_critical_B = 0;     // through the busiest node's link; 0 on one node
  double reduced_max_rank_B = 0;  // by the rank that reduces the most
};

// For a closed form that counts, one step at a time, messages of one size
// between ranks in blocks of k per node: the most any node sends to others
// or receives from them in the step. Touches only the nodes the step used,
// so a step of few messages at P = 2^20 costs few.
//
// Given a network (topology.hpp) other than the switch, the most messages
// on one of its links instead: each message routed.
class StepPorts {
 public:
  StepPorts(int P, int ranks_per_node) : k_(ranks_per_node), out_(P / k_ + 1), in_(P / k_ + 1) {}
  StepPorts(int P, int ranks_per_node, const Topology& network) : StepPorts(P, ranks_per_node) {
    if (network.kind != Topology::Kind::ideal_switch)
      links_ = std::make_unique<LinkCounter>(network, int((P + k_ - 1) / k_));
  }
  void message(int64_t from, int64_t to) {
    const int64_t a = k_ == 1 ? from : from / k_,
                  b = k_ == 1 ? to : to / k_;  // no division where it is free
    if (a == b) return;                        // through memory
    if (links_) return links_->add(int(a), int(b), 1);
    if (!out_[a]++) touched_.push_back(a);
    if (!in_[b]++) touched_.push_back(b);
    busiest_ = std::max({busiest_, out_[a], in_[b]});
  }
  // The step's busiest node's messages; and starts the next step.
  int64_t end_step() {
    if (links_) return int64_t(links_->end_step());
    for (int64_t n : touched_) out_[n] = in_[n] = 0;
    touched_.clear();
    return std::exchange(busiest_, 0);
  }

 private:
  int64_t k_;
  std::vector<int64_t> out_, in_, touched_;
  int64_t busiest_ = 0;
  std::unique_ptr<LinkCounter> links_;
};

// A model written as the schedule's list of messages: who sends how many
// bytes to whom at which step. The critical path is taken as the sum, over
// steps, of the most bytes one rank sends another in the step (a message
// cut in segments counts whole): every step waits for its slowest.
class Tally {
 public:
  explicit Tally(int P) : sent_(P), recv_(P), reduced_(P) {}
  void message(int step, int from, int to, uint64_t bytes, Arrival arrival = Arrival::stored) {
    sent_[from] += bytes;
    recv_[to] += bytes;
    if (arrival != Arrival::stored && arrival != Arrival::read) reduced_[to] += bytes;
    messages_.push_back({step, from, to, bytes, arrival});
    ++msgs_;
    Step& s = steps_[step];
    s.widest = std::max(s.widest, s.pair_B[{from, to}] += bytes);
    if (arrival == Arrival::read) ++s.ranks[to].reads, s.ranks[to].read_B += bytes;
    if (arrival == Arrival::read_reduced)
      ++s.ranks[to].read_reduces, s.ranks[to].read_reduced_B += bytes;
    if (arrival == Arrival::read || arrival == Arrival::read_reduced) return;
    ++s.ranks[from].msgs;
    s.ranks[from].port_B += bytes;  // sent; received below, kept apart until traffic()
    s.recv_B[to] += bytes;
    if (arrival == Arrival::reduced) ++s.ranks[to].reduces, s.ranks[to].reduced_B += bytes;
    if (arrival == Arrival::reduced_in_flight)
      ++s.ranks[to].in_flight, s.ranks[to].in_flight_B += bytes;
  }
  Traffic traffic() const {
    Traffic t;
    for (size_t r = 0; r < sent_.size(); ++r) {
      t.sent_max_rank_B = std::max(t.sent_max_rank_B, sent_[r]);
      t.recv_max_rank_B = std::max(t.recv_max_rank_B, recv_[r]);
      t.sent_total_B += sent_[r];
      t.reduced_max_rank_B = std::max(t.reduced_max_rank_B, reduced_[r]);
    }
    t.messages = messages_;
    t.msgs_total = msgs_;
    t.steps = steps_.empty() ? 0 : uint64_t(steps_.rbegin()->first) + 1;
    for (const auto& [index, s] : steps_) {
      t.critical_path_B += s.widest;
      StepLoad most;
      for (const auto& [r, received_B] : s.recv_B) most.port_B = std::max(most.port_B, received_B);
      for (const auto& [r, mine] : s.ranks) {
        most.msgs = std::max(most.msgs, mine.msgs);
        most.port_B = std::max(most.port_B, mine.port_B);
        most.reduces = std::max(most.reduces, mine.reduces);
        most.reduced_B = std::max(most.reduced_B, mine.reduced_B);
        most.in_flight = std::max(most.in_flight, mine.in_flight);
        most.in_flight_B = std::max(most.in_flight_B, mine.in_flight_B);
        most.reads = std::max(most.reads, mine.reads);
        most.read_B = std::max(most.read_B, mine.read_B);
        most.read_reduces = std::max(most.read_reduces, mine.read_reduces);
        most.read_reduced_B = std::max(most.read_reduced_B, mine.read_reduced_B);
      }
      t.path.push_back(most);
    }
    return t;
  }

 private:
  struct Step {  // one step, for the ranks it touches
    std::map<int, StepLoad> ranks;
    std::map<int, uint64_t> recv_B;
    std::map<std::pair<int, int>, uint64_t> pair_B;  // from, to
    uint64_t widest = 0;
  };
  std::vector<uint64_t> sent_, recv_, reduced_;
  std::vector<Message> messages_;
  uint64_t msgs_ = 0;
  std::map<int, Step> steps_;
};

}  // namespace commlab
