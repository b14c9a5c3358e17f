#include "schedule.hpp"

#include <stdexcept>

namespace commlab {

void ScheduleLog::copied(void* dst, const void* src, size_t bytes) {
  Action a{Act::copy};
  a.dst = dst, a.a = src, a.bytes = bytes;
  actions_.push_back(a);
}

void ScheduleLog::reduced(const Reduction& red, void* dst, const void* x, const void* y,
                          size_t count) {
  Action a{Act::reduce};
  a.dst = dst, a.a = x, a.b = y, a.bytes = count, a.red = red;
  actions_.push_back(a);
}

Schedule ScheduleLog::compile() const {
  Schedule s = commlab::compile(actions_);
  if (!why_.empty()) s.cannot_replay = why_;
  return s;
}

Schedule compile(const std::vector<Action>& actions) {
  Schedule s;
  Round open;
  for (const Action& a : actions) {
    if (a.act == Act::wait) {
      if (!open.start.empty()) s.rounds.push_back(std::move(open));
      open = Round{};
    } else if (a.act == Act::land) {
      if (s.rounds.empty() || !open.start.empty())
        throw std::logic_error("a reduction on landing that no wait came before");
      s.rounds.back().finish.push_back(a);
    } else {
      open.posts += a.act == Act::send || a.act == Act::recv;
      open.start.push_back(a);
    }
  }
  if (!open.start.empty()) s.rounds.push_back(std::move(open));
  return s;
}

}  // namespace commlab
