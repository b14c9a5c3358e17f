#include "reduce.hpp"

namespace commlab {

namespace {
// One loop per (type, op) so the compiler vectorises each without a branch inside.
template <class T, Op O>
void apply_loop(T* __restrict acc, const T* __restrict in, size_t n) {
  for (size_t i = 0; i < n; ++i) acc[i] = combine(O, acc[i], in[i]);
}
}  // namespace

void Reduction::apply(void* acc, const void* in, size_t count) const {
  visit_dtype(dtype, [&](auto x) {
    using T = decltype(x);
    auto* a = static_cast<T*>(acc);
    auto* b = static_cast<const T*>(in);
    switch (op) {
      case Op::sum:
        return apply_loop<T, Op::sum>(a, b, count);
      case Op::prod:
        return apply_loop<T, Op::prod>(a, b, count);
      case Op::max:
        return apply_loop<T, Op::max>(a, b, count);
      case Op::min:
        return apply_loop<T, Op::min>(a, b, count);
    }
  });
}

MPI_Datatype Reduction::mpi_type() const {
  switch (dtype) {
    case DType::int32:
      return MPI_INT32_T;
    case DType::int64:
      return MPI_INT64_T;
    case DType::float32:
      return MPI_FLOAT;
    case DType::float64:
      break;
  }
  return MPI_DOUBLE;
}

MPI_Op Reduction::mpi_op() const {
  switch (op) {
    case Op::sum:
      return MPI_SUM;
    case Op::prod:
      return MPI_PROD;
    case Op::max:
      return MPI_MAX;
    case Op::min:
      break;
  }
  return MPI_MIN;
}

}  // namespace commlab
