// lab_check NAME: is the all-reduce NAME right at every P, and does it send
// exactly what its model says? Lab 06's test, for the student: the
// algorithm runs with its ranks as threads of one process (as the
// in-process tests run every algorithm), P = 1 .. 16 over the counts that
// catch the usual mistakes, and stops at the first run that is wrong, saying
// which and why. Exit status: 0 right, 1 wrong, 2 bad input.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <chrono>

#include "harness/inprocess.hpp"
#include "core/errors.hpp"

using namespace commlab;

#ifdef COMMLAB_LAB_FIXTURE
// The tests build this program around lab 06's skeleton and its solution.
namespace commlab {
CollectiveAlgorithm lab_fixture_algorithm();
}
#endif

namespace {

// What a first failure most likely means, for someone writing their first schedule.
std::string advice(const InProcessResult& r, const Traffic& model, int P) {
  if (P > 1 && r.counted.msgs_total == 0)
    return "it sent no message: write its schedule (the TODO in run())";
  if (model.msgs_total == 0 && r.counted.msgs_total > 0)
    return "its model has no message: write one t.message(...) per message sent (the TODO in "
           "the model)";
  for (const std::string& w : r.wrong)
    if (!w.empty()) return "a rank's result is wrong: run it with --show --steps at this P";
  return "the schedule and the model disagree: compare them step by step";
}

// "" when the algorithm is right at P over every count, else what went wrong.
std::string check_at(const Operation& op, const CollectiveAlgorithm& algo, int P) {
  ThreadWorld world(P, std::chrono::seconds(5));
  for (size_t N : {size_t(P), size_t(0), size_t(1), size_t(P - 1), size_t(P + 1), size_t(1000)}) {
    const InProcessRun run{op, algo, P, N};
    try {
      const InProcessResult r = run_in_process(world, run);
      const Traffic model = algo.model(run.shape());
      const std::string wrong = r.verdict(model);
      if (!wrong.empty())
        return fmt::format("P = {}, {} elements: {}\n  {}", P, N, wrong, advice(r, model, P));
    } catch (const std::exception& e) {  // a deadlock, named by the transport
      return fmt::format("P = {}, {} elements: {}", P, N, e.what());
    }
  }
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("Checks an all-reduce algorithm with its ranks as threads: results and traffic",
               "lab_check");
  std::string name;
  int max_P = 16;
  app.add_option("algorithm", name, "its name in allreduce_algos/algorithms.def")->required();
  app.add_option("--max-P", max_P, "check P = 1 .. this")->check(CLI::Range(1, 64));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : kExitUsage;
  }
  const auto op = make_operation("allreduce");
#ifdef COMMLAB_LAB_FIXTURE
  op->algorithms.push_back(lab_fixture_algorithm());
#endif
  const CollectiveAlgorithm* algo = nullptr;
  for (const auto& a : op->algorithms)
    if (a.name == name) algo = &a;
  if (!algo) {
    fmt::print(stderr,
               "error: no all-reduce algorithm '{}': add COMMLAB_ALLREDUCE({}) to "
               "allreduce_algos/algorithms.def and rebuild (make build)\n",
               name, name);
    return kExitUsage;
  }
  for (int P = 1; P <= max_P; ++P) {
    const std::string wrong = check_at(*op, *algo, P);
    if (wrong.empty()) continue;
    fmt::print("{}: WRONG at {}\n", name, wrong);
    return kExitWrong;
  }
  fmt::print("{}: right at P = 1 .. {} (counts P, 0, 1, P-1, P+1, 1000): every rank's result "
             "exact, the traffic counted equal to the model's\n",
             name, max_P);
  return 0;
}
