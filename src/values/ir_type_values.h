// Types of TIR variables in scripts: `tvm.ir.PrimType` and `tvm.ir.PointerType` (what a
// Var's type_annotation holds), and the TVMScript spellings of pointer variables —
// `T.handle("float32", "shared")`, `T.Ptr[T.float32]`, `T.ptr("float32")`.
#pragma once

#include <optional>
#include <string>

#include "ir/expr.h"
#include "script/interpreter.h"

namespace tsch::bindings {

using script::Interpreter;
using script::Value;

// A variable's TVM type annotation: its PointerType, else PrimType(dtype).
Value type_annotation_value(const ir::VarNode& var);

// The type a new Var takes (tvm.tir.Var(name, t), te.var): a dtype string or object, a
// tvm.ir.PrimType or a tvm.ir.PointerType.
struct VarType {
  ir::DataType dtype;
  std::optional<ir::PointerType> pointer;
};
VarType to_var_type(Interpreter& interp, const Value& v, const std::string& what);
ir::Var make_typed_var(std::string name, const VarType& type);

// The pointer variable a TVMScript type made (`T.handle("float32")`, `T.Ptr[T.float32]`) and
// no assignment has named yet; null for any other value.
const ir::VarNode* pointer_var_annotation(const Value& v);

// TVM's T.handle(dtype=None, storage_scope="global"): a fresh pointer variable when it names
// what it points to or a scope, else a fresh opaque handle.
Value fresh_handle_var(Interpreter& interp, const Value& dtype, const Value& storage_scope);

// T.Ptr (TVM's deprecated PtrProxy), T.ptr and T.buffer_var in the TVMScript namespace.
void def_pointer_functions(script::Namespace& ns);
// tvm.ir.PrimType and tvm.ir.PointerType.
void def_ir_types(script::Namespace& ns);

}  // namespace tsch::bindings
