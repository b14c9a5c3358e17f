#include "ps_bytes.hpp"

#include <algorithm>

#include "common.hpp"
#include "ps_sim/training.hpp"

namespace commlab::lab {

// ps_sim's exact bytes per iteration: the busiest server's out, or a worker's.
Expected ps_bytes(const Question& q) {
  ps::Config c;
  c.mode = need<std::string>(q, "mode") == "colocated" ? ps::Mode::colocated : ps::Mode::ps;
  const int ranks = int(need_within(q, "ranks", 2, 4096));
  c.S = c.mode == ps::Mode::ps ? int(need_within(q, "servers", 1, ranks - 1)) : ranks;
  c.P = c.mode == ps::Mode::ps ? ranks - c.S : ranks;
  const int classes = int(need_within(q, "classes", 2, 1 << 20, 16));
  const int64_t model_B = need_within(q, "model_B", 8 * classes, int64_t(1) << 32);
  c.shape = ps::ModelShape::of_bytes(size_t(model_B), classes);
  c.placement = ps::parse_placement(optional<std::string>(q, "placement", "even"));
  c.iters = 1;
  const auto shards = ps::place(c.placement, c.shape.params(), c.shape.row(), c.S);
  const bool server = need<std::string>(q, "role") == "server";
  uint64_t most = 0;
  for (int r = 0; r < ranks; ++r)
    if (auto b = ps::expected_bytes(c, shards, r))
      most = std::max(most, server ? b->server_out : b->worker_out);
  return number(double(most), "B", q.text);
}

}  // namespace commlab::lab
