// lab_check NAME: is the all-reduce NAME right at every P, and does it send
// exactly what its model says, message by message? Lab 06's test, for the
// student: the algorithm runs with its ranks as threads of one process (as
// the in-process tests run every algorithm), P = 1 .. 16 over the counts
// that catch the usual mistakes, on --show's values (element i of rank r is
// 10r + i, so a chunk in the wrong place shows), and stops at the first run
// that is wrong, saying where it first went wrong and what shows it.
// Exit status: 0 right, 1 wrong, 2 bad input.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>

#include "core/comm/errors.hpp"
#include "harness/inprocess.hpp"
#include "harness/version.hpp"

using namespace commlab;

#ifdef COMMLAB_LAB_FIXTURE
// The tests build this program around lab 06's skeleton and its solution.
namespace commlab {
CollectiveAlgorithm lab_fixture_algorithm();
}
#endif

namespace {

// The first thing that differs between two messages at the same place in
// the lists, and where to look for it.
std::string where_to_look(const Sent& ran, const Sent& model) {
  if (ran.step != model.step)
    return "their steps differ: the model's step numbers must be those of the schedule's "
           "calls ({s, chunk}), all-gather steps after the reduce-scatter's";
  if (ran.from != model.from || ran.to != model.to)
    return "their ranks differ: which way does each side send? (left is r-1, right r+1)";
  if (ran.bytes != model.bytes)
    return "their bytes differ: which chunk's size does the model count? Compare its "
           "parts.size(...) with the chunk the schedule sends";
  return ran.reduced ? "the receiver adds this message into its buffer (sendrecv_reduce): "
                       "the model must say Arrival::reduced"
                     : "the model says Arrival::reduced where the receiver only stores it";
}

// The schedule and the model compared message by message: "" when they agree.
std::string compare_messages(const InProcessResult& r, const Traffic& model,
                             const std::string& name) {
  const auto d = r.first_difference(model);
  if (!d) return "";
  std::string s = fmt::format(
      "the schedule sent {} messages, the model lists {}; listed by step, sender and "
      "receiver, they first differ at message {}:\n",
      d->counted_msgs, d->model_msgs, d->index + 1);
  s += fmt::format("    schedule: {}\n", d->counted ? describe(*d->counted) : "(no more messages)");
  s += fmt::format("    model:    {}\n  ", d->model ? describe(*d->model) : "(no more messages)");
  if (d->model_msgs == 0)
    return s + fmt::format(
                   "its model has no message: write one t.message(...) per message "
                   "sent (the TODO in model_allreduce_{}())",
                   name);
  if (!d->model) return s + "the schedule sends a message the model does not list";
  if (!d->counted) return s + "the model lists a message the schedule does not send";
  return s + where_to_look(*d->counted, *d->model);
}

// The two passes, each over every P: every rank's result; then
// the schedule against the model, message by message. So a wrong schedule
// shows before its model is written.
enum class Pass { results, messages };

// What one run says wrong, for `pass`; "" when nothing is.
std::string wrong_in(const InProcessResult& r, const InProcessRun& run, Pass pass) {
  const std::string& name = run.algo.name;
  if (pass == Pass::messages) {
    const Traffic model = run.algo.model(run.shape());
    if (std::string d = compare_messages(r, model, name); !d.empty()) return d;
    return r.verdict(model);
  }
  const bool wrong =
      std::any_of(r.wrong.begin(), r.wrong.end(), [](const std::string& w) { return !w.empty(); });
  if (wrong && run.P > 1 && r.counted.msgs_total == 0)
    return fmt::format("it sent no message: write its schedule (the TODO in allreduce_{}())", name);
  for (const std::string& w : r.wrong)
    if (!w.empty())
      return fmt::format(
          "{} (rank r started with element i = 10r + i)\n  see where it first goes wrong, step "
          "by step (--oversubscribe: more ranks than cores):\n    mpirun --oversubscribe -np {} "
          "build/bin/allreduce_{} --show --steps -i 1 -x 0 -n {}",
          w, run.P, name, run.N);
  return "";
}

// "" when the algorithm passes `pass` at P over every count, else what went wrong.
std::string check_at(const Operation& op, const CollectiveAlgorithm& algo, int P, Pass pass) {
  ThreadWorld world(P, std::chrono::seconds(5));
  for (size_t N : {size_t(P), size_t(0), size_t(1), size_t(P - 1), size_t(P + 1), size_t(1000)}) {
    InProcessRun run{op, algo, P, N};
    run.fill = Fill::rank;  // --show's values: element i of rank r is 10r + i
    const std::string at = fmt::format("P = {}, {} elements", P, N);
    try {
      if (std::string w = wrong_in(run_in_process(world, run), run, pass); !w.empty())
        return fmt::format("{}: {}", at, w);
    } catch (const std::exception& e) {  // a deadlock, named by the transport
      return fmt::format("{}: {}", at, e.what());
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
  app.set_version_flag("--version", version_text("lab_check"));
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    fmt::print("{}", app.help());
    return 0;
  } catch (const CLI::CallForVersion& e) {
    fmt::print("{}\n", e.what());
    return 0;
  } catch (const CLI::ParseError& e) {  // one line, as every error of the labs' tools
    fmt::print(stderr, "error: {}\n", e.what());
    return kExitUsage;
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
               "error: no all-reduce algorithm '{}': add it to allreduce_algos/algorithms.def "
               "(make lab-register NAME={}) and rebuild (make lab)\n",
               name, name);
    return kExitUsage;
  }
  for (Pass pass : {Pass::results, Pass::messages})
    for (int P = 1; P <= max_P; ++P) {
      const std::string wrong = check_at(*op, *algo, P, pass);
      if (wrong.empty()) continue;
      fmt::print("{}: WRONG at {}\n", name, wrong);
      return kExitWrong;
    }
  fmt::print(
      "{}: right at P = 1 .. {} (counts P, 0, 1, P-1, P+1 and 1000): every rank's result "
      "exact, and every message sent the model's (step, ranks, bytes, reduced or not)\n",
      name, max_P);
  return 0;
}
