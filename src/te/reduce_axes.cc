// The reduce-axis domains (reduce_axes.h).
#include "te/reduce_axes.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "ir/functor.h"

namespace tsch::te {

namespace {

std::mutex& axes_mutex() {
  static std::mutex m;
  return m;
}

std::unordered_map<const ir::VarNode*, std::pair<std::weak_ptr<const ir::VarNode>, ir::Range>>& reduce_axes() {
  static std::unordered_map<const ir::VarNode*, std::pair<std::weak_ptr<const ir::VarNode>, ir::Range>> m;
  return m;
}

}  // namespace

void register_reduce_axis(const ir::Var& v, const ir::Range& dom) {
  std::lock_guard<std::mutex> lock(axes_mutex());
  auto& axes = reduce_axes();
  for (auto it = axes.begin(); it != axes.end();) it = it->second.first.expired() ? axes.erase(it) : std::next(it);
  axes[v.get()] = {v, dom};
}

std::optional<ir::Range> reduce_axis_domain(const ir::VarNode* v) {
  std::lock_guard<std::mutex> lock(axes_mutex());
  auto it = v ? reduce_axes().find(v) : reduce_axes().end();
  if (it == reduce_axes().end() || it->second.first.expired()) return std::nullopt;
  return it->second.second;
}

const ir::VarNode* unreduced_axis(const ir::PrimExpr& e, const std::vector<const ir::VarNode*>& reduced) {
  const ir::VarNode* found = nullptr;
  if (!e) return nullptr;
  ir::for_each_expr(e, [&](const ir::PrimExpr& x) {
    auto* var = ir::as<ir::VarNode>(x);
    if (found || !var || std::find(reduced.begin(), reduced.end(), var) != reduced.end()) return;
    if (reduce_axis_domain(var)) found = var;
  });
  return found;
}

}  // namespace tsch::te
