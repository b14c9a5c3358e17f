#include "links.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <vector>

#include "core/vocabulary/usage_error.hpp"
#include "report.hpp"
#include "rows.hpp"
#include "table.hpp"

namespace commlab {

namespace {

// Bandwidth each way of one node's (or GPU's) link, as the vendor states it;
// alpha, the time a small message takes one way, as measured or modelled in
// the source named (docs/predict.md cites each in full). The GPU links take
// NCCL's own per-step latency for its ring with small messages: NCCL's tuner
// has one figure per kind of link, not per generation.
const std::vector<LinkModel>& links() {
  static const std::string nccl = "NCCL v2.30.7-1 src/graph/tuning.cc hwLat, ring, LL";
  static const std::vector<LinkModel> all = {
      {"pcie3", 1.0, 15.75, "PCIe gen3 x16, GPU to GPU", nccl + " (PCI)"},
      {"pcie4", 1.0, 31.5, "PCIe gen4 x16, GPU to GPU", nccl + " (PCI)"},
      {"nvlink-v100", 0.6, 150, "NVLink 2 on V100: 6 links x 25 GB/s each way", nccl + " (NVLINK)"},
      {"nvlink-a100", 0.6, 300, "NVLink 3 on A100: 12 links x 25 GB/s each way (50 both ways)",
       nccl + " (NVLINK)"},
      {"efa-400", 17.2, 50, "AWS EFA, 400 Gbit/s per node (p4d)",
       "osu_latency 0 B, c5n.18xlarge (EFA, no p4d figure published), aws-parallelcluster test "
       "results"},
      {"ib-hdr", 1.47, 25, "InfiniBand HDR, 200 Gbit/s",
       "osu_multi_lat 0 B, host memory, ABCI 2.0 (aistabci/abci2.0benchmark)"},
      {"ib-ndr", 2.0, 50, "InfiniBand NDR, 400 Gbit/s",
       "RDMA latency < 2 us at 1 B as stated, not measured: Azure HBv4 (Microsoft Learn)"},
      {"slingshot-200", 1.8, 25, "HPE Slingshot-11, 200 Gbit/s",
       "osu_latency 8 B, host memory, 2 nodes, LUMI-C reference (lumi-reframe-tests)"},
      {"1gbe", 55, 0.125, "Ethernet 1 Gbit/s, kernel TCP",
       "half of a 110 us TCP round trip, 100 B (serverfault 791539)"},
      {"10gbe", 20, 1.25, "Ethernet 10 Gbit/s, kernel TCP",
       "Hurwitz and Feng, Hot Interconnects 2003"},
      {"100gbe", 0.92, 12.5, "Ethernet 100 Gbit/s, RoCE v2",
       "ib_send_lat 8 B, ConnectX-5, no switch (morrismeyer/warpforge)"},
  };
  return all;
}

}  // namespace

LinkModel named_link(const std::string& name) {
  std::string choices;
  for (const LinkModel& l : links()) {
    if (l.name == name) return l;
    choices += (choices.empty() ? "" : ", ") + l.name;
  }
  throw ReportError("--link " + name + ": no such link (choose from " + choices + ")");
}

std::string links_table() {
  MarkdownTable table({"link", "alpha (us)", "GB/s each way", "what", "source"});
  for (const LinkModel& l : links())
    table.add_row(l.name, fmt::format("{:g}", l.alpha_us), fmt::format("{:g}", l.GBps), l.what,
                  l.source);
  return table.str();
}

std::string describe(const LinkModel& l) {
  return fmt::format("{}: alpha {:g} us, {:g} GB/s each way, {} ({})", l.name, l.alpha_us, l.GBps,
                     l.gamma_GBps > 0 ? fmt::format("reducing at {:g} GB/s", l.gamma_GBps)
                                      : std::string("reductions free"),
                     l.what);
}

namespace {

// alpha, beta and gamma fitted to a results folder's rows: the report's
// summary fit (its first device and dtype), from runs across nodes, since
// on one node the fit's bytes are a critical path, not a link's.
LinkModel fitted_link(const std::string& folder) {
  namespace fs = std::filesystem;
  const std::string rows_csv = (fs::path(folder) / "rows.csv").string();
  if (!fs::exists(rows_csv)) throw UsageError("--fit " + folder + ": no rows.csv there");
  const std::vector<Measurement> rows = read_rows(rows_csv);
  if (std::none_of(rows.begin(), rows.end(),
                   [](const Measurement& m) { return m.nodes.value_or(1) > 1; }))
    throw UsageError("--fit " + folder +
                     ": every run was on one node, where no byte crosses a link; "
                     "fit a folder measured across nodes");
  const auto fits = formulas_fits(rows, read_machine(folder));
  const std::string large = human_bytes(kLargeMessage_B);
  if (fits.empty() || fits.begin()->second.at(1) <= 0)
    throw UsageError("--fit " + folder + ": no hand-written all-reduce rows of " + large +
                     " or more to fit");
  const auto& [data, f] = *fits.begin();
  if (f.n < 3)
    throw UsageError(
        fmt::format("--fit {}: {} rows of {} or more; alpha, beta and gamma need 3 at least",
                    folder, f.n, large));
  const std::string label = fs::weakly_canonical(folder).filename().string();
  LinkModel fitted{
      "fit:" + label, f.at(0), 1e-3 / f.at(1),
      fmt::format("fitted to {}: {} {}, its {} hand-written all-reduce rows of {} or more "
                  "(one rank per node, where some runs had it); R^2 {:.3f}, leave-one-out "
                  "error {:.0f}% median, {:.0f}% at most",
                  rows_csv, data.first, data.second, f.n, large, f.r2, f.loo_median * 100,
                  f.loo_max * 100),
      ""};
  if (f.at(2) > 0) fitted.gamma_GBps = 1e-3 / f.at(2);
  return fitted;
}

}  // namespace

// A named link's alpha or bandwidth overridden: a site's own measurement of
// a named fabric, said in its name.
LinkModel chosen_link(const std::string& name, std::optional<double> alpha_us,
                      std::optional<double> GBps, const std::string& folder) {
  const bool by_hand = alpha_us || GBps;
  if (int(!name.empty()) + int(!folder.empty()) + int(by_hand && name.empty()) != 1 ||
      (by_hand && !folder.empty()))
    throw UsageError(
        "say which link, once: --link NAME (--links lists them; --alpha or --bandwidth beside "
        "it replace that figure), --alpha US --bandwidth GBPS, or --fit FOLDER");
  if (!folder.empty()) return fitted_link(folder);
  if (name.empty()) {
    if (!alpha_us || !GBps) throw UsageError("--alpha and --bandwidth go together");
    return {"by-hand", *alpha_us, *GBps, "given on the command line", ""};
  }
  LinkModel link = named_link(name);
  if (!by_hand) return link;
  std::string given;
  if (alpha_us) link.alpha_us = *alpha_us, given += fmt::format("alpha={:g}us", *alpha_us);
  if (GBps)
    link.GBps = *GBps,
    given += fmt::format("{}bandwidth={:g}GBps", given.empty() ? "" : ";", *GBps);
  link.name += "(" + given + ")";
  link.what += "; " + given + " given on the command line";
  return link;
}

}  // namespace commlab
