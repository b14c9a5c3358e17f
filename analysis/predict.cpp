// predict: what-if times of the hand-written all-reduce algorithms, without
// running MPI, for any P (to 2^20), N, ranks per node and link. The time is
// the report's port model (fit.hpp's Fit::predict over the same three
// regressors), t = alpha x steps + beta x bytes through the busiest node's
// link + gamma x bytes the busiest rank reduces, and the figures are each
// algorithm's closed form (at_scale), which the unit tests hold to its
// message-by-message model. The links and where their figures come from:
// links.hpp and docs/predict.md.
#include <fmt/format.h>
#include <fmt/os.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <limits>

#include "collectives/collective.hpp"
#include "core/errors.hpp"
#include "core/options.hpp"
#include "links.hpp"
#include "report.hpp"

namespace commlab {
namespace {

struct Settings {
  std::vector<int> Ps;
  std::vector<size_t> sizes_B;
  int ranks_per_node = 1;
  LinkModel link;
  std::vector<const CollectiveAlgorithm*> algorithms;
  std::string csv;
};

// One prediction: the table's and the CSV's row fields.
struct Row {
  int P;
  double bytes;
  const CollectiveAlgorithm* algorithm;
  ScaledTraffic figures;
  double t_us;
};

double time_us(const LinkModel& link, const ScaledTraffic& s) {
  return link.fit().predict({s.steps, s.port_critical_B, s.reduced_max_rank_B});
}

// "2:1024" (powers of two) or "1000", each item of -P; every P 1 to 2^20.
std::vector<int> parse_ranks(const std::vector<std::string>& items) {
  constexpr size_t kMaxP = size_t{1} << 20;
  auto one = [&](const std::string& s) {
    const size_t P = parse_count(s, "-P");
    if (P < 1 || P > kMaxP) throw UsageError(fmt::format("-P {}: P must be 1 to {}", s, kMaxP));
    return int(P);
  };
  std::vector<int> Ps;
  for (const std::string& item : items) {
    const auto colon = item.find(':');
    if (colon == std::string::npos) {
      Ps.push_back(one(item));
      continue;
    }
    const int lo = one(item.substr(0, colon)), hi = one(item.substr(colon + 1));
    if (lo > hi) throw UsageError(fmt::format("-P {}: the first must not exceed the last", item));
    for (int64_t P = lo; P <= hi; P *= 2) Ps.push_back(int(P));
  }
  return Ps;
}

// A crossover size to three figures: "16.1 MiB".
std::string about_bytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024 && u < 4) bytes /= 1024, ++u;
  return fmt::format("{:.3g} {}", bytes, units[u]);
}

// At one P, the algorithm fastest for each N: the lower envelope of the
// lines t(N) = alpha x steps + N x (time per byte), since the closed forms'
// steps do not depend on N and their bytes grow in proportion to it.
std::string crossovers(const Settings& s, int P) {
  struct Line { const CollectiveAlgorithm* a; double at0_us, per_B_us; };
  std::vector<Line> lines;
  for (const CollectiveAlgorithm* a : s.algorithms) {
    const ScaledTraffic per_B = a->at_scale(P, 1, s.ranks_per_node);
    const double at0 = time_us(s.link, {per_B.steps, 0, 0});
    lines.push_back({a, at0, time_us(s.link, per_B) - at0});
  }
  auto below = [](const Line& x, const Line& y) {
    return x.at0_us < y.at0_us || (x.at0_us == y.at0_us && x.per_B_us < y.per_B_us);
  };
  const Line* best = &*std::min_element(lines.begin(), lines.end(), below);
  std::string text = fmt::format("P = {}: {}", P, best->a->name);
  for (double from_B = 0;;) {
    const Line* next = nullptr;
    double at_B = std::numeric_limits<double>::infinity();
    for (const Line& l : lines)
      if (l.per_B_us < best->per_B_us) {
        const double cross = (l.at0_us - best->at0_us) / (best->per_B_us - l.per_B_us);
        if (cross >= from_B && cross < at_B) at_B = cross, next = &l;
      }
    if (!next) return text + "\n";
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
    t += fmt::format("  {}\n", best->algorithm->name);
  }
  return t;
}

void write_csv(const Settings& s, const std::vector<Row>& rows) {
  const std::string tmp = s.csv + ".tmp";
  {
    auto f = fmt::output_file(tmp);
    f.print("link,P,ranks_per_node,bytes,algorithm,steps,port_critical_B,reduced_max_rank_B,t_us\n");
    for (const Row& r : rows)
      f.print("{},{},{},{:.0f},{},{:.0f},{:.0f},{:.0f},{:.9g}\n", s.link.name, r.P, s.ranks_per_node, r.bytes,
              r.algorithm->name, r.figures.steps, r.figures.port_critical_B,
              r.figures.reduced_max_rank_B, r.t_us);
  }
  std::filesystem::rename(tmp, s.csv);  // never a half-written file
}

// The link: named, by hand, or fitted to a results folder (the report's
// summary fit, its first device and dtype).
LinkModel chosen_link(const std::string& name, std::optional<double> alpha_us,
                      std::optional<double> GBps, const std::string& folder) {
  const int given = !name.empty() + (alpha_us || GBps) + !folder.empty();
  if (given != 1)
    throw UsageError("say which link, once: --link NAME (--links lists them), --alpha US "
                     "--bandwidth GBPS, or --fit FOLDER");
  if (!name.empty()) return named_link(name);
  if (alpha_us || GBps) {
    if (!alpha_us || !GBps) throw UsageError("--alpha and --bandwidth go together");
    return {"by-hand", *alpha_us, *GBps, "given on the command line", ""};
  }
  const std::string rows_csv = folder + "/rows.csv";
  if (!std::filesystem::exists(rows_csv)) throw UsageError("--fit " + folder + ": no rows.csv there");
  const auto fits = formulas_fits(read_rows(rows_csv));
  if (fits.empty() || fits.begin()->second.n == 0 || fits.begin()->second.at(1) <= 0)
    throw UsageError("--fit " + folder + ": no hand-written all-reduce rows of 1 MiB or more to fit");
  const auto& [data, f] = *fits.begin();
  LinkModel fitted{"fit:" + std::filesystem::path(folder).filename().string(), f.at(0),
                   1e-3 / f.at(1), fmt::format("fitted to {} ({} {}, {} rows)", rows_csv,
                                               data.first, data.second, f.n), ""};
  if (f.at(2) > 0) fitted.gamma_GBps = 1e-3 / f.at(2);
  return fitted;
}

// Each algorithm's figures once per P, for N = 1 B, then scaled to every N
// (at_scale's bytes grow in proportion to N; its steps do not depend on it):
// a long list of sizes at P = 2^20 costs no more than one.
std::vector<Row> predictions(const Settings& s) {
  std::vector<Row> rows;
  for (int P : s.Ps) {
    std::vector<ScaledTraffic> per_B;
    for (const CollectiveAlgorithm* a : s.algorithms) per_B.push_back(a->at_scale(P, 1, s.ranks_per_node));
    for (size_t bytes : s.sizes_B)
      for (size_t i = 0; i < s.algorithms.size(); ++i) {
        const double N = double(bytes);
        const ScaledTraffic f{per_B[i].steps, per_B[i].port_critical_B * N, per_B[i].reduced_max_rank_B * N};
        rows.push_back({P, N, s.algorithms[i], f, time_us(s.link, f)});
      }
  }
  return rows;
}

int run(int argc, char** argv) {
  CLI::App app{"predict: the all-reduce algorithms' times on a link, from the port model, without MPI"};
  Settings s;
  std::vector<std::string> ranks{"2:1024"};
  std::string sizes = "4:1G", link_name, folder;
  Options picked;
  picked.program = "predict";
  double factor = 4;
  std::optional<double> alpha_us, GBps, gamma_GBps;
  bool list_links = false;
  app.add_option("-P", ranks, "ranks: MIN:MAX (powers of two) or a list, 1 to 2^20 (default 2:1024)")
      ->delimiter(',');
  app.add_option("-m", sizes, "sizes N: MIN:MAX bytes, K/M/G suffixes (default 4:1G)");
  app.add_option("-f", factor, "size factor (default 4)")->check(finite_within(kFactorMin, kFactorMax));
  app.add_option("--ranks-per-node", s.ranks_per_node, "ranks sharing a node's link (default 1)")
      ->check(CLI::Range(1, 1 << 20));
  app.add_option("--link", link_name, "a named link (--links lists them)");
  app.add_option("--alpha", alpha_us, "by hand: latency per step, us")->check(finite_within(0, 1e9));
  app.add_option("--bandwidth", GBps, "by hand: the link's GB/s each way")->check(finite_within(1e-9, 1e9));
  app.add_option("--gamma-bandwidth", gamma_GBps, "GB/s at which a rank reduces (default: free)")
      ->check(finite_within(1e-9, 1e9));
  app.add_option("--fit", folder, "alpha, beta and gamma fitted to a results folder's rows");
  app.add_option("-a", picked.algorithms, "algorithms, comma-separated (default: every one with a closed form)")
      ->delimiter(',');
  app.add_option("--csv", s.csv, "write every prediction to FILE");
  app.add_flag("--links", list_links, "list the named links, their figures and sources");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    throw UsageError(e.what());
  }
  if (list_links) return fmt::print("{}", links_table()), 0;
  s.Ps = parse_ranks(ranks);
  const auto colon = sizes.find(':');
  s.sizes_B = colon == std::string::npos
                  ? std::vector<size_t>{parse_size(sizes)}
                  : size_range(parse_size(sizes.substr(0, colon)), parse_size(sizes.substr(colon + 1)), factor);
  s.link = chosen_link(link_name, alpha_us, GBps, folder);
  if (gamma_GBps) s.link.gamma_GBps = *gamma_GBps;
  const auto allreduce = make_allreduce();
  std::vector<std::string> known;
  for (const CollectiveAlgorithm& a : allreduce->algorithms)
    if (a.at_scale) known.push_back(a.name);
  for (const std::string& name : pick_algorithms(picked, known))
    for (const CollectiveAlgorithm& a : allreduce->algorithms)
      if (a.name == name) s.algorithms.push_back(&a);

  const std::vector<Row> rows = predictions(s);
  fmt::print("# predict: all-reduce, t = alpha x steps + beta x bytes through the busiest node's link "
             "+ gamma x bytes reduced\n# link: {}\n# ranks per node: {} (ranks on one node talk "
             "through memory, which this model takes as free)\n{}\n# fastest, by size:\n",
             describe(s.link), s.ranks_per_node, table(s, rows));
  for (int P : s.Ps) fmt::print("{}", crossovers(s, P));
  if (!s.csv.empty()) write_csv(s, rows);
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
