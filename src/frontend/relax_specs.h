// The values the R.* namespace hands to the Relax front end (as tir_specs.h for T.*): a
// match_cast pair, the dataflow header, the module reference `cls`, and struct info
// annotations (`R.Tensor((1, "m"), "float32")`, or uncalled `x: R.Tensor`) whose string
// dimensions resolve through the function being parsed.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "relax/expr.h"
#include "script/interpreter.h"
#include "script/object.h"

namespace tsch::frontend {

using script::Interpreter;
using script::Value;

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

// R.Tensor, R.Shape, R.Tuple, R.Prim, R.Callable (`kind` Func): callable, and usable uncalled
// as an annotation.
Value sinfo_factory(relax::SInfoKind kind);
// Struct info from an annotation value; TypeError naming `what` otherwise.
relax::StructInfo to_struct_info(script::Interpreter& interp, const Value& v, const std::string& what);
// A tuple or list of dimensions: ints, expressions, or names ("m") of the function's
// symbolic variables (int64).
std::vector<ir::PrimExpr> to_dims(script::Interpreter& interp, const Value& v, const std::string& what);

}  // namespace tsch::frontend
