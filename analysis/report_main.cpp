// report FOLDER: reads FOLDER/rows.csv (or every CSV named on the command
// line), and FOLDER/cells.tsv and FOLDER/links.csv when the sweep wrote them;
// prints the report and writes it to FOLDER/report.md, the fitted model to
// FOLDER/model.csv.
// report --check FOLDER: the same, but compares instead of writing, so that
// a test can tell when a committed folder's report is not what the current
// report makes of its rows.
// report --column NAME[,NAME...] FILE.csv: those columns of every row, for
// scripts, which would otherwise split the CSV with awk -F, and miss quotes.
// report --rules FILE.csv ...: Open MPI's dynamic rules file from rows that
// forced its algorithms in turn (analysis/rules.hpp).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "harness/version.hpp"
#include "output.hpp"
#include "report.hpp"
#include "rules.hpp"

namespace {
namespace fs = std::filesystem;

constexpr const char* kUsage =
    "usage: report FOLDER [FILE.csv ...]\n"
    "       report --version\n"
    "       report --check FOLDER [FILE.csv ...]\n"
    "       report --column NAME[,NAME...] FILE.csv\n"
    "       report --rules FILE.csv [FILE.csv ...]\n"
    "  reads FOLDER/rows.csv (or the CSV files named), prints the report and writes "
    "FOLDER/report.md\n"
    "  and FOLDER/model.csv\n"
    "  --check: writes nothing; exit 0 when FOLDER/report.md and FOLDER/model.csv are what it "
    "would\n"
    "    write, 1 with the first line that differs otherwise\n"
    "  --column: prints those columns of every row of any CSV file with a header, tab-separated,\n"
    "    a row a line, read as the report reads CSV (a quoted comma stays in its cell)\n"
    "  --rules: prints Open MPI's dynamic rules file that picks, for each MPI call and P, the\n"
    "    fastest of the algorithms the rows forced (--mpi-algorithm) at each size where it is\n"
    "    faster beyond the noise; from MPICH's rows, MPICH's JSON tuning file, its evidence on\n"
    "    stderr\n";

// The summary's fitted model beside each row it covers, for plot.py (which
// draws the model from these numbers, not from a copy of the model).
std::string model_csv(const std::vector<std::pair<const commlab::Measurement*, double>>& times) {
  std::string text = "program,algorithm,device,dtype,P,bytes,t_median_us,t_fitted_us\n";
  for (const auto& [m, us] : times)
    text += fmt::format("{},{},{},{},{},{},{:.3f},{:.3f}\n", m->program, m->algorithm, m->device,
                        m->dtype, m->P, m->bytes, m->t_median_us, us);
  return text;
}

// What report writes into a folder: report.md and model.csv.
struct Outputs {
  std::string report, model;
};

Outputs make_outputs(const fs::path& folder, std::vector<std::string> files) {
  if (files.empty()) files.push_back((folder / "rows.csv").string());
  std::vector<commlab::Measurement> rows;
  for (const auto& f : files) {
    if (!fs::exists(f)) throw commlab::ReportError(f + ": no such file");
    auto more = commlab::read_rows(f);
    rows.insert(rows.end(), more.begin(), more.end());
  }
  if (rows.empty()) throw commlab::ReportError(files.front() + ": no rows");
  // The sweep's cell list, when there is one: the failed cells' lines.
  std::vector<std::string> failed;
  std::ifstream cells(folder / "cells.tsv");
  for (std::string line; std::getline(cells, line);)
    if (line.find("\tfailed\t") != std::string::npos) {
      std::replace(line.begin(), line.end(), '\t', ' ');
      failed.push_back(line);
    }
  const commlab::Machine machine = commlab::read_machine(folder.string());
  const fs::path times = folder / "iterations.csv";
  const commlab::Iterations iterations =
      fs::exists(times) ? commlab::read_iterations(times.string()) : commlab::Iterations{};
  return {commlab::make_report(rows, folder.filename().string(), failed, machine, iterations),
          model_csv(commlab::fitted_times(rows, machine))};
}

// "results/gpu/" is results/gpu, whose name is the report's title.
fs::path folder_of(const std::string& arg) {
  fs::path folder = fs::path(arg).lexically_normal();
  return folder.has_filename() ? folder : folder.parent_path();
}

// A line from a little before `column`, quoted, to show where two differ.
std::string excerpt(const std::string& line, size_t column) {
  const size_t from = std::min(column > 20 ? column - 20 : 0, line.size());
  return fmt::format("\"{}{}{}\"", from ? "..." : "", line.substr(from, 60),
                     line.size() > from + 60 ? "..." : "");
}

// Where `file` differs from `want`, in one line: its line and column, and
// both texts there; nullopt where they are equal.
std::optional<std::string> first_difference(const fs::path& file, const std::string& want) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return fmt::format("{}: no such file", file.string());
  const std::string have{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (have == want) return std::nullopt;
  std::istringstream a(have), b(want);
  std::string x, y;
  for (int line = 1;; ++line) {
    const bool in_file = bool(std::getline(a, x)), in_report = bool(std::getline(b, y));
    if (in_file && in_report && x == y) continue;
    if (!in_file && !in_report)
      return fmt::format("{}: differs only in its last line break", file.string());
    if (!in_file || !in_report)
      return fmt::format("{} line {}: {}", file.string(), line,
                         in_file ? "the file goes on where report now ends"
                                 : "the file ends where report now goes on");
    const size_t column = std::mismatch(x.begin(), x.end(), y.begin(), y.end()).first - x.begin();
    return fmt::format("{} line {}, column {}: the file has {}, report now writes {}",
                       file.string(), line, column + 1, excerpt(x, column), excerpt(y, column));
  }
}

int check(const fs::path& folder, const std::vector<std::string>& files) {
  const Outputs now = make_outputs(folder, files);
  for (const auto& [name, text] :
       {std::pair{"report.md", &now.report}, std::pair{"model.csv", &now.model}})
    if (auto where = first_difference(folder / name, *text)) {
      fmt::print(stderr, "{}; report without --check rewrites it\n", *where);
      return 1;
    }
  fmt::print("{}: report.md and model.csv are what report writes\n", folder.string());
  return 0;
}

int write(const fs::path& folder, const std::vector<std::string>& files) {
  const Outputs now = make_outputs(folder, files);
  // Both paths checked before anything is printed or written.
  const commlab::WholeFile report((folder / "report.md").string(), "report"),
      model((folder / "model.csv").string(), "report");
  model.write(now.model);
  fmt::print("{}", now.report);
  report.write(now.report);
  return 0;
}

// --column: tab-separated, so a cell may hold anything but a tab.
// A file to read rows from: one line naming what was given instead.
void check_rows_file(const std::string& option, const std::string& file) {
  if (fs::is_directory(file))
    throw commlab::ReportError(
        fmt::format("{} {}: a folder; give its rows.csv ({}/rows.csv)", option, file, file));
  std::ifstream in(file);
  if (in && in.peek() == '{')
    throw commlab::ReportError(fmt::format(
        "{} {}: JSON Lines; {} reads CSV (give the rows.csv beside it)", option, file, option));
}

int columns(const std::string& list, const std::string& file) {
  std::vector<std::string> names;
  std::istringstream in(list);
  for (std::string name; std::getline(in, name, ',');) names.push_back(name);
  if (names.empty() || list.back() == ',' || std::count(names.begin(), names.end(), ""))
    throw commlab::ReportError("--column \"" + list + "\": a column name is empty");
  check_rows_file("--column", file);
  const auto rows = commlab::read_columns(file, names);
  std::string out;
  for (size_t r = 0; r < rows.size(); ++r)
    for (size_t k = 0; k < names.size(); ++k) {
      if (rows[r][k].find('\t') != std::string::npos)
        throw commlab::ReportError(
            fmt::format("{} line {}: column {} holds a tab, which --column prints "
                        "between columns",
                        file, r + 2, names[k]));
      out += rows[r][k] + (k + 1 < names.size() ? "\t" : "\n");
    }
  fmt::print("{}", out);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    fmt::print(args.empty() ? stderr : stdout, "{}", kUsage);
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "--version") return fmt::print("{}\n", commlab::version_text("report")), 0;
  try {
    if (args[0] == "--column") {
      if (args.size() != 3)
        throw commlab::ReportError(
            "--column NAME[,NAME...] FILE.csv: give the column names and one file");
      return columns(args[1], args[2]);
    }
    if (args[0] == "--rules") {
      if (args.size() < 2)
        throw commlab::ReportError("--rules FILE.csv [FILE.csv ...]: give the rows");
      std::vector<commlab::Measurement> rows;
      for (size_t i = 1; i < args.size(); ++i) {
        if (fs::is_directory(args[i]))
          throw commlab::ReportError(fmt::format(
              "--rules {}: a folder; give the rows.csv files ({}/rows.csv)", args[i], args[i]));
        auto more = commlab::read_rows(args[i]);
        rows.insert(rows.end(), more.begin(), more.end());
      }
      const commlab::RulesText rules = commlab::library_rules(
          rows, fmt::format("{}", fmt::join(args.begin() + 1, args.end(), " ")));
      fmt::print("{}", rules.file);
      fmt::print(stderr, "{}", rules.evidence);  // MPICH's: JSON takes no comments
      fmt::print(stderr, "{}", commlab::one_launch_warning(rows));
      return 0;
    }
    if (args[0] == "--check") {
      if (args.size() < 2)
        throw commlab::ReportError("--check FOLDER [FILE.csv ...]: give the folder");
      return check(folder_of(args[1]), {args.begin() + 2, args.end()});
    }
    if (args[0].rfind("-", 0) == 0)
      throw commlab::ReportError(args[0] + ": no such option (report --help)");
    return write(folder_of(args[0]), {args.begin() + 1, args.end()});
  } catch (const std::exception& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return 2;
  }
}
