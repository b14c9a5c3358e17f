// The links bin/predict knows by name: each one's latency per step (alpha)
// and bandwidth each way (1/beta), with the public source each figure comes
// from (docs/predict.md lists them). A named link's reductions are free
// unless --gamma-bandwidth says otherwise.
#pragma once
#include <optional>
#include <string>

#include "fit.hpp"

namespace commlab {

struct LinkModel {
  std::string name;
  double alpha_us = 0;    // per step of the schedule
  double GBps = 0;        // each way, per node's link
  std::string what;       // how the figures were had
  std::string source;     // where they are published
  double gamma_GBps = 0;  // reducing; 0: free

  // The report's model with these figures: alpha, beta, gamma (us per step,
  // per port byte, per reduced byte).
  Fit fit() const {
    Fit f;
    f.coef = {alpha_us, 1e-3 / GBps, gamma_GBps > 0 ? 1e-3 / gamma_GBps : 0};
    return f;
  }
};

// By name ("ib-hdr"); a UsageError naming the choices otherwise.
LinkModel named_link(const std::string& name);
// predict's link: named (with alpha or the bandwidth replaced where given),
// by hand (alpha and bandwidth), or fitted to a results folder measured
// across nodes (--fit); exactly one of them, else a UsageError.
LinkModel chosen_link(const std::string& name, std::optional<double> alpha_us,
                      std::optional<double> GBps, const std::string& folder);
// Every named link with its figures and sources, as a table for --links.
std::string links_table();
// "ib-hdr: alpha 1.0 us, 25 GB/s each way, reductions free (...)"
std::string describe(const LinkModel& link);

}  // namespace commlab
