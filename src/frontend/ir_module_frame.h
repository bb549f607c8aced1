// The @I.ir_module class being defined: its body runs as script code (the decorated defs in
// it are taken over by their dialect's front end), and module-level calls such as
// I.module_attrs record into this frame, as TVM's IRBuilder frames do.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/stmt.h"
#include "relax/struct_info.h"
#include "syntax/ast.h"

namespace tsch::frontend {

struct IRModuleFrame {
  // What a decorated def of the class is, read from its decorator before the body runs.
  enum class GlobalKind { PrimFunc, RelaxFunction, Other };
  // The names of the functions the class defines (its decorated defs), in order: known before
  // the body runs, so a function may refer to one defined after it.
  std::vector<std::string> global_names;
  std::vector<GlobalKind> global_kinds;              // per global name
  std::vector<const ast::FunctionDef*> global_defs;  // per global name (the class AST outlives the frame)
  std::string class_name;
  // Signatures of the class's Relax functions (R.Callable), computed on first use by the Relax
  // front end so a call `cls.f(x)` knows what it returns.
  std::map<std::string, relax::StructInfo> relax_signatures;
  std::optional<ir::AttrMap> attrs;
  // Set when the decorator has built the module from this frame.
  bool consumed = false;
};

// The kind of global `name` of `frame`, or null when the class defines no such function.
const IRModuleFrame::GlobalKind* global_kind(const IRModuleFrame& frame, const std::string& name);

// Opens a frame for `cls`; it closes when the returned guard is released.
std::shared_ptr<void> open_ir_module_frame(const ast::ClassDef& cls);
// The innermost open frame on this thread, or null.
IRModuleFrame* current_ir_module_frame();

}  // namespace tsch::frontend
