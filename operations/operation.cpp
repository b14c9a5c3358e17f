// The one list of operations (operations/operations.def), as the programs
// and tests look them up by name. Only this file includes the list.
#include "operation.hpp"

#include "core/comm/errors.hpp"

namespace commlab {

#define COMMLAB_OPERATION(name) std::unique_ptr<Operation> make_##name();
#include "operations.def"
#undef COMMLAB_OPERATION

std::vector<std::unique_ptr<Operation>> all_operations() {
  std::vector<std::unique_ptr<Operation>> all;
#define COMMLAB_OPERATION(name) all.push_back(make_##name());
#include "operations.def"
#undef COMMLAB_OPERATION
  return all;
}

std::unique_ptr<Operation> make_operation(const std::string& name) {
  for (auto& op : all_operations())
    if (op->name == name) return std::move(op);
  throw UsageError("unknown collective '" + name + "'");
}

}  // namespace commlab
