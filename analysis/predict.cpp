// predict: what-if times of the hand-written all-reduce algorithms, without
// running MPI, for any P (to 2^20), N, ranks per node and link. The time is
// the report's port model (fit.hpp's Fit::predict over the same three
// regressors), t = alpha x steps + beta x bytes through the busiest node's
// link + gamma x bytes the busiest rank reduces, and the figures are each
// algorithm's closed form (at_scale), which the unit tests hold to its
// message-by-message model. The links and where their figures come from:
// links.hpp and docs/predict.md. On one node (--one-node, or --fit of a
// one-node folder) the resource is its memory instead: node_memory.hpp.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <limits>

#include "core/comm/errors.hpp"
#include "core/comm/topology.hpp"
#include "harness/cli_app.hpp"
#include "harness/options.hpp"
#include "harness/results.hpp"
#include "harness/version.hpp"
#include "links.hpp"
#include "node_memory.hpp"
#include "operations/predicted.hpp"
#include "output.hpp"
#include "report.hpp"

namespace commlab {
namespace {

// The largest N predicted: petabytes are past any all-reduce, and every
// size up to here is exact in a double, and so in the CSV.
constexpr double kMaxBytes = 0x1p50;

struct Settings {
  std::vector<int> Ps;
  std::vector<size_t> sizes_B;
  int ranks_per_node = 1;
  // The ranks share one GPU over direct access: the "link" is its memory,
  // and a step's bytes are every rank's moved in it (time-model.md).
  bool shared_gpu = false;
  double call_us =
      0;  // --call: a shared GPU's call apart from its steps (a launch and a host wait)
  // Behind the ports: the switch (none), or a ring or torus of nodes whose
  // busiest link is charged (core/comm/topology.hpp).
  std::optional<Topology> topology;
  LinkModel link;
  // Every rank on one node, a core each, on host buffers: its memory is the
  // resource, not a link (node_memory.hpp).
  std::optional<NodeMemory> node;
  std::vector<const CollectiveAlgorithm*> algorithms;
  std::string left_out;  // algorithms "all" leaves out here, and why
  std::optional<WholeFile> csv;
};

// One prediction: the table's and the CSV's row fields.
struct Row {
  int P;
  double bytes;
  const CollectiveAlgorithm* algorithm;
  ScaledTraffic figures;  // its port_critical_B: the bytes charged (the busiest link's)
  double port_B;          // the busiest node's port, whatever the network (0 on a shared GPU)
  double t_us;
};

double time_us(const LinkModel& link, const ScaledTraffic& s) {
  return link.fit().predict({s.steps, s.port_critical_B, s.reduced_max_rank_B});
}

// -P: items "P" or "MIN:MAX" (MIN, 2 MIN, 4 MIN, ... up to MAX), each P 1 to
// 2^20; sorted, a repeat dropped.
std::vector<int> parse_ranks(const std::string& text) {
  constexpr size_t kMaxP = size_t{1} << 20;
  auto one = [&](const std::string& s) {
    const size_t P = parse_count(s, "-P");
    if (P < 1 || P > kMaxP) throw UsageError(fmt::format("-P {}: P must be 1 to {}", s, kMaxP));
    return int(P);
  };
  std::vector<int> Ps;
  for (const std::string& item : parse_list<std::string>("-P", text, {}, Repeats::dropped,
                                                         [](const std::string& i) { return i; })) {
    const auto colon = item.find(':');
    if (colon == std::string::npos) {
      Ps.push_back(one(item));
      continue;
    }
    const int lo = one(item.substr(0, colon)), hi = one(item.substr(colon + 1));
    if (lo > hi) throw UsageError(fmt::format("-P {}: the first must not exceed the last", item));
    for (int64_t P = lo; P <= hi; P *= 2) Ps.push_back(int(P));
  }
  std::sort(Ps.begin(), Ps.end());
  Ps.erase(std::unique(Ps.begin(), Ps.end()), Ps.end());
  return Ps;
}

// A crossover size to three figures: "16.1 MiB".
std::string about_bytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int u = 0;
  while (bytes >= 1024 && u < 5) bytes /= 1024, ++u;
  return fmt::format("{:.3g} {}", bytes, units[u]);
}

// At one P, the algorithm fastest for each N from 1 B to kMaxBytes: the
// lower envelope of the lines t(N) = alpha x steps + N x (time per byte),
// since the closed forms' steps do not depend on N and their bytes grow in
// proportion to it. Slopes within a relative 1e-9 are parallel lines that
// never cross, not a crossing far away made of rounding.
std::string crossovers(const Settings& s, int P, const std::vector<ScaledTraffic>& per_B) {
  if (P == 1) return "P = 1: one rank already holds the sum; nothing to do\n";
  struct Line {
    const CollectiveAlgorithm* a;
    double at0_us, per_B_us;
  };
  std::vector<Line> lines;
  for (size_t i = 0; i < s.algorithms.size(); ++i) {
    const double at0 = time_us(s.link, {per_B[i].steps, 0, 0});
    lines.push_back({s.algorithms[i], at0, time_us(s.link, per_B[i]) - at0});
  }
  auto faster_at_1B = [](const Line& x, const Line& y) {
    const double tx = x.at0_us + x.per_B_us, ty = y.at0_us + y.per_B_us;
    return tx < ty || (tx == ty && x.per_B_us < y.per_B_us);
  };
  const Line* best = &*std::min_element(lines.begin(), lines.end(), faster_at_1B);
  std::string text = fmt::format("P = {}: {}", P, best->a->name);
  for (double from_B = 1;;) {
    const Line* next = nullptr;
    double at_B = kMaxBytes;
    for (const Line& l : lines)
      if (l.per_B_us < best->per_B_us * (1 - 1e-9)) {
        const double cross = (l.at0_us - best->at0_us) / (best->per_B_us - l.per_B_us);
        if (cross >= from_B && cross < at_B) at_B = cross, next = &l;
      }
    if (!next) return text + (from_B == 1 ? " at every size\n" : "\n");
    text += fmt::format(" up to {}, then {}", about_bytes(at_B), next->a->name);
    best = next, from_B = at_B;
  }
}

std::string table(const Settings& s, const std::vector<Row>& rows) {
  std::string t = fmt::format("{:>8} {:>12}", "P", "bytes");
  for (const CollectiveAlgorithm* a : s.algorithms) t += fmt::format(" {:>20}", a->name + "_us");
  t += fmt::format("  {}\n", "fastest");
  for (size_t i = 0; i < rows.size(); i += s.algorithms.size()) {
    t += fmt::format("{:>8} {:>12}", rows[i].P, human_bytes(uint64_t(rows[i].bytes)));
    const Row* best = &rows[i];
    for (size_t j = i; j < i + s.algorithms.size(); ++j) {
      t += fmt::format(" {:>20.2f}", rows[j].t_us);
      if (rows[j].t_us < best->t_us) best = &rows[j];
    }
    t += fmt::format("  {}\n", rows[i].P == 1 ? "-" : best->algorithm->name);
  }
  return t;
}

// Every row names its network: the link, the topology of the nodes, the
// ranks per node (a figure without them cannot be told from another's).
// port_critical_B: the busiest node's port; link_critical_B: the busiest
// link, which is charged (the port's on the switch; a shared GPU's memory;
// on one node the busiest rank's bytes moved in memory, step by step).
std::string csv_rows(const Settings& s, const std::vector<Row>& rows) {
  const std::string network = s.shared_gpu ? "shared-gpu"
                              : s.node     ? "one-node"
                              : s.topology ? s.topology->describe()
                                           : "switch";
  const std::string link = s.node ? s.node->name : s.link.name;
  std::string t =
      "link,topology,P,ranks_per_node,bytes,algorithm,steps,port_critical_B,link_critical_B,"
      "reduced_max_rank_B,t_us\n";
  for (const Row& r : rows)
    t += fmt::format("{},{},{},{},{:.0f},{},{:.0f},{:.0f},{:.0f},{:.0f},{:.9g}\n", csv_text(link),
                     csv_text(network), r.P, s.node ? r.P : s.ranks_per_node, r.bytes,
                     r.algorithm->name, r.figures.steps, r.port_B, r.figures.port_critical_B,
                     r.figures.reduced_max_rank_B, r.t_us);
  return t;
}

// Each algorithm's figures at one P for N = 1 B, computed once: at_scale's
// bytes grow in proportion to N and its steps do not depend on it, so a
// long list of sizes at P = 2^20 costs no more than one.
// On a shared GPU, from each algorithm's exact model at 1024 float32 a rank
// (its steps and memory bytes grow alike with N): the memory bytes stand
// for the port's, and nothing is reduced apart (a reduction's bytes are
// among them).
// On a network of nodes, the busiest link's bytes, step by step, stand for
// the port's: from the algorithm's closed form where it has one for a
// network (on_network), else from its exact model at 1024 bytes a rank,
// its messages routed hop by hop.
std::vector<ScaledTraffic> per_byte(const Settings& s, int P) {
  std::vector<ScaledTraffic> per_B;
  for (const CollectiveAlgorithm* a : s.algorithms) {
    if (s.topology && a->on_network) {
      per_B.push_back(a->on_network(P, 1, s.ranks_per_node, *s.topology));
      continue;
    }
    if (s.topology) {
      const size_t count = 1024 * size_t(P);
      const Nodes nodes = Nodes::blocks(P, s.ranks_per_node);
      const Traffic t = a->model(JobShape{P, count, 1, 0, nodes});
      const LinkLoad load = link_load(t.messages, nodes.of_rank(), *s.topology);
      per_B.push_back({double(t.steps), double(load.link_critical_B) / double(count),
                       double(t.reduced_max_rank_B) / double(count)});
      continue;
    }
    if (!s.shared_gpu) {
      per_B.push_back(a->at_scale(P, 1, s.ranks_per_node));
      continue;
    }
    const size_t count = 1024 * size_t(P);
    const Traffic t = a->model(P, count, 4, 0);
    per_B.push_back({double(t.steps), double(memory_B(t)) / double(4 * count), 0});
  }
  return per_B;
}

// On one node each size's loads come from the exact schedule (the eager
// limit and the tier make time no straight line in N), and the fastest at
// each size asked is said where it changes.
std::string predict_on_one_node(const Settings& s, int P, std::vector<Row>& rows) {
  std::string fastest, last;
  for (size_t bytes : s.sizes_B) {
    const size_t first = rows.size();
    size_t best = first;
    for (const CollectiveAlgorithm* a : s.algorithms) {
      const NodeLoad load = node_load(*a, P, bytes);
      rows.push_back({P,
                      double(bytes),
                      a,
                      {load.steps, load.rank_B, 0},
                      0,
                      node_time_us(*s.node, load, bytes)});
      if (rows.back().t_us < rows[best].t_us) best = rows.size() - 1;
    }
    const std::string& name = rows[best].algorithm->name;
    if (name != last)
      fastest += fmt::format("{} {} from {}", last.empty() ? "" : ",", name, human_bytes(bytes)),
          last = name;
  }
  if (P == 1) return "P = 1: one rank already holds the sum; nothing to do\n";
  return fmt::format("P = {}:{} (of the sizes asked)\n", P, fastest);
}

void predict_at(const Settings& s, int P, const std::vector<ScaledTraffic>& per_B,
                std::vector<Row>& rows) {
  // The busiest port's bytes a byte of N: the closed form's on the switch,
  // which is the busiest link's there; none where the ranks share a GPU.
  std::vector<double> port_per_B;
  for (size_t i = 0; i < s.algorithms.size(); ++i)
    port_per_B.push_back(s.shared_gpu ? 0
                         : s.topology
                             ? s.algorithms[i]->at_scale(P, 1, s.ranks_per_node).port_critical_B
                             : per_B[i].port_critical_B);
  for (size_t bytes : s.sizes_B)
    for (size_t i = 0; i < s.algorithms.size(); ++i) {
      const double N = double(bytes);
      const ScaledTraffic f{per_B[i].steps, per_B[i].port_critical_B * N,
                            per_B[i].reduced_max_rank_B * N};
      rows.push_back({P, N, s.algorithms[i], f, port_per_B[i] * N, s.call_us + time_us(s.link, f)});
    }
}

// The algorithms -a names ("all", or a list): those with a closed form, or
// on a shared GPU (exact models, P <= 64) all of them.
std::vector<const CollectiveAlgorithm*> chosen_algorithms(const std::string& text,
                                                          bool shared_gpu) {
  static const auto allreduce = make_operation("allreduce");
  std::vector<std::string> known;
  for (const CollectiveAlgorithm& a : allreduce->algorithms)
    if (a.at_scale || shared_gpu) known.push_back(a.name);
  Options picked;
  picked.program = "predict";
  if (text != "all")
    picked.algorithms = parse_list<std::string>("-a", text, {}, Repeats::refused,
                                                [](const std::string& a) { return a; });
  std::vector<const CollectiveAlgorithm*> out;
  for (const std::string& name : pick_algorithms(picked, known))
    for (const CollectiveAlgorithm& a : allreduce->algorithms)
      if (a.name == name) out.push_back(&a);
  return out;
}

// An algorithm that reads peers' memory (one_shot, two_shot) runs only
// where every rank is on one node: left out of "all" when some P spans
// nodes, refused when named.
void only_where_they_run(Settings& s, bool named) {
  const int most_P = *std::max_element(s.Ps.begin(), s.Ps.end());
  if (most_P <= s.ranks_per_node) return;
  for (const CollectiveAlgorithm* a : s.algorithms)
    if (a->reads_peers && named)
      throw UsageError(
          fmt::format("-a {}: it reads its peers' memory, which only ranks on one node "
                      "can; P = {} spans nodes of {} (--ranks-per-node)",
                      a->name, most_P, s.ranks_per_node));
  for (const CollectiveAlgorithm* a : s.algorithms)
    if (a->reads_peers) s.left_out += (s.left_out.empty() ? "" : ", ") + a->name;
  if (!s.left_out.empty())
    s.left_out += fmt::format(
        ": they read their peers' memory, which ranks on nodes of {} cannot "
        "at P = {}",
        s.ranks_per_node, most_P);
  s.algorithms.erase(std::remove_if(s.algorithms.begin(), s.algorithms.end(),
                                    [](const CollectiveAlgorithm* a) { return a->reads_peers; }),
                     s.algorithms.end());
}

// --shared-gpu: the GPU given by hand (a step and its memory's bandwidth,
// not a named link), P ranks on it, 64 at most.
void on_a_shared_gpu(Settings& s, bool link_given) {
  if (link_given)
    throw UsageError("--shared-gpu: give the GPU by --alpha (a step) and --bandwidth (its memory)");
  if (s.Ps.back() > 64)
    throw UsageError(fmt::format("-P {}: ranks sharing one GPU, 64 at most", s.Ps.back()));
  s.shared_gpu = true;
  s.link.name = "shared-gpu";
}

// --topology: a network of nodes behind the ports. The algorithms with a
// closed form on it (on_network) go to any P; the others' messages are
// routed one by one, so P up to kMaxRoutedP: past it they are left out of
// "all", and refused when named. The nodes the ranks need must be in it.
constexpr int kMaxRoutedP = 1024;
void on_a_topology(Settings& s, const std::string& text, bool named) {
  const Topology t = Topology::parse(text);
  if (t.kind == Topology::Kind::ideal_switch) return;  // the closed forms' own ports
  if (s.shared_gpu) throw UsageError("--topology: ranks sharing one GPU have no network");
  const int nodes = (s.Ps.back() + s.ranks_per_node - 1) / s.ranks_per_node;
  if (t.nodes() && nodes > t.nodes())
    throw UsageError(fmt::format("-P {}: {} nodes of {} ranks, and {} has {}", s.Ps.back(), nodes,
                                 s.ranks_per_node, text, t.nodes()));
  s.topology = t;
  if (s.Ps.back() <= kMaxRoutedP) return;
  std::string routed;
  for (const CollectiveAlgorithm* a : s.algorithms)
    if (!a->on_network) routed += (routed.empty() ? "" : ", ") + a->name;
  if (routed.empty()) return;
  if (named)
    throw UsageError(fmt::format(
        "-P {}: {}: no closed form on {}, where every message is routed, P up to {}; the "
        "ring, recursive_doubling, rabenseifner and the swings go further",
        s.Ps.back(), routed, text, kMaxRoutedP));
  s.left_out += fmt::format("{}{}: on {} they route every message, P up to {}",
                            s.left_out.empty() ? "" : "; ", routed, text, kMaxRoutedP);
  s.algorithms.erase(std::remove_if(s.algorithms.begin(), s.algorithms.end(),
                                    [](const CollectiveAlgorithm* a) { return !a->on_network; }),
                     s.algorithms.end());
}

// The link: by name, by hand, or fitted to a folder's rows.
struct LinkFlags {
  std::string name, folder;
  std::optional<double> alpha_us, GBps, gamma_GBps;
};
void add_link_flags(CLI::App& app, LinkFlags& l) {
  app.add_option("--link", l.name, "a named link (--links lists them)")->type_name("NAME");
  app.add_option("--alpha", l.alpha_us, "by hand: latency per step, us")
      ->type_name("US")
      ->check(finite_within(0, 1e9));
  app.add_option("--bandwidth", l.GBps, "by hand: the link's GB/s each way")
      ->type_name("GBPS")
      ->check(finite_within(1e-9, 1e9));
  app.add_option("--gamma-bandwidth", l.gamma_GBps, "GB/s at which a rank reduces (default: free)")
      ->type_name("GBPS")
      ->check(finite_within(1e-9, 1e9));
  app.add_option("--fit", l.folder, "alpha, beta and gamma fitted to a results folder's rows.csv")
      ->type_name("FOLDER");
}

// Every rank on one node (--one-node, or --fit of a folder whose runs were
// all on one node): its memory priced by node_memory.hpp, by hand or
// fitted; nothing of a network's. The algorithms that read peers' memory
// run over direct access only, which the fit's rows (over MPI) did not.
constexpr int kMaxNodeP = 256;
struct NodeFlags {
  bool asked = false;
  std::optional<double> GBps;
};
void priced_on_one_node(Settings& s, const LinkFlags& l, const NodeFlags& n,
                        const std::string& algorithms, const CLI::App& app) {
  for (const char* flag :
       {"--link", "--gamma-bandwidth", "--shared-gpu", "--topology", "--ranks-per-node", "--call"})
    if (app.count(flag))
      throw UsageError(
          fmt::format("{}: on one node the resource is its memory; {} is a link's "
                      "or a network's",
                      flag, flag));
  if (!app.count("-P")) s.Ps = parse_ranks("2:64");    // a node's cores, not a machine's
  s.algorithms = chosen_algorithms(algorithms, true);  // exact models, any algorithm
  const bool named = algorithms != "all";
  if (s.Ps.back() > kMaxNodeP)
    throw UsageError(
        fmt::format("-P {}: ranks on one node, a core each, {} at most", s.Ps.back(), kMaxNodeP));
  if (!l.folder.empty()) {
    if (l.alpha_us || l.GBps)
      throw UsageError("--fit " + l.folder +
                       ": the fit gives alpha and the rates; say which, once");
    s.node = fitted_node(l.folder, n.GBps);
  } else {
    if (!l.alpha_us || !l.GBps)
      throw UsageError(
          "--one-node: give a step by --alpha and one rank's memory by --bandwidth (GB/s read "
          "plus written), or --fit a folder measured on one node");
    s.node = node_by_hand(*l.alpha_us, *l.GBps, n.GBps);
  }
  for (const CollectiveAlgorithm* a : s.algorithms)
    if (a->reads_peers && named)
      throw UsageError("-a " + a->name +
                       ": it reads its peers' memory (--transport direct), which this model of "
                       "MPI's copies does not price");
  auto reads = [](const CollectiveAlgorithm* a) { return a->reads_peers; };
  if (std::any_of(s.algorithms.begin(), s.algorithms.end(), reads))
    s.left_out =
        "one_shot, two_shot: they read their peers' memory (--transport direct), "
        "which this model of MPI's copies does not price";
  s.algorithms.erase(std::remove_if(s.algorithms.begin(), s.algorithms.end(), reads),
                     s.algorithms.end());
}

// Where no link is the resource: ranks sharing one GPU, or one node's memory.
void add_memory_flags(CLI::App& app, bool& shared_gpu, double& call_us, NodeFlags& node) {
  app.add_flag("--shared-gpu", shared_gpu,
               "the ranks share one GPU over direct access: --alpha is a step, --bandwidth the "
               "GPU's memory (its copy GB/s); P up to 64");
  app.add_option("--call", call_us,
                 "with --shared-gpu: what a call costs apart from its steps, us (a launch and a "
                 "host wait; default 0)")
      ->type_name("US")
      ->check(finite_within(0, 1e9));
  app.add_flag("--one-node", node.asked,
               "every rank on one node, a core each, on host buffers: its memory is the "
               "resource; --alpha is a step, --bandwidth one rank's memory (GB/s read plus "
               "written); --fit of a one-node folder implies it; P up to 256");
  app.add_option("--node-bandwidth", node.GBps,
                 "on one node: every rank's bytes moved at once, GB/s (default: the fit's; by "
                 "hand, unlimited)")
      ->type_name("GBPS")
      ->check(finite_within(1e-9, 1e9));
}

// The command line, every input checked before anything is printed (the
// --csv path too); nullopt after --help or --links.
std::optional<Settings> parse(int argc, char** argv) {
  CLI::App app{
      "predict: the all-reduce algorithms' times on a link, from the port model, without MPI"};
  std::string ranks = "2:1024", sizes = "4:1G", algorithms = "all", csv, topology = "switch";
  double factor = 4;
  bool list_links = false, shared_gpu = false;
  NodeFlags node;
  Settings s;
  app.add_option("-P", ranks,
                 "P: a list of P or MIN:MAX (MIN, 2 MIN, 4 MIN, ... up to MAX), 1 to 2^20 "
                 "(default 2:1024; on one node 2:64)")
      ->type_name("LIST");
  app.add_option("-m", sizes, "N: MIN:MAX in bytes, with K, M or G (default 4:1G), up to 1 PiB")
      ->type_name("SIZES");
  app.add_option("-f", factor, "size factor from MIN to MAX (default 4)")
      ->type_name("X")
      ->check(finite_within(kFactorMin, kFactorMax));
  app.add_option("--ranks-per-node", s.ranks_per_node, "ranks sharing a node's link (default 1)")
      ->type_name("K")
      ->check(CLI::Range(1, 1 << 20));
  LinkFlags l;
  add_link_flags(app, l);
  app.add_option("-a", algorithms,
                 "algorithms, comma-separated, or all (default: every one with a closed form)")
      ->type_name("LIST");
  app.add_option("--csv", csv, "write every prediction to FILE")->type_name("FILE");
  app.add_flag("--links", list_links, "list the named links, their figures and sources");
  app.add_option("--topology", topology,
                 "the network between the nodes: switch (default), ring:K, torus:AxB, "
                 "fattree:K:O or dragonfly:GxA; the busiest link charged (closed forms for the "
                 "ring and the butterflies; the others routed message by message, P up to 1024)");
  add_memory_flags(app, shared_gpu, s.call_us, node);
  app.set_version_flag("--version", version_text("predict"));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e), std::nullopt;
    throw UsageError(e.what());
  }
  if (list_links) return fmt::print("{}", links_table()), std::nullopt;
  s.Ps = parse_ranks(ranks);
  s.sizes_B = parse_size_range(sizes, factor);
  if (double(s.sizes_B.back()) > kMaxBytes)
    throw UsageError("-m " + sizes + ": N goes up to 1 PiB here");
  if (app.count("--csv")) s.csv.emplace(csv, "--csv");  // checked, nothing written yet
  const bool named = algorithms != "all";
  if (node.asked || (!l.folder.empty() && !shared_gpu && on_one_node(l.folder))) {
    priced_on_one_node(s, l, node, algorithms, app);
    return s;
  }
  if (node.GBps) throw UsageError("--node-bandwidth: the node's memory is a term of --one-node");
  s.link = chosen_link(l.name, l.alpha_us, l.GBps, l.folder);
  if (l.gamma_GBps) s.link.gamma_GBps = *l.gamma_GBps;
  if (shared_gpu) on_a_shared_gpu(s, !l.name.empty() || !l.folder.empty() || l.gamma_GBps);
  if (app.count("--call") && !shared_gpu)
    throw UsageError("--call: a call's own cost is a shared GPU's term (--shared-gpu)");
  s.algorithms = chosen_algorithms(algorithms, shared_gpu);
  if (!shared_gpu) only_where_they_run(s, named);
  on_a_topology(s, topology, named);
  return s;
}

// The header says what is free: bytes between ranks on one node, not the
// alpha of a step.
std::string header(const Settings& s) {
  if (s.node)
    return fmt::format(
        "# predict: all-reduce, every rank on one node with a core of its own, on host buffers: "
        "t = alpha x steps + the busiest rank's bytes moved in memory / its rate + every rank's "
        "/ the node's, step by step, from each schedule (docs/time-model.md)\n# node: {}\n{}",
        describe(*s.node), s.left_out.empty() ? "" : "# left out: " + s.left_out + "\n");
  if (s.shared_gpu)
    return fmt::format(
        "# predict: all-reduce, the ranks sharing one GPU over direct access: t = a call + a step "
        "x steps + every rank's bytes moved in the GPU's memory / its bandwidth "
        "(docs/time-model.md)\n# a call {:g} us, a step {:g} us, the memory {:g} GB/s\n",
        s.call_us, s.link.alpha_us, s.link.GBps);
  std::string h = fmt::format(
      "# predict: all-reduce, t = alpha x steps + beta x bytes through the busiest node's link + "
      "gamma x "
      "bytes the busiest rank reduces\n# link: {}\n# ranks per node: {} (a byte between ranks on "
      "one node "
      "costs nothing here; every step still costs alpha)\n",
      describe(s.link), s.ranks_per_node);
  std::string one_node;
  for (int P : s.Ps)
    if (P > 1 && P <= s.ranks_per_node)
      one_node += fmt::format("{}{}", one_node.empty() ? "" : ", ", P);
  if (!one_node.empty())
    h += "# at P = " + one_node + " every rank is on one node: no byte crosses a link\n";
  if (!s.left_out.empty()) h += "# left out: " + s.left_out + "\n";
  if (s.topology)
    h += fmt::format(
        "# network: {} (routes in docs/predict.md): beta x the busiest link's bytes, step by "
        "step, in place of the port's\n",
        s.topology->describe());
  return h;
}

int run(int argc, char** argv) {
  const std::optional<Settings> s = parse(argc, argv);
  if (!s) return 0;
  std::vector<Row> rows;
  std::string fastest;
  for (int P : s->Ps) {
    if (s->node) {
      fastest += predict_on_one_node(*s, P, rows);
      continue;
    }
    const std::vector<ScaledTraffic> per_B = per_byte(*s, P);
    predict_at(*s, P, per_B, rows);
    fastest += crossovers(*s, P, per_B);
  }
  fmt::print("{}{}\n# fastest, by size ({}):\n{}", header(*s), table(*s, rows),
             s->node ? "at the sizes asked" : "from 1 B to 1 PiB, whatever -m asked", fastest);
  std::fflush(stdout);  // before the CSV, which may go to the same place (--csv /dev/stdout)
  if (s->csv) s->csv->write(csv_rows(*s, rows));
  return 0;
}

}  // namespace
}  // namespace commlab

int main(int argc, char** argv) {
  try {
    return commlab::run(argc, argv);
  } catch (const std::exception& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return 2;
  }
}
