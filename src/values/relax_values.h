// Relax values in scripts: expressions (variables, calls, tuples, constants), struct info,
// functions, a dataflow variable used after its block, the `metadata` placeholder. What the
// R.* functions hand only to the Relax front end (a match_cast pair, the dataflow header, the
// module reference `cls`, annotations such as `R.Tensor`) is in frontend/relax_specs.h.
#pragma once

#include <functional>
#include <string>

#include "relax/expr.h"
#include "runtime/ndarray.h"
#include "values/ir_values.h"

namespace tsch::bindings {

class RelaxExprValue : public script::Object {
 public:
  explicit RelaxExprValue(relax::Expr e) : expr(std::move(e)) {}
  script::TypeObject* type() const override;
  std::string repr_hook(Interpreter& interp) override;
  relax::Expr expr;
};

class StructInfoValue : public script::Object {
 public:
  explicit StructInfoValue(relax::StructInfo s) : sinfo(std::move(s)) {}
  script::TypeObject* type() const override;
  std::string repr_hook(Interpreter&) override { return relax::sinfo_text(sinfo); }
  relax::StructInfo sinfo;
};

class RelaxFunctionValue : public FunctionValue {
 public:
  RelaxFunctionValue(relax::Function f, std::string n) : FunctionValue(std::move(n)), func(std::move(f)) {}
  script::TypeObject* type() const override;
  ir::BaseFunc base_func() const override { return func; }
  relax::Function func;
};

// A dataflow variable after its block: using it is an error that says why.
class HiddenDataflowVarValue : public script::Object {
 public:
  script::TypeObject* type() const override;
  std::string name;
  int block_line = 0;
};

// `metadata[...]` in a text printed without show_meta=True: the constants' values are not in
// it, which this says when indexed (show_meta text defines `metadata` itself).
class MetadataPlaceholderValue : public script::Object {
 public:
  script::TypeObject* type() const override;
};

// Script value → Relax expression: Relax values, tuples of them, numbers (R.const), shapes.
// Raises TypeError naming `what` otherwise.
relax::Expr to_relax_expr(Interpreter& interp, const Value& v, const std::string& what);
bool is_relax_expr(const Value& v);
Value wrap_relax(relax::Expr e);
// `R.ExternFunc("name")` / `relax.ExternFunc("name")` as a module function (a declaration the
// module holds under a name), or null when `v` is not one.
ir::BaseFunc as_extern_func_decl(const Value& v);
script::TypeRef relax_function_type();

// What numpy / tvm.nd arrays are to to_relax_expr (a constant's data; null for other values).
// Their value class is above this folder, in numpy/, which sets this when it registers.
using ArrayConstantHook = std::shared_ptr<runtime::NDArray> (*)(const Value& v);
void set_array_constant_hook(ArrayConstantHook hook);

}  // namespace tsch::bindings
