// report FOLDER: reads FOLDER/rows.csv (or every CSV named on the command
// line), and FOLDER/cells.tsv and FOLDER/links.csv when the sweep wrote them;
// prints the report and writes it to FOLDER/report.md.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>

#include "output.hpp"
#include "report.hpp"

namespace {
namespace fs = std::filesystem;

// The summary's fitted model beside each row it covers, for plot.py (which
// draws the model from these numbers, not from a copy of the model).
std::string model_csv(const std::vector<std::pair<const commlab::Measurement*, double>>& times) {
  std::string text = "program,algorithm,device,dtype,P,bytes,t_median_us,t_fitted_us\n";
  for (const auto& [m, us] : times)
    text += fmt::format("{},{},{},{},{},{},{:.3f},{:.3f}\n", m->program, m->algorithm, m->device,
                        m->dtype, m->P, m->bytes, m->t_median_us, us);
  return text;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
    fmt::print(argc < 2 ? stderr : stdout,
               "usage: report FOLDER [FILE.csv ...]\n"
               "  reads FOLDER/rows.csv (or the CSV files named), prints the report and writes "
               "FOLDER/report.md\n");
    return argc < 2 ? 2 : 0;
  }
  fs::path folder = fs::path(argv[1]).lexically_normal();
  if (!folder.has_filename()) folder = folder.parent_path();  // "results/gpu/" is results/gpu
  std::vector<std::string> files;
  for (int i = 2; i < argc; ++i) files.push_back(argv[i]);
  if (files.empty()) files.push_back((folder / "rows.csv").string());
  try {
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
        for (char& c : line)
          if (c == '\t') c = ' ';
        failed.push_back(line);
      }
    const commlab::Machine machine = commlab::read_machine(folder.string());
    const std::string text = commlab::make_report(rows, folder.filename().string(), failed, machine);
    const commlab::WholeFile report((folder / "report.md").string(), "report"),
        model((folder / "model.csv").string(), "report");
    model.write(model_csv(commlab::fitted_times(rows, machine)));
    fmt::print("{}", text);
    report.write(text);
  } catch (const std::exception& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return 2;
  }
  return 0;
}
