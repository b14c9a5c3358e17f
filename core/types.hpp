// Element types and reduction operators: the vocabulary every program shares.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace commlab {

enum class DType { int32, int64, float32, float64 };
enum class Op { sum, prod, max, min };

const std::vector<DType>& all_dtypes();
const std::vector<Op>& all_ops();

std::string name(DType t);
std::string name(Op o);
size_t element_size(DType t);

// Throws UsageError naming the accepted values.
DType parse_dtype(const std::string& s);
Op parse_op(const std::string& s);

// Calls f(T{}) with T the C++ type of `t`: the one switch over dtypes.
template <class F>
decltype(auto) visit_dtype(DType t, F&& f) {
  switch (t) {
    case DType::int32:
      return f(int32_t{});
    case DType::int64:
      return f(int64_t{});
    case DType::float32:
      return f(float{});
    case DType::float64:
      break;
  }
  return f(double{});
}

}  // namespace commlab
