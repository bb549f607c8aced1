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

}  // namespace

std::shared_ptr<void> open_ir_module_frame(const ast::ClassDef& cls) {
  auto guard = std::make_shared<FrameGuard>();
  for (const auto& s : cls.body) {
    if (s->kind != ast::StmtKind::FunctionDef) continue;
    const auto& def = static_cast<const ast::FunctionDef&>(*s);
    if (!def.decorators.empty()) guard->frame.global_names.push_back(symbol_name(def.name));
  }
  frames().push_back(&guard->frame);
  return guard;
}

IRModuleFrame* current_ir_module_frame() { return frames().empty() ? nullptr : frames().back(); }

}  // namespace tsch::frontend
