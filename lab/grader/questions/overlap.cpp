#include "overlap.hpp"

#include "common.hpp"
#include "harness/overlap.hpp"

namespace commlab::lab {

// The time model's overlap of the algorithm replayed non-blocking with
// `probes` test calls (harness/overlap.hpp, model_overlap_pct), in percent
// to a tenth: its rounds are its counted steps, one exchange each in the
// schedules the labs ask about (the ring, recursive doubling).
Expected overlap(const Question& q) {
  const InProcessResult r = run(q, "algorithm", Fill::pattern, false);
  const int probes = int(need_within(q, "probes", 0, 1000));
  Expected e = number(model_overlap_pct(int(r.counted.steps), probes), "", q.text);
  // To a tenth: 33.3 for a third; a slip within 0.3% of its figure (16.7 for 16.67).
  e.rel_tolerance = 0.003, e.abs_tolerance = 0.05;
  e.slips.push_back(
      {{e.numbers.front() / 100}, "", "that is a fraction: the question asks percent"});
  return e;
}

}  // namespace commlab::lab
