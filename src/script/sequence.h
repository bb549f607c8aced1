// Index and slice arithmetic shared by str, list, tuple and range.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "script/object.h"

namespace tsch::script {

// Resolves a possibly negative index against `size`; raises IndexError naming `what`
// ("list", "tuple", "string") when out of range.
size_t resolve_index(Interpreter& interp, const Value& index, int64_t size, const char* what);

struct SliceBounds {
  int64_t start, stop, step, length;
};
// Python's slice.indices(size).
SliceBounds slice_bounds(const SliceObject& slice, int64_t size);

template <typename T>
std::vector<T> take_slice(const std::vector<T>& items, const SliceBounds& b) {
  std::vector<T> out;
  out.reserve(static_cast<size_t>(b.length));
  for (int64_t i = 0, k = b.start; i < b.length; ++i, k += b.step) out.push_back(items[static_cast<size_t>(k)]);
  return out;
}

}  // namespace tsch::script

namespace tsch::script {
// Stable sort with an optional key function, as list.sort and sorted().
void sort_values(Interpreter& interp, std::vector<Value>& items, const Value& key, bool reverse);
}  // namespace tsch::script
