// The @I.ir_module class being defined: its body runs as script code (the decorated defs in
// it are taken over by their dialect's front end), and module-level calls such as
// I.module_attrs record into this frame, as TVM's IRBuilder frames do.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/stmt.h"
#include "syntax/ast.h"

namespace tsch::frontend {

struct IRModuleFrame {
  // The names of the functions the class defines (its decorated defs), in order: known before
  // the body runs, so a function may refer to one defined after it.
  std::vector<std::string> global_names;
  std::optional<ir::AttrMap> attrs;
  // Set when the decorator has built the module from this frame.
  bool consumed = false;
};

// Opens a frame for `cls`; it closes when the returned guard is released.
std::shared_ptr<void> open_ir_module_frame(const ast::ClassDef& cls);
// The innermost open frame on this thread, or null.
IRModuleFrame* current_ir_module_frame();

}  // namespace tsch::frontend
