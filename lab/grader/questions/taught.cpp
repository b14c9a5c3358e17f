#include "taught.hpp"

#include "analysis/formulas.hpp"
#include "common.hpp"

namespace commlab::lab {

// In the report's wording (analysis/formulas.hpp): the counted figures by
// their names, whole-element chunks allowed their element each.
Expected taught(const Question& q) {
  const CollectiveAlgorithm& a = algorithm(q, operation(q), "algorithm");
  if (!a.taught_T) throw bad(q, a.name + " has no taught formula");
  const InProcessResult r = run(q, "algorithm", Fill::pattern, false);
  const int P = int(r.outputs.size());
  const double T = a.taught_T(P, double(need<int64_t>(q, "count") * 4));
  const Traffic& c = r.counted;
  const Traffic model = a.model({P, size_t(need<int64_t>(q, "count")), 4, 0});
  const std::vector<Quantity> counted = {{"sent_max_B", double(c.sent_max_rank_B)},
                                         {"recv_max_B", double(c.recv_max_rank_B)},
                                         {"sent_total_B / P", double(c.sent_total_B) / P},
                                         {"sent_total_B", double(c.sent_total_B)},
                                         {"critical path", double(model.critical_path_B)},
                                         {"half the critical path", model.critical_path_B / 2.0}};
  Expected e;
  e.words = taught_is(T, counted, P, 4).matches;
  if (e.words.empty()) e.words = {"none"};
  return e;
}

}  // namespace commlab::lab
