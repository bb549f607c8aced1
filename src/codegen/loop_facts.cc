#include "codegen/loop_facts.h"

#include <unordered_set>

#include "ir/functor.h"
#include "ir/op.h"

namespace tsch::codegen {

bool holds_heavy_loop(const ir::Stmt& body) {
  bool heavy = false;
  ir::for_each_stmt(body, [&](const ir::Stmt& s) {
    auto* loop = ir::as<ir::ForNode>(s);
    if (!loop || heavy) return;
    int64_t extent;
    bool small = ir::as_const_int(loop->extent, &extent) && extent <= 64;
    bool nested = false;
    ir::for_each_stmt(loop->body, [&](const ir::Stmt& inner) { nested |= ir::as<ir::ForNode>(inner) != nullptr; });
    heavy = nested || !small;
  });
  return heavy;
}

std::vector<const ir::VarNode*> free_vars(const ir::ForNode& loop,
                                          const std::function<bool(const ir::VarNode*)>& in_scope) {
  std::vector<const ir::VarNode*> out;
  std::unordered_set<const ir::VarNode*> seen;
  auto use = [&](const ir::VarNode* v) {
    if (v != loop.loop_var.get() && in_scope(v) && seen.insert(v).second) out.push_back(v);
  };
  ir::for_each_expr(loop.body, [&](const ir::PrimExpr& e) {
    if (auto* v = ir::as<ir::VarNode>(e)) use(v);
    if (auto* l = ir::as<ir::BufferLoadNode>(e)) use(l->buffer->data.get());
  });
  ir::for_each_stmt(loop.body, [&](const ir::Stmt& s) {
    if (auto* st = ir::as<ir::BufferStoreNode>(s)) use(st->buffer->data.get());
  });
  for (const auto& e : {loop.min, loop.extent})
    ir::for_each_expr(e, [&](const ir::PrimExpr& x) {
      if (auto* v = ir::as<ir::VarNode>(x)) use(v);
    });
  return out;
}

}  // namespace tsch::codegen
