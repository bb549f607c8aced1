// Index and slice arithmetic shared by str, list, tuple and range, and the sort of list.sort
// and sorted(): below both the containers' methods and the interpreter's subscripting.
#include "script/sequence.h"

#include <fmt/format.h>

#include <algorithm>

#include "script/exceptions.h"
#include "script/interpreter.h"

namespace tsch::script {

size_t resolve_index(Interpreter& interp, const Value& index, int64_t size, const char* what) {
  if (!index.is_integral()) {
    raise(ExcKind::TypeError,
          fmt::format("{} indices must be integers or slices, not {}", what, Interpreter::type_name(index)));
  }
  int64_t i = index.as_int();
  if (i < 0) i += size;
  if (i < 0 || i >= size) raise(ExcKind::IndexError, fmt::format("{} index out of range", what));
  return static_cast<size_t>(i);
}

SliceBounds slice_bounds(const SliceObject& slice, int64_t size) {
  auto as_int = [](const Value& v, const char* part) -> int64_t {
    if (!v.is_integral()) {
      raise(ExcKind::TypeError, std::string("slice indices must be integers or None, not ") +
                                    Interpreter::type_name(v) + " (" + part + ")");
    }
    return v.as_int();
  };
  int64_t step = slice.step.is_none() ? 1 : as_int(slice.step, "step");
  if (step == 0) raise(ExcKind::ValueError, "slice step cannot be zero");
  int64_t lower = step < 0 ? -1 : 0;
  int64_t upper = step < 0 ? size - 1 : size;
  auto clamp = [&](const Value& v, int64_t fallback, const char* part) {
    if (v.is_none()) return fallback;
    int64_t i = as_int(v, part);
    if (i < 0) {
      i += size;
      if (i < lower) i = lower;
    } else if (i > upper) {
      i = upper;
    }
    return i;
  };
  int64_t start = clamp(slice.start, step < 0 ? upper : lower, "start");
  int64_t stop = clamp(slice.stop, step < 0 ? lower : upper, "stop");
  int64_t length = 0;
  if (step > 0 && start < stop) length = (stop - start - 1) / step + 1;
  if (step < 0 && start > stop) length = (start - stop - 1) / (-step) + 1;
  return SliceBounds{start, stop, step, length};
}

void sort_values(Interpreter& interp, std::vector<Value>& items, const Value& key, bool reverse) {
  std::vector<Value> keys;
  if (!key.is_none()) {
    keys.reserve(items.size());
    for (const auto& v : items) keys.push_back(interp.call(key, std::vector<Value>{v}));
  } else {
    keys = items;
  }
  std::vector<size_t> order(items.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  // stable_sort keeps Python's stability guarantee; reverse keeps it too by comparing swapped.
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    return reverse ? interp.less(keys[y], keys[x]) : interp.less(keys[x], keys[y]);
  });
  std::vector<Value> sorted;
  sorted.reserve(items.size());
  for (size_t i : order) sorted.push_back(items[i]);
  items = std::move(sorted);
}

}  // namespace tsch::script
