#include "reduce.hpp"

#include <stdexcept>

namespace commlab {

namespace {
// One loop per (type, op) so the compiler vectorises each.
template <class T, Op O>
void apply_loop(T* __restrict acc, const T* __restrict in, size_t n) {
  for (size_t i = 0; i < n; ++i) acc[i] = combine(O, acc[i], in[i]);
}
template <class T, Op O>
void combine_loop(T* dst, const T* a, const T* b, size_t n) {  // dst may be a or b
  for (size_t i = 0; i < n; ++i) dst[i] = combine(O, a[i], b[i]);
}
}  // namespace

void Reduction::apply_to(void* dst, const void* a, const void* b, size_t count) const {
  visit_dtype(dtype, [&](auto x) {
    using T = decltype(x);
    auto* d = static_cast<T*>(dst);
    visit_op(op, [&](auto o) {
      combine_loop<T, decltype(o)::value>(d, static_cast<const T*>(a), static_cast<const T*>(b),
                                          count);
    });
  });
}

void Reduction::apply(void* acc, const void* in, size_t count) const {
  visit_dtype(dtype, [&](auto x) {
    using T = decltype(x);
    auto* a = static_cast<T*>(acc);
    auto* b = static_cast<const T*>(in);
    visit_op(op, [&](auto o) { apply_loop<T, decltype(o)::value>(a, b, count); });
  });
}

namespace {
// The operator MPI calls for 16-bit floats (mpi_reduces_on_host).
template <DType T, Op O>
void reduce_16bit(void* in, void* inout, int* len, MPI_Datatype*) {
  Reduction{T, O}.apply(inout, in, static_cast<size_t>(*len));
}

template <DType T>
MPI_Op user_op(Op op) {
  static MPI_Op made[4] = {MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL};
  MPI_Op& m = made[static_cast<int>(op)];
  if (m == MPI_OP_NULL)
    visit_op(
        op, [&](auto o) { MPI_Op_create(reduce_16bit<T, decltype(o)::value>, /*commute=*/1, &m); });
  return m;
}
}  // namespace

bool mpi_reduces_on_host(DType t) { return t == DType::float16 || t == DType::bfloat16; }

MPI_Datatype Reduction::mpi_type() const {
  switch (dtype) {
#define COMMLAB_DTYPE(name, cxx, mpi, ...) \
  case DType::name:                        \
    return mpi;
#include "core/vocabulary/dtypes.def"
#undef COMMLAB_DTYPE
  }
  throw std::logic_error("mpi_type: not a dtype");
}

MPI_Op Reduction::mpi_op() const {
  if (dtype == DType::float16) return user_op<DType::float16>(op);
  if (dtype == DType::bfloat16) return user_op<DType::bfloat16>(op);
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
