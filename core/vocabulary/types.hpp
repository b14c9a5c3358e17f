// Element types and reduction operators: the vocabulary every program shares.
#pragma once
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "half.hpp"  // float16, bfloat16; COMMLAB_HOST_DEVICE: functions the GPU kernels share

namespace commlab {

enum class DType {
#define COMMLAB_DTYPE(name, ...) name,
#include "dtypes.def"
#undef COMMLAB_DTYPE
};
enum class Op { sum, prod, max, min };
enum class Device { host, cuda };  // where buffers live
// How buffers travel: MPI on host memory; GPU memory through pinned host
// pieces, or straight from the GPU (a CUDA-aware MPI); threads of one process.
// direct: ranks on one node read each other's registered memory (direct_transport.hpp).
enum class TransportKind { host, staged, cuda_aware, in_process, direct };
// Where a row's data lived: the user's own memory (on the direct transport,
// copied into registered buffers and out again inside the timed call), or
// buffers allocated registered, which peers map (--registered).
enum class Buffers { user, registered };
// Who wrote what a row measures: this suite (by hand), or a library.
enum class Impl { hand, mpi, nccl };

const std::vector<DType>& all_dtypes();
const std::vector<Op>& all_ops();

std::string name(DType t);
std::string name(Op o);
size_t element_size(DType t);
std::string name(Device d);
std::string name(TransportKind t);  // host | staged | cuda-aware | in-process
std::string name(Impl i);           // hand | mpi | nccl
std::string name(Buffers b);        // private | registered
Impl parse_impl(const std::string& s);

// Throws UsageError naming the accepted values.
DType parse_dtype(const std::string& s);
Device parse_device(const std::string& s);
Op parse_op(const std::string& s);

// Calls f(T{}) with T the C++ type of `t`: the one switch over dtypes.
template <class F>
decltype(auto) visit_dtype(DType t, F&& f) {
  switch (t) {
#define COMMLAB_DTYPE(name, cxx, ...) \
  case DType::name:                   \
    return f(cxx{});
#include "dtypes.def"
#undef COMMLAB_DTYPE
  }
  throw std::logic_error("visit_dtype: not a dtype");
}

// Calls f(std::integral_constant<Op, op>{}): one loop or kernel per op, so
// none has a branch inside.
template <class F>
decltype(auto) visit_op(Op op, F&& f) {
  switch (op) {
    case Op::sum:
      return f(std::integral_constant<Op, Op::sum>{});
    case Op::prod:
      return f(std::integral_constant<Op, Op::prod>{});
    case Op::max:
      return f(std::integral_constant<Op, Op::max>{});
    case Op::min:
      break;
  }
  return f(std::integral_constant<Op, Op::min>{});
}

// op applied to two scalars: the single definition tests and checks share.
template <class T>
COMMLAB_HOST_DEVICE T combine(Op op, T a, T b) {
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
