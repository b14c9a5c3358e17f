#include "types.hpp"

#include "errors.hpp"

namespace commlab {

const std::vector<DType>& all_dtypes() {
  static const std::vector<DType> v{DType::int32,   DType::int64,   DType::float32,
                                    DType::float64, DType::float16, DType::bfloat16};
  return v;
}
const std::vector<Op>& all_ops() {
  static const std::vector<Op> v{Op::sum, Op::prod, Op::max, Op::min};
  return v;
}

std::string name(DType t) {
  switch (t) {
    case DType::int32:
      return "int32";
    case DType::int64:
      return "int64";
    case DType::float32:
      return "float32";
    case DType::float16:
      return "float16";
    case DType::bfloat16:
      return "bfloat16";
    case DType::float64:
      break;
  }
  return "float64";
}

std::string name(Device d) { return d == Device::host ? "host" : "cuda"; }

std::string name(Transport t) {
  switch (t) {
    case Transport::host:
      return "host";
    case Transport::staged:
      return "staged";
    case Transport::cuda_aware:
      break;
  }
  return "cuda-aware";
}

std::string name(Op o) {
  switch (o) {
    case Op::sum:
      return "sum";
    case Op::prod:
      return "prod";
    case Op::max:
      return "max";
    case Op::min:
      break;
  }
  return "min";
}

size_t element_size(DType t) {
  return visit_dtype(t, [](auto x) { return sizeof(x); });
}

DType parse_dtype(const std::string& s) {
  for (DType t : all_dtypes())
    if (name(t) == s) return t;
  throw UsageError("unknown dtype '" + s +
                   "' (use int32, int64, float32, float64, float16, bfloat16 or all)");
}

Op parse_op(const std::string& s) {
  for (Op o : all_ops())
    if (name(o) == s) return o;
  throw UsageError("unknown op '" + s + "' (use sum, prod, max, min or all)");
}

}  // namespace commlab
