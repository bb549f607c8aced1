// TVMScript printer: IRModule / functions / fragments to the text TVM prints
// (TVM-REFERENCE.md §2.3), which the front end reads back. The module printer is shared;
// each dialect prints its own functions (tir_printer.h; Relax registers its printer in
// function_printer_table()).
#pragma once

#include <string>

#include "ir/module.h"
#include "ir/printer_base.h"

namespace tsch::ir {

std::string script(const IRModule& mod, const PrintOptions& options = {});
// A single function, printed with its dialect's header (`# from tvm.script import tir as T`).
std::string script(const BaseFunc& func, const std::string& name, const PrintOptions& options = {});
inline std::string script(const PrimFunc& func, const std::string& name, const PrintOptions& options = {}) {
  return script(BaseFunc(func), name, options);
}
// Expressions and statements on their own (free variables keep their names).
std::string script(const PrimExpr& expr);
std::string script(const Stmt& stmt);
// An attribute value / dictionary as TVMScript spells it (`{"key": 1, "flag": True}`).
std::string script(const AttrValue& value);
std::string script(const AttrMap& attrs);
// A pointer type as TVM prints one: `T.handle("float32", "global")`.
std::string script(const PointerType& type);
// The type a variable is declared with: its pointer type, else `T.int32`, `T.handle`, ...
std::string var_type_script(const VarNode& var);

}  // namespace tsch::ir
