#include "traffic.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <set>

#include "common.hpp"
#include "core/vocabulary/names.hpp"

namespace commlab::lab {

namespace {

// The counted figures a question may ask for, by their CSV names.
const std::pair<const char*, uint64_t Traffic::*> kFields[] = {
    {"sent_max_B", &Traffic::sent_max_rank_B},
    {"recv_max_B", &Traffic::recv_max_rank_B},
    {"sent_total_B", &Traffic::sent_total_B},
    {"msgs", &Traffic::msgs_total},
    {"steps", &Traffic::steps},
    {"link_critical_B", &Traffic::link_critical_B},
    {"hop_B", &Traffic::hop_B}};
// What each is, for a student who gave one where another was asked.
const std::pair<const char*, const char*> kFieldWords[] = {
    {"sent_max_B", "what the busiest sender sends"},
    {"recv_max_B", "what the busiest receiver receives"},
    {"sent_total_B", "what all ranks send together"},
    {"msgs", "the number of messages"},
    {"steps", "the number of steps"},
    {"link_critical_B", "the busiest link's bytes in each step, summed over the steps"},
    {"hop_B", "every message's bytes times the links it crosses"}};

const char* field_words(const std::string& name) {
  for (const auto& [field, words] : kFieldWords)
    if (name == field) return words;
  return "";
}
uint64_t field(const Question& q, const Traffic& t) {
  const std::string wanted = need<std::string>(q, "field");
  for (const auto& [name, member] : kFields)
    if (wanted == name) return t.*member;
  throw bad(q, "unknown field '" + wanted +
                   "' (use sent_max_B, recv_max_B, sent_total_B, msgs, steps, link_critical_B "
                   "or hop_B)");
}

// A phase as a sentence names it: "fold", not "fold (the ranks past a power of two)".
std::string phase_word(Phase p) {
  const std::string n = name(p);
  return n.substr(0, n.find(" ("));
}

// What each rank sent, received and how many messages it sent, counting the
// messages of one phase only where `only` is given; and the steps they took.
struct PerRank {
  std::vector<uint64_t> sent, recv, msgs;
  uint64_t steps = 0;
  LinkLoad links;  // over the question's network, where it names one
  uint64_t figure(const std::string& field) const {
    if (field == "link_critical_B") return links.link_critical_B;
    if (field == "hop_B") return links.hop_B;
    if (field == "sent_max_B") return *std::max_element(sent.begin(), sent.end());
    if (field == "recv_max_B") return *std::max_element(recv.begin(), recv.end());
    if (field == "sent_total_B") return std::accumulate(sent.begin(), sent.end(), uint64_t(0));
    if (field == "msgs") return std::accumulate(msgs.begin(), msgs.end(), uint64_t(0));
    return steps;
  }
};
PerRank per_rank(const InProcessResult& r, std::optional<Phase> only, const Nodes& nodes) {
  const size_t P = r.outputs.size();
  PerRank t{std::vector<uint64_t>(P), std::vector<uint64_t>(P), std::vector<uint64_t>(P), 0, {}};
  std::set<int> steps;
  std::vector<Message> sent;
  for (const TraceEntry& m : r.sent) {
    if (only && m.phase != *only) continue;
    t.sent[size_t(m.from)] += m.bytes, t.recv[size_t(m.to)] += m.bytes, ++t.msgs[size_t(m.from)];
    steps.insert(m.step);
    sent.push_back({m.step, m.from, m.to, m.bytes});
  }
  t.steps = steps.size();
  if (!nodes.empty()) t.links = link_load(sent, nodes.on_network(), nodes.network());
  return t;
}

// One rank's figure where the busiest's, or all ranks', was asked: each
// value once, with the ranks that have it.
std::vector<Slip> one_rank_slips(const std::vector<uint64_t>& per, bool sends,
                                 const std::string& then) {
  std::map<uint64_t, std::vector<int>> ranks;
  for (size_t k = 0; k < per.size(); ++k) ranks[per[k]].push_back(int(k));
  std::vector<Slip> s;
  for (const auto& [v, who] : ranks)
    s.push_back({{double(v)},
                 "",
                 fmt::format("that is what {} {}{}: {}", ranks_text(who),
                             sends ? "send" : "receive", who.size() == 1 ? "s" : " each", then)});
  return s;
}

// One phase counted alone: each phase's figure, the phases that share one named together.
std::vector<Slip> phase_slips(const InProcessResult& r, const std::string& asked,
                              const Nodes& nodes) {
  std::set<Phase> phases;
  for (const TraceEntry& m : r.sent)
    if (m.phase != Phase::none) phases.insert(m.phase);
  if (phases.size() < 2) return {};
  std::map<uint64_t, std::vector<Phase>> alone;
  for (Phase p : phases) alone[per_rank(r, p, nodes).figure(asked)].push_back(p);
  auto names = [](const std::vector<Phase>& list, const char* joint) {
    std::string s;
    for (size_t i = 0; i < list.size(); ++i)
      s += (i == 0 ? "the " : i + 1 == list.size() ? joint : ", the ") + phase_word(list[i]);
    return s + (list.size() > 1 && std::string(joint) == " and the " ? " phases" : " phase");
  };
  std::vector<Slip> s;
  for (const auto& [v, these] : alone) {
    std::vector<Phase> others;
    for (Phase p : phases)
      if (std::find(these.begin(), these.end(), p) == these.end()) others.push_back(p);
    s.push_back({{double(v)},
                 "",
                 others.empty()
                     ? fmt::format("you counted one phase alone ({}): every phase counts",
                                   names(these, " or the "))
                     : fmt::format("you counted only {}: {} count{} too", names(these, " or the "),
                                   names(others, " and the "), others.size() > 1 ? "" : "s")});
  }
  return s;
}

// The slips of a counted figure that the messages themselves show: both
// directions counted, one rank's where another's is asked, one phase alone.
std::vector<Slip> message_slips(const InProcessResult& r, const std::string& asked,
                                const Nodes& nodes) {
  const PerRank all = per_rank(r, std::nullopt, nodes);
  std::vector<Slip> s;
  if (asked == "sent_max_B" || asked == "recv_max_B") {
    const bool sent = asked == "sent_max_B";
    uint64_t both = 0;
    for (size_t k = 0; k < all.sent.size(); ++k) both = std::max(both, all.sent[k] + all.recv[k]);
    s.push_back({{double(both)},
                 "",
                 sent ? "you counted what the rank receives as well as what it sends: the "
                        "question asks only what leaves it"
                      : "you counted what the rank sends as well as what it receives: the "
                        "question asks only what arrives at it"});
    auto mine =
        one_rank_slips(sent ? all.sent : all.recv, sent,
                       sent ? "which rank sends the most?" : "which rank receives the most?");
    s.insert(s.end(), mine.begin(), mine.end());
  } else if (asked == "sent_total_B" || asked == "msgs") {
    s.push_back({{2.0 * all.figure(asked)},
                 "",
                 "you counted every message twice, once where it leaves and once where it "
                 "arrives: count each where it leaves"});
    auto mine = one_rank_slips(asked == "msgs" ? all.msgs : all.sent, true,
                               "the question asks all ranks together");
    s.insert(s.end(), mine.begin(), mine.end());
  }
  const std::vector<Slip> phases = phase_slips(r, asked, nodes);
  s.insert(s.end(), phases.begin(), phases.end());
  return s;
}

}  // namespace

// A counted figure: another field of the same run (received for sent, one
// rank for all), what the messages show, and the slips of the number.
Expected traffic(const Question& q) {
  const InProcessResult r = run(q, "algorithm", Fill::pattern, false);
  const std::string asked = need<std::string>(q, "field");
  const bool bytes = asked.size() > 2 && asked.substr(asked.size() - 2) == "_B";
  Expected e = number(double(field(q, r.counted)), bytes ? "B" : "", q.text);
  std::vector<Slip> first;
  // The links' figures are slips only where the question names a network:
  // elsewhere they are 0, and every rank on one node.
  const bool network = q.spec.contains("network");
  for (const auto& [name, member] : kFields)
    if (name != asked && (std::string(name).back() == 'B') == bytes &&
        (network || (std::string(name) != "link_critical_B" && std::string(name) != "hop_B")))
      first.push_back({{double(r.counted.*member)},
                       "",
                       fmt::format("that is {} ({}): the question asks {}", name, field_words(name),
                                   field_words(asked))});
  const std::vector<Slip> shown =
      message_slips(r, asked, nodes_of(q, int(need_within(q, "P", 1, 64))));
  first.insert(first.end(), shown.begin(), shown.end());
  if (q.spec.contains("network") && asked == "link_critical_B")
    first.push_back({{double(r.counted.port_critical_B)},
                     "",
                     "that is the busiest node's port, as on one switch: on this network a "
                     "message loads every link on its way, and links carry other nodes' messages "
                     "too"});
  e.slips.insert(e.slips.begin(), first.begin(), first.end());
  return e;
}

}  // namespace commlab::lab
