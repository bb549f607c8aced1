// Relax values in scripts: expressions (variables, calls, tuples, constants), struct info
// annotations (`R.Tensor((1, "m"), "float32")`), functions, and what the R.* functions hand
// to the Relax front end (a match_cast pair, the dataflow header, the module reference
// `cls`). String dimensions in annotations resolve through the function being parsed.
#pragma once

#include <functional>
#include <string>

#include "bindings/ir_values.h"
#include "relax/expr.h"

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

// `R.match_cast(value, sinfo)`: bound by an assignment into a MatchCast binding.
class MatchCastValue : public script::Object {
 public:
  MatchCastValue(relax::Expr v, relax::StructInfo s) : value(std::move(v)), sinfo(std::move(s)) {}
  script::TypeObject* type() const override;
  relax::Expr value;
  relax::StructInfo sinfo;
};

// `with R.dataflow():`.
class DataflowHeaderValue : public script::Object {
 public:
  script::TypeObject* type() const override;
};

// The module class's name inside its Relax functions (`cls = Module; cls.linear0`): each
// attribute is the GlobalVar of a function the class defines.
class ModuleRefValue : public script::Object {
 public:
  script::TypeObject* type() const override;
  bool get_attr_hook(Interpreter& interp, Symbol name, Value& out) override;
  std::string class_name;
  // The signature of the module's Relax function `name` (null while unavailable).
  std::function<relax::StructInfo(const std::string&)> signature_of;
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
relax::StructInfo to_struct_info(Interpreter& interp, const Value& v, const std::string& what);
Value wrap_relax(relax::Expr e);
// `R.ExternFunc("name")` / `relax.ExternFunc("name")` as a module function (a declaration the
// module holds under a name), or null when `v` is not one.
ir::BaseFunc as_extern_func_decl(const Value& v);
script::TypeRef relax_function_type();

}  // namespace tsch::bindings
