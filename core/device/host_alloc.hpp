// Host memory that starts on a page, as OSU's benchmarks allocate theirs.
// A heap block from malloc is only 16-byte aligned, and once glibc has raised
// its mmap threshold (after a large block is freed) the next large blocks come
// from the heap, not mmap: the same copy or reduction then runs at another
// speed depending on which buffers the run allocated before it (a 1 MiB
// MPI_Allreduce at P = 2 took 15 to 33% longer with one buffer more, the
// check's). The collective programs' host buffers and the Memory's scratch come
// from here.
#pragma once
#include <cstddef>
#include <memory>

namespace commlab {

size_t page_size_B();
// `bytes` on a page of their own, never null (even for 0 bytes); throws
// std::bad_alloc when the system has no room.
void* host_alloc(size_t bytes);
void host_free(void* p);

struct HostFree {
  void operator()(void* p) const { host_free(p); }
};
using HostBlock = std::unique_ptr<void, HostFree>;

}  // namespace commlab
