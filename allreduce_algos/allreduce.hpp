// The hand-written all-reduce algorithms. Each file holds one algorithm, read
// top to bottom: the schedule, then its exact traffic model. They talk only
// through the counted Comm and know nothing of timing, checking or output.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "core/buffer.hpp"
#include "core/comm.hpp"
#include "core/memory.hpp"
#include "core/reduce.hpp"
#include "core/traffic.hpp"

namespace commlab {

// What an algorithm gets: `data` holds this rank's `count` elements and,
// afterwards, the reduction over every rank, in place.
struct AllreduceJob {
  Comm& comm;
  void* data;
  size_t count;
  Reduction red;
  int root;     // the master, or the tree's root
  Memory& mem;  // where data lives: room for incoming data, copies, reductions
};

struct AllreduceAlgorithm {
  std::string name;
  void (*run)(const AllreduceJob& job);
  // Exact traffic of one run, from P, count and element size alone.
  Traffic (*model)(int P, size_t count, size_t esize);
  // brief.md's T, as taught, and the formula written out.
  std::string taught_formula;
  double (*taught_T)(int P, double N_bytes);
};

void allreduce_master_worker(const AllreduceJob& job);
void allreduce_ring(const AllreduceJob& job);
void allreduce_tree(const AllreduceJob& job);

Traffic model_master_worker(int P, size_t count, size_t esize);
Traffic model_ring(int P, size_t count, size_t esize);
Traffic model_tree(int P, size_t count, size_t esize);

const std::vector<AllreduceAlgorithm>& allreduce_algorithms();
const AllreduceAlgorithm& find_allreduce(const std::string& name);

}  // namespace commlab
