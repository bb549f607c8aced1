#include "frontend/ir_module_frame.h"

namespace tsch::frontend {
namespace {

std::vector<IRModuleFrame*>& frames() {
  static thread_local std::vector<IRModuleFrame*> stack;
  return stack;
}

// Owns the frame and closes it when released.
struct FrameGuard {
  IRModuleFrame frame;
  ~FrameGuard() {
    auto& stack = frames();
    if (!stack.empty() && stack.back() == &frame) stack.pop_back();
  }
};

// `@T.prim_func`, `@R.function(pure=False)`, `@tvm.script.tir.prim_func`: the last name decides.
IRModuleFrame::GlobalKind kind_of_decorator(const ast::Expr& deco) {
  const ast::Expr* e = &deco;
  if (e->kind == ast::ExprKind::Call) e = static_cast<const ast::Call&>(*e).func.get();
  std::string last;
  if (e->kind == ast::ExprKind::Attribute) last = symbol_name(static_cast<const ast::Attribute&>(*e).attr);
  if (e->kind == ast::ExprKind::Name) last = symbol_name(static_cast<const ast::Name&>(*e).id);
  if (last == "prim_func") return IRModuleFrame::GlobalKind::PrimFunc;
  if (last == "function") return IRModuleFrame::GlobalKind::RelaxFunction;
  return IRModuleFrame::GlobalKind::Other;
}

}  // namespace

const IRModuleFrame::GlobalKind* global_kind(const IRModuleFrame& frame, const std::string& name) {
  for (size_t i = 0; i < frame.global_names.size(); ++i) {
    if (frame.global_names[i] == name) return &frame.global_kinds[i];
  }
  return nullptr;
}

std::shared_ptr<void> open_ir_module_frame(const ast::ClassDef& cls) {
  auto guard = std::make_shared<FrameGuard>();
  guard->frame.class_name = symbol_name(cls.name);
  for (const auto& s : cls.body) {
    if (s->kind != ast::StmtKind::FunctionDef) continue;
    const auto& def = static_cast<const ast::FunctionDef&>(*s);
    if (def.decorators.empty()) continue;
    guard->frame.global_names.push_back(symbol_name(def.name));
    guard->frame.global_kinds.push_back(kind_of_decorator(*def.decorators.back()));
    guard->frame.global_defs.push_back(&def);
  }
  frames().push_back(&guard->frame);
  return guard;
}

IRModuleFrame* current_ir_module_frame() { return frames().empty() ? nullptr : frames().back(); }

}  // namespace tsch::frontend
