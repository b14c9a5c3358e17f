#include "bench.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <numeric>

#include "device.hpp"
#include "errors.hpp"
#include "reduce.hpp"
#include "stats.hpp"

namespace commlab {

std::string mpi_version() {
  char v[MPI_MAX_LIBRARY_VERSION_STRING];
  int n = 0;
  MPI_Get_library_version(v, &n);
  std::string s(v, n);
  return s.substr(0, s.find_first_of(",\n"));
}

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::string hostname() {
  char buf[256] = {};
  gethostname(buf, sizeof buf - 1);
  return buf;
}

Placement gather_placement(MPI_Comm comm) {
  int P = 1;
  MPI_Comm_size(comm, &P);
  std::vector<char> mine(kHostnameMax, '\0'), all(size_t(P) * kHostnameMax);
  const std::string me = hostname().substr(0, kHostnameMax - 1);
  std::copy(me.begin(), me.end(), mine.begin());
  MPI_Allgather(mine.data(), kHostnameMax, MPI_CHAR, all.data(), kHostnameMax, MPI_CHAR, comm);
  std::vector<std::string> hosts;
  for (int r = 0; r < P; ++r) hosts.emplace_back(all.data() + size_t(r) * kHostnameMax);
  return placement_of(hosts);
}

std::string misread_launch() {
  // srun with an MPI plugin this MPI does not speak starts each task as an
  // MPI job of its own: P = 1 in every one. A launcher's children are told
  // their world's size (mpirun's OMPI_COMM_WORLD_SIZE, hydra's PMI_SIZE), and
  // its daemons may sit in a step of several tasks, so only a direct launch
  // is checked.
  const char* tasks = std::getenv("SLURM_STEP_NUM_TASKS");
  int P = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  if (P != 1 || !tasks || std::atoi(tasks) <= 1 || std::getenv("OMPI_COMM_WORLD_SIZE") ||
      std::getenv("PMI_SIZE"))
    return "";
  return fmt::format(
      "srun started {} tasks but each is an MPI job of 1 rank: srun's MPI plugin does not match "
      "this MPI (set SRUN_MPI to one that `srun --mpi=list` names, e.g. pmix)",
      tasks);
}


namespace {

constexpr const char* kTableHead =
    "{:>8} {:>4} {:>11} {:>12}  {:<24} {:<4} {:>11} {:>11} {:>11} {:>8} {:>8} {:>8} {:>12} "
    "{:>12} {:>5} {:>6} {:<5}\n";

}  // namespace

NodePlace node_rank(MPI_Comm comm) {
  int me;
  MPI_Comm_rank(comm, &me);
  const Nodes nodes = nodes_of(comm);
  const std::vector<int>& mine = nodes.ranks_on(nodes.of_rank()[me]);
  return {int(std::find(mine.begin(), mine.end(), me) - mine.begin()), int(mine.size())};
}

LibraryStaging::LibraryStaging(const Comm& comm, const Buffer& in, Buffer& out)
    : in_(in), out_(out) {
  if (comm.transport() == TransportKind::host ||
      (comm.transport() == TransportKind::cuda_aware && !mpi_reduces_on_host(in.dtype())))
    return;
  host_in_.emplace(Buffer::page_locked(in.dtype(), in.count()));
  host_out_.emplace(Buffer::page_locked(out.dtype(), out.count()));
}

void LibraryStaging::run(bool in_place,
                         const std::function<void(const void* in, void* out)>& call) {
  if (!host_out_) return call(in_place ? out_.data() : in_.data(), out_.data());
  if (in_place)
    host_out_->copy_from(out_);
  else
    host_in_->copy_from(in_);
  call(in_place ? host_out_->data() : host_in_->data(), host_out_->data());
  out_.copy_from(*host_out_);
}

int program_main(int argc, char** argv, const std::string& program, const std::string& description,
                 const std::function<Footprint(const Options&, int P, int rank)>& validate,
                 const std::function<void(Runner&, Comm&, const Options&)>& measure) {
  init_mpi(&argc, &argv);
  agree_or_exit(MPI_COMM_WORLD, misread_launch());
  Comm comm(MPI_COMM_WORLD);
  Parsed parsed;
  Footprint mine;
  std::string error;
  try {
    parsed = parse_options(argc, argv, program, description);
    // A lecture's example, not a sweep: P elements, one chunk per rank.
    if (parsed.run && parsed.opts.show_default_count) parsed.opts.counts = {size_t(comm.size())};
    if (parsed.run) mine = validate(parsed.opts, comm.size(), comm.rank());
  } catch (const UsageError& e) {
    error = e.what();
  }
  agree_or_exit(comm.mpi(), error);
  if (!parsed.run) {
    if (comm.rank() == 0) fmt::print("{}", parsed.help);
    MPI_Finalize();
    return 0;
  }
  const Options& o = parsed.opts;
  agree_or_exit(comm.mpi(), memory_problem(comm, mine));
  Runner runner(comm, o);
  try {
    measure(runner, comm, o);
  } catch (const std::exception& e) {  // e.g. out of memory on one rank: stop them all
    fmt::print(stderr, "error: rank {}: {}\n", comm.rank(), e.what());
    std::fflush(stderr);
    MPI_Abort(comm.mpi(), kExitWrong);
  }
  int rc = runner.exit_code();
  MPI_Finalize();
  return rc;
}

static_assert(sizeof(Footprint) == 2 * sizeof(double), "gathered as two doubles");

std::string memory_problem(const Comm& comm, const Footprint& mine) {
  std::vector<Footprint> all(comm.size());
  MPI_Allgather(&mine, 2, MPI_DOUBLE, all.data(), 2, MPI_DOUBLE, comm.mpi());
  const Nodes& nodes = comm.nodes();
  const std::vector<int>& here = nodes.ranks_on(nodes.of_rank()[comm.rank()]);
  const int local = int(here.size());
  double host_B = 0, largest_gpu_B = 0;
  for (int r : here) host_B += all[r].host_B, largest_gpu_B = std::max(largest_gpu_B, all[r].gpu_B);
  const double GiB = 1 << 30, have = double(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGESIZE);
  if (!(host_B <= 0.9 * have))
    return fmt::format("the {} rank{} on this node need {:.1f} GiB of memory; it has {:.1f} GiB",
                       local, local == 1 ? "" : "s", host_B / GiB, have / GiB);
  if (largest_gpu_B == 0 || !gpu::unavailable_reason().empty()) return "";
  // Ranks share the GPUs in turn (Runner), so the fullest holds ceil(local / gpus).
  const gpu::Inventory inv = gpu::inventory();
  const int sharing = (local + inv.gpus - 1) / inv.gpus;
  const double gpu_B = largest_gpu_B * sharing;
  if (gpu_B <= 0.9 * inv.smallest_B) return "";
  return fmt::format("{} rank{} per GPU need {:.1f} GiB of GPU memory; the GPU has {:.1f} GiB",
                     sharing, sharing == 1 ? "" : "s", gpu_B / GiB, inv.smallest_B / GiB);
}

void print_in_rank_order(MPI_Comm comm, const std::string& line) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int len = static_cast<int>(line.size());
  std::vector<int> lens(size), displs(size);
  MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, comm);
  int total = 0;
  for (int r = 0; r < size; ++r) displs[r] = total, total += lens[r];
  std::vector<char> all(rank == 0 ? total : 0);
  MPI_Gatherv(line.data(), len, MPI_CHAR, all.data(), lens.data(), displs.data(), MPI_CHAR, 0,
              comm);
  if (rank != 0) return;
  for (int r = 0; r < size; ++r)
    fmt::print("{}\n", std::string_view(all.data() + displs[r], lens[r]));
  std::fflush(stdout);
}

Runner::Runner(Comm& comm, const Options& opts) : comm_(comm), opts_(opts), mem_(opts.device) {
  std::string error;
  if (opts.root >= comm.size())
    error =
        fmt::format("-r {}: root must be below the number of ranks, {}", opts.root, comm.size());
  else if (opts.device == Device::cuda)
    error = gpu::unavailable_reason();
  agree_or_exit(comm.mpi(), error);

  TransportKind transport = TransportKind::host;
  std::string gpu_line;
  if (opts.device == Device::cuda) {
    // Ranks on a node take its GPUs in turn; several may share one.
    auto [local_rank, local_size] = node_rank(comm.mpi());
    int gpus = gpu::select(local_rank);
    const bool aware = mpi_is_cuda_aware();
    transport = opts.transport.value_or(aware ? TransportKind::cuda_aware : TransportKind::staged);
    if (transport == TransportKind::cuda_aware && !aware)
      error = fmt::format(
          "--transport cuda-aware: {} is not CUDA-aware (MPIX_Query_cuda_support() is 0); use "
          "--transport staged",
          mpi_version());
    agree_or_exit(comm.mpi(), error);
    // NCCL needs a GPU per rank on every node.
    int most_local = 0, fewest_gpus = 0;
    MPI_Allreduce(&local_size, &most_local, 1, MPI_INT, MPI_MAX, comm.mpi());
    MPI_Allreduce(&gpus, &fewest_gpus, 1, MPI_INT, MPI_MIN, comm.mpi());
    nccl_note_ = Nccl::unavailable_reason(most_local, fewest_gpus);
    if (nccl_note_.empty()) {
      nccl_ = std::make_unique<Nccl>(comm.mpi());
      comm.set_nccl(nccl_.get());
      nccl_note_ = Nccl::version() + ", one GPU per rank";
    } else {
      nccl_note_ = "no NCCL rows: " + nccl_note_;
    }
    gpu_line =
        fmt::format("# GPU: {}; transport {}; {}\n", gpu::describe(), name(transport), nccl_note_);
  }

  comm.use(mem_, transport);
  try {
    if (comm.rank() == 0 && !opts.csv.empty()) csv_ = LinesFile(opts.csv, csv_header(), "--csv");
    if (comm.rank() == 0 && !opts.json.empty()) json_ = LinesFile(opts.json, "", "--json");
  } catch (const UsageError& e) {
    error = e.what();
  }
  agree_or_exit(comm.mpi(), error);

  info_.program = opts.program;
  info_.device = name(opts.device);
  info_.host = hostname();
  info_.date = utc_now();
  info_.mpi_version = mpi_version();
  info_.commlab_version = commlab_version();
  info_.P = comm.size();
  info_.root = opts.root;
  info_.iters = opts.iters;
  info_.warmup = opts.warmup;
  info_.in_place = opts.in_place;
  info_.transport = name(transport);
  info_.placement = gather_placement(comm.mpi());
  if (comm.rank() != 0) return;
  fmt::print("# {}  P={}  device={}  root={}  in_place={}  iters={}  warmup={}  check={}\n",
             opts.program, comm.size(), info_.device, opts.root, opts.in_place ? "yes" : "no",
             opts.iters, opts.warmup, opts.check ? "on" : "off");
  fmt::print("# {}, {}, commlab {}\n", info_.mpi_version, info_.date, info_.commlab_version);
  fmt::print("# placement: {}\n", info_.placement.line());
  fmt::print("{}", gpu_line);
  fmt::print(kTableHead, "dtype", "op", "count", "bytes", "algorithm", "impl", "avg_us", "min_us",
             "max_us", "algbw", "busbw", "link", "sent_max_B", "model_B", "steps", "#wrong", "check");
  std::fflush(stdout);
}

void Runner::show_buffers(const char* when, const Buffer* b) {
  if (!b) return;
  if (comm_.rank() == 0) fmt::print("  {}:\n", when);
  std::fflush(stdout);
  print_in_rank_order(comm_.mpi(), fmt::format("    rank {}: {}", comm_.rank(), b->format()));
}

namespace {

std::string message_text(const TraceEntry& e) {
  const std::string what = e.chunk == kWholeBuffer     ? ""
                           : e.chunk == kSeveralChunks ? " chunks"
                                                       : fmt::format(" chunk {}", e.chunk);
  return fmt::format("{}->{}{} ({} B)", e.from, e.to, what, e.bytes);
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

void Runner::show_schedule(const Shape& shape) {
  comm_.snapshot();  // the end of the run
  const auto trace = comm_.gather_trace();
  const auto states = comm_.gather_snapshots();
  if (comm_.rank() != 0) return;
  const int steps = trace.empty() ? 0 : trace.back().step + 1;
  fmt::print("  schedule: {} messages in {} steps{}\n", trace.size(), steps,
             opts_.show_steps ? "; under each step, every rank's buffer after it (-1: not written yet)"
                              : "");
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
    if (!opts_.show_steps) continue;
    for (size_t r = 0; r < states.size(); ++r)
      if (const Snapshot* s = state_after(states[r], step))
        fmt::print("      rank {}: {}\n", r, Buffer::from_bytes(shape.dtype, s->bytes).format());
  }
  if (empty) fmt::print("  ({})\n", empty_chunks_note(shape.count, comm_.size()));
  std::fflush(stdout);
}

Row Runner::measure(const Shape& shape, const Case& c) {
  Row row;
  row.run = &info_;
  row.algorithm = c.algorithm;
  row.impl = name(c.impl);
  row.dtype = shape.has_data ? name(shape.dtype) : "none";
  row.op = shape.reduces ? name(shape.op) : "none";
  row.count = shape.count;
  row.bytes = shape.count * element_size(shape.dtype);
  row.model = c.model;
  if (c.t_model_us) row.t_model_us = *c.t_model_us * c.time_scale;  // as the row's time
  row.chose = c.chose;
  row.taught_formula = c.taught_formula;
  row.taught_T_B = c.taught_T_B;
  row.transport = c.impl == Impl::nccl ? "nccl" : info_.transport;

  // 1. One run, traffic counted and the result checked.
  const bool show = opts_.show && c.output;
  if (show && comm_.rank() == 0)
    fmt::print("\n{} ({}), {} {} x {}, P = {}:\n", c.algorithm, row.impl, row.dtype, row.op,
               shape.count, comm_.size());
  c.prepare();
  if (show) show_buffers("before", c.input);
  comm_.reset_counts();
  comm_.set_tracing(true);  // for --show, and for the bytes through each node's port
  comm_.watch(show ? c.output->data() : nullptr, show ? c.output->bytes() : 0);
  MPI_Barrier(comm_.mpi());
  c.run();
  mem_.sync();
  comm_.set_tracing(false);
  if (show) {
    if (c.model) show_schedule(shape);
    show_buffers("after", c.output);
  }
  if (c.model) {
    row.counted = comm_.gather_counts();
    row.traffic = row.counted->same_counts(*c.model) ? "exact" : "DIFFERS";
  }
  row.check = "off";
  if (opts_.check) {
    Verdict v = c.check();
    uint64_t local[2] = {v.wrong, v.diff_vs_lib.value_or(0)}, sum[2];
    MPI_Allreduce(local, sum, 2, MPI_UINT64_T, MPI_SUM, comm_.mpi());
    row.wrong = sum[0];
    if (v.diff_vs_lib) row.diff_vs_lib = sum[1];
    row.note = first_text(comm_.mpi(), v.note);
    row.check = sum[0] == 0 && sum[1] == 0 ? "ok" : "FAIL";
  }
  if (row.traffic == "DIFFERS") row.check = "FAIL";
  failed_ |= row.check == "FAIL";

  // 2. Warm-up, then timed runs; an iteration lasts as long as its slowest rank.
  for (int i = 0; i < opts_.warmup; ++i) {
    c.prepare();
    MPI_Barrier(comm_.mpi());
    c.run();
    mem_.sync();
  }
  std::vector<double> mine(opts_.iters), slowest(opts_.iters);
  for (int i = 0; i < opts_.iters; ++i) {
    c.prepare();
    MPI_Barrier(comm_.mpi());
    double t0 = MPI_Wtime();
    c.run();
    mem_.sync();  // on the GPU a run ends when its last kernel or copy has
    mine[i] = (MPI_Wtime() - t0) * 1e6;
  }
  MPI_Allreduce(mine.data(), slowest.data(), opts_.iters, MPI_DOUBLE, MPI_MAX, comm_.mpi());
  for (double& t : slowest) t *= c.time_scale;
  std::sort(slowest.begin(), slowest.end());
  const size_t n = slowest.size();
  row.t_avg_us = std::accumulate(slowest.begin(), slowest.end(), 0.0) / n;
  row.t_min_us = slowest.front();
  row.t_max_us = slowest.back();
  row.t_median_us = median(slowest);
  row.algbw_GBps = row.t_avg_us > 0 ? row.bytes / row.t_avg_us / 1e3 : 0;
  row.busbw_GBps = row.algbw_GBps * shape.busbw_factor;
  // What the busiest rank's link carried, each way: the counted bytes, for
  // every algorithm, where busbw assumes the ring's.
  if (row.counted && row.t_avg_us > 0)
    row.link_GBps =
        std::max(row.counted->sent_max_rank_B, row.counted->recv_max_rank_B) / row.t_avg_us / 1e3;
  return row;
}

void Runner::emit(const std::vector<Row>& rows) {
  if (comm_.rank() != 0) return;
  for (const Row& r : rows) {
    std::string wrong = r.wrong ? fmt::format("{}", *r.wrong + r.diff_vs_lib.value_or(0)) : "-";
    const std::string algorithm = r.chose.empty() ? r.algorithm : r.algorithm + ":" + r.chose;
    fmt::print(kTableHead, r.dtype, r.op, r.count, r.bytes, algorithm, r.impl,
               fmt::format("{:.2f}", r.t_avg_us), fmt::format("{:.2f}", r.t_min_us),
               fmt::format("{:.2f}", r.t_max_us), fmt::format("{:.3f}", r.algbw_GBps),
               fmt::format("{:.3f}", r.busbw_GBps),
               r.link_GBps ? fmt::format("{:.3f}", *r.link_GBps) : "-",
               r.counted ? fmt::format("{}", r.counted->sent_max_rank_B) : "-",
               r.model ? fmt::format("{}", r.model->sent_max_rank_B) : "-",
               r.counted ? fmt::format("{}", r.counted->steps) : "-", wrong, r.check);
    if (!r.note.empty()) fmt::print("#   {} {}: {}\n", r.algorithm, r.impl, r.note);
  }
  std::fflush(stdout);
  std::string csv, json;
  for (const Row& r : rows) csv += csv_line(r), json += json_line(r);
  csv_.append_lines(csv);
  json_.append_lines(json);
}

}  // namespace commlab
