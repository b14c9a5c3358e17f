#include "types.hpp"

#include "names.hpp"

namespace commlab {

namespace {
const Names<DType> kDTypes{
#define COMMLAB_DTYPE(name, ...) {DType::name, #name},
#include "dtypes.def"
#undef COMMLAB_DTYPE
};
const Names<Op> kOps{{Op::sum, "sum"}, {Op::prod, "prod"}, {Op::max, "max"}, {Op::min, "min"}};
const Names<Device> kDevices{{Device::host, "host"}, {Device::cuda, "cuda"}};
const Names<TransportKind> kTransports{{TransportKind::host, "host"},
                                       {TransportKind::staged, "staged"},
                                       {TransportKind::cuda_aware, "cuda-aware"},
                                       {TransportKind::in_process, "in-process"},
                                       {TransportKind::direct, "direct"}};
const Names<Impl> kImpls{{Impl::hand, "hand"}, {Impl::mpi, "mpi"}, {Impl::nccl, "nccl"}};

template <class E>
std::vector<E> values(const Names<E>& table) {
  std::vector<E> v;
  for (const auto& entry : table) v.push_back(entry.first);
  return v;
}
}  // namespace

const std::vector<DType>& all_dtypes() {
  static const std::vector<DType> v = values(kDTypes);
  return v;
}
const std::vector<Op>& all_ops() {
  static const std::vector<Op> v = values(kOps);
  return v;
}

std::string name(DType t) { return name_in(kDTypes, t); }
std::string name(Op o) { return name_in(kOps, o); }
std::string name(Device d) { return name_in(kDevices, d); }
std::string name(TransportKind t) { return name_in(kTransports, t); }
std::string name(Buffers b) { return b == Buffers::registered ? "registered" : "private"; }
std::string name(Impl i) { return name_in(kImpls, i); }
Impl parse_impl(const std::string& s) { return parse_in(kImpls, s, "impl"); }

size_t element_size(DType t) {
  return visit_dtype(t, [](auto x) { return sizeof(x); });
}

DType parse_dtype(const std::string& s) { return parse_in(kDTypes, s, "dtype", "all"); }
Op parse_op(const std::string& s) { return parse_in(kOps, s, "op", "all"); }
Device parse_device(const std::string& s) { return parse_in(kDevices, s, "device"); }

}  // namespace commlab
