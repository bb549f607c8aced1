// Script values that hold IR: expressions (with Python operators building IR), buffers,
// functions and modules; and the conversions between script values and IR.
#pragma once

#include <map>
#include <string>

#include "ir/module.h"
#include "script/interpreter.h"
#include "script/object.h"

namespace tsch::bindings {

using script::Interpreter;
using script::Value;

class ExprValue : public script::Object {
 public:
  explicit ExprValue(ir::PrimExpr e) : expr(std::move(e)) {}
  script::TypeObject* type() const override;
  std::string repr_hook(Interpreter& interp) override;
  ir::PrimExpr expr;
  // A variable from T.int32()/T.var() not yet named by an assignment.
  bool fresh = false;
};

class BufferValue : public script::Object {
 public:
  explicit BufferValue(ir::Buffer b) : buffer(std::move(b)) {}
  script::TypeObject* type() const override;
  std::string repr_hook(Interpreter& interp) override;
  ir::Buffer buffer;
  // From T.alloc_buffer/T.match_buffer/T.decl_buffer and not yet named by an assignment.
  bool fresh = false;
  // The data pointer was made with the buffer (named with it), not borrowed via `data=`.
  bool owns_data = true;
};

// A region of a buffer (tvm.tir.BufferRegion): `A[vi, 0:128]`, what T.reads / T.writes take.
class RegionValue : public script::Object {
 public:
  explicit RegionValue(ir::BufferRegion r) : region(std::move(r)) {}
  script::TypeObject* type() const override;
  ir::BufferRegion region;
};

// A function of any kind (tvm.ir.BaseFunc); each dialect's function value derives from it.
// `name` is the name it was defined or looked up under (printing needs one).
class FunctionValue : public script::Object {
 public:
  explicit FunctionValue(std::string n) : name(std::move(n)) {}
  virtual ir::BaseFunc base_func() const = 0;
  std::string repr_hook(Interpreter& interp) override;
  std::string name;
};

class PrimFuncValue : public FunctionValue {
 public:
  PrimFuncValue(ir::PrimFunc f, std::string n) : FunctionValue(std::move(n)), func(std::move(f)) {}
  script::TypeObject* type() const override;
  ir::BaseFunc base_func() const override { return func; }
  ir::PrimFunc func;
};

// A module's global name (tvm.ir.GlobalVar). Equal and hashed by name: a module holds one
// function per name.
class GlobalVarValue : public script::Object {
 public:
  explicit GlobalVarValue(std::string n) : name_hint(std::move(n)) {}
  script::TypeObject* type() const override;
  std::string repr_hook(Interpreter&) override { return "I.GlobalVar(\"" + name_hint + "\")"; }
  std::string name_hint;
};

class IRModuleValue : public script::Object {
 public:
  explicit IRModuleValue(ir::IRModule m) : module(std::move(m)) {}
  script::TypeObject* type() const override;
  std::string repr_hook(Interpreter& interp) override;
  bool get_attr_hook(Interpreter& interp, Symbol name, Value& out) override;
  ir::IRModule module;
};

script::TypeRef expr_type();
script::TypeRef var_type();
script::TypeRef buffer_type();
script::TypeRef base_func_type();
script::TypeRef prim_func_type();
script::TypeRef ir_module_type();
script::TypeRef global_var_type();

Value wrap(ir::PrimExpr e);
Value wrap(ir::Buffer b);
// A script list of the wrapped expressions / buffers (a node's indices, args, ...).
Value wrap_list(const std::vector<ir::PrimExpr>& exprs);
Value wrap_list(const std::vector<ir::Buffer>& buffers);

// Converts int/float/bool/PrimExpr values to IR; raises TypeError naming `what` otherwise.
ir::PrimExpr to_expr(Interpreter& interp, const Value& v, const std::string& what);
// Like to_expr, but Python literals take `dtype` (e.g. `Y[i] = 0` into a float32 buffer).
ir::PrimExpr to_expr_as(Interpreter& interp, const Value& v, ir::DataType dtype, const std::string& what);
bool is_expr(const Value& v);
// A dtype from a string ("float32") or a dtype object (T.float32).
ir::DataType to_dtype(Interpreter& interp, const Value& v, const std::string& what);

// Runs an IR-building call, turning IRError into tvm.error.InternalError (as TVM's ICHECKs).
template <typename F>
auto guard_ir(F&& f) -> decltype(f());
// The same, and a C++ core's UserError (support/error.h) raised as its script exception.
template <typename F>
auto guard_core(F&& f) -> decltype(f());

// The IRModule of a module or function value (a PrimFunc becomes {"main": f}).
ir::IRModule to_module(Interpreter& interp, const Value& v, const std::string& what);
// The script value of a function of any kind; dialects other than TIR register theirs.
Value wrap_function(const ir::BaseFunc& f, const std::string& name);
using FunctionWrapper = Value (*)(const ir::BaseFunc& f, const std::string& name);
std::map<ir::FuncKind, FunctionWrapper>& function_wrappers();

}  // namespace tsch::bindings

#include "values/ir_values_inl.h"
