// The element-wise reduction an algorithm applies when a chunk arrives.
#pragma once
#include <mpi.h>

#include <cstddef>

#include "types.hpp"

namespace commlab {

struct Reduction {
  DType dtype;
  Op op;

  size_t esize() const { return element_size(dtype); }
  // acc[i] = acc[i] (op) in[i] for i < count. Host buffers.
  void apply(void* acc, const void* in, size_t count) const;
  // The same operation expressed for the MPI reference.
  MPI_Datatype mpi_type() const;
  MPI_Op mpi_op() const;
};

// op applied to two scalars: the single definition tests and checks share.
template <class T>
T combine(Op op, T a, T b) {
  switch (op) {
    case Op::sum:
      return a + b;
    case Op::prod:
      return a * b;
    case Op::max:
      return a > b ? a : b;
    case Op::min:
      break;
  }
  return a < b ? a : b;
}

}  // namespace commlab
