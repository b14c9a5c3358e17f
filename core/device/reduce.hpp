// The element-wise reduction an algorithm applies when a chunk arrives.
#pragma once
#include <mpi.h>

#include <cstddef>

#include "core/vocabulary/types.hpp"

namespace commlab {

struct Reduction {
  DType dtype;
  Op op;

  size_t esize() const { return element_size(dtype); }
  // acc[i] = acc[i] (op) in[i] for i < count. Host buffers.
  void apply(void* acc, const void* in, size_t count) const;
  // dst[i] = a[i] (op) b[i]: two terms in one pass.
  void apply_to(void* dst, const void* a, const void* b, size_t count) const;
  // The same operation expressed for the MPI reference.
  MPI_Datatype mpi_type() const;
  MPI_Op mpi_op() const;
};

// MPI has no 16-bit float types: they travel as MPI_UINT16_T and MPI reduces
// them with an operator of ours that runs on the host, even in a CUDA-aware MPI.
bool mpi_reduces_on_host(DType t);

}  // namespace commlab
