#include "buffer.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "common.hpp"

namespace commlab::lab {

namespace {

// Another rank's buffer (or result): the ranks that hold the same named together.
std::vector<Slip> rank_slips(const std::vector<std::vector<double>>& of_rank, int rank,
                             const char* what) {
  std::vector<Slip> s;
  std::vector<bool> said(of_rank.size());
  for (size_t other = 0; other < of_rank.size(); ++other) {
    if (int(other) == rank || said[other]) continue;
    std::vector<int> same;
    for (size_t k = other; k < of_rank.size(); ++k)
      if (int(k) != rank && of_rank[k] == of_rank[other]) same.push_back(int(k)), said[k] = true;
    s.push_back({of_rank[other], "",
                 fmt::format("that is the {} of {}: the question asks rank {}'s", what,
                             ranks_text(same), rank)});
  }
  return s;
}

}  // namespace

// One rank's buffer after a step: another step's or another rank's, the
// buffer before the first step or the result after the last, say which.
Expected buffer(const Question& q) {
  const InProcessResult r = run(q, "algorithm", Fill::rank, true);
  const int P = int(r.outputs.size());
  const int rank = int(need_within(q, "rank", 0, P - 1));
  Expected e;
  e.list = true;
  auto after = [&](int who, int when) {
    const Snapshot* s = state_after(r.snapshots[who], when);
    return s ? values(DType::float32, *s) : std::vector<double>{};
  };
  const int steps = int(r.counted.steps);
  if (!q.spec.contains("step")) {
    e.numbers = r.outputs[rank];
    e.slips = rank_slips(r.outputs, rank, "result");
    return e;
  }
  const int step = int(need_within(q, "step", 0, steps - 1));
  e.numbers = after(rank, step);
  if (e.numbers.empty()) throw std::logic_error("no buffer state of rank " + std::to_string(rank));
  // The result first: a buffer that already holds it is better named so.
  std::vector<int> order = {steps - 1};
  for (int when = -1; when < steps - 1; ++when) order.push_back(when);
  for (int when : order)
    if (when != step)
      e.slips.push_back({after(rank, when), "",
                         when < 0 ? "that is the buffer before the first step: which step does the "
                                    "question ask?"
                         : when == steps - 1
                             ? "that is the result, after the last step: which step does the "
                               "question ask?"
                             : fmt::format("that is the buffer after step {}: which step does "
                                           "the question ask? (steps count from 0)",
                                           when)});
  std::vector<std::vector<double>> at_step;
  for (int other = 0; other < P; ++other) at_step.push_back(after(other, step));
  const std::vector<Slip> others = rank_slips(at_step, rank, "buffer");
  e.slips.insert(e.slips.end(), others.begin(), others.end());
  // The same buffer twice (a rank idle in a step): the earlier slip says it.
  for (size_t i = e.slips.size(); i-- > 0;)
    for (size_t j = 0; j < i; ++j)
      if (e.slips[j].numbers == e.slips[i].numbers) {
        e.slips.erase(e.slips.begin() + long(i));
        break;
      }
  return e;
}

}  // namespace commlab::lab
