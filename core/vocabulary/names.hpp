// One table per enum, each value beside its name, serving both printing and
// parsing: a value cannot print one way and parse another.
#pragma once
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "usage_error.hpp"

namespace commlab {

template <class E>
using Names = std::vector<std::pair<E, const char*>>;

template <class E>
std::string name_in(const Names<E>& table, E value) {
  for (const auto& [v, n] : table)
    if (v == value) return n;
  throw std::logic_error("a value missing from its name table");
}

// "a, b or c": the names, for an error message (`also` is one more choice, e.g. "all").
template <class E>
std::string choices(const Names<E>& table, const std::string& also = "") {
  std::vector<std::string> all;
  for (const auto& entry : table) all.push_back(entry.second);
  if (!also.empty()) all.push_back(also);
  std::string s;
  for (size_t i = 0; i < all.size(); ++i)
    s += (i == 0 ? "" : i + 1 == all.size() ? " or " : ", ") + all[i];
  return s;
}

// The value named `s`, or UsageError("unknown WHAT 's' (use ...)").
template <class E>
E parse_in(const Names<E>& table, const std::string& s, const std::string& what,
           const std::string& also = "") {
  for (const auto& [v, n] : table)
    if (s == n) return v;
  throw UsageError("unknown " + what + " '" + s + "' (use " + choices(table, also) + ")");
}

}  // namespace commlab
