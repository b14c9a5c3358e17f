#include "show.hpp"

#include <fmt/format.h>

#include <string>

#include "host.hpp"

namespace commlab {

void show_buffers(MPI_Comm comm, const char* when, const Buffer& b) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  if (rank == 0) fmt::print("  {}:\n", when);
  std::fflush(stdout);
  print_in_rank_order(comm, fmt::format("    rank {}: {}", rank, b.format()));
}

namespace {

std::string message_text(const TraceEntry& e) {
  const std::string what = chunks_text(e.chunk, e.last_chunk);
  return fmt::format("{}->{}{}{} ({} B)", e.from, e.to, what.empty() ? "" : " ", what, e.bytes);
}

// "step 3: a, b, c", wrapped under itself past 100 columns.
void print_step(int step, const std::vector<std::string>& messages) {
  std::string line = fmt::format("    step {}:", step);
  const size_t indent = line.size();
  for (size_t i = 0; i < messages.size(); ++i) {
    if (line.size() + messages[i].size() > 100 && line.size() > indent) {
      fmt::print("{}\n", line);
      line = std::string(indent, ' ');
    }
    line += " " + messages[i] + (i + 1 < messages.size() ? "," : "");
  }
  fmt::print("{}\n", line);
}

// Why messages of 0 B appear: the chunks a count below P leaves empty.
std::string empty_chunks_note(size_t count, int P) {
  if (count >= size_t(P))
    return "0 B messages carry parts that hold no element; they are still sent, so every rank "
           "runs the same schedule";
  return fmt::format(
      "0 B messages carry empty chunks: {} element{} cut into {} chunks leave{} {} empty; they "
      "are still sent, so every rank runs the same schedule",
      count, count == 1 ? "" : "s", P, count == 1 ? "s" : "", size_t(P) - count);
}

}  // namespace

void show_schedule(const std::vector<TraceEntry>& trace,
                   const std::vector<std::vector<Snapshot>>& states, DType dtype, size_t count,
                   int P) {
  const int steps = trace.empty() ? 0 : trace.back().step + 1;
  fmt::print("  schedule: {} messages in {} step{}{}\n", trace.size(), steps, steps == 1 ? "" : "s",
             states.empty()
                 ? ""
                 : "; under each step, every rank's buffer after it (-1: not written yet)");
  Phase phase = Phase::none;
  bool empty = false;
  for (size_t i = 0; i < trace.size();) {
    const int step = trace[i].step;
    if (trace[i].phase != phase && trace[i].phase != Phase::none)
      fmt::print("  {}\n", name(phase = trace[i].phase));
    std::vector<std::string> messages;
    for (; i < trace.size() && trace[i].step == step; ++i) {
      messages.push_back(message_text(trace[i]));
      empty |= trace[i].bytes == 0;
    }
    print_step(step, messages);
    for (size_t r = 0; r < states.size(); ++r)
      if (const Snapshot* s = state_after(states[r], step))
        fmt::print("      rank {}: {}\n", r, Buffer::from_bytes(dtype, s->bytes).format());
  }
  if (empty) fmt::print("  ({})\n", empty_chunks_note(count, P));
  std::fflush(stdout);
}

}  // namespace commlab
