// T.* functions of vector code and LLVM intrinsics, as TVM's tensor intrinsics write them:
// T.ramp / T.broadcast, T.reinterpret, T.vectorlow / T.vectorhigh, T.llvm_lookup_intrinsic_id,
// T.call_llvm_pure_intrin / T.call_llvm_intrin.
#include "bindings/tvm/script/tvmscript_tir_vector.h"

#include <fmt/format.h>

#include "frontend/tir_specs.h"
#include "ir/op.h"
#include "script/exceptions.h"
#include "support/symbol.h"
#include "values/ir_values.h"

namespace tsch::bindings {

using script::Args;
using script::ExcKind;
using script::Interpreter;
using script::raise;
using script::Value;

Value take_dtype(std::vector<Value>& args, const Value& dtype_keyword, const std::string& function) {
  if (!dtype_keyword.is_none()) return dtype_keyword;
  if (args.empty()) raise(ExcKind::TypeError, function + ": missing the dtype");
  Value dtype = args.front();
  args.erase(args.begin());
  return dtype;
}

void def_vector_functions(script::Namespace& ns) {
  // TVM's lower-case spellings (tvm.tir.ramp / broadcast), as tensor intrinsics write them.
  ns.set(intern("ramp"), *ns.find(intern("Ramp")));
  ns.set(intern("broadcast"), *ns.find(intern("Broadcast")));
  // T.reinterpret(value, dtype=...) / T.reinterpret(dtype, value): the same bits read as
  // another type of the same total width (a bitcast).
  def_function(ns, "reinterpret", "*args, dtype=None", [](Interpreter& interp, Args& a) {
    std::vector<Value> rest = a.varargs();
    Value dtype = take_dtype(rest, a[1], "T.reinterpret");
    if (rest.size() != 1) raise(ExcKind::TypeError, "T.reinterpret: expected one value");
    ir::DataType t = to_dtype(interp, dtype, "T.reinterpret dtype");
    ir::PrimExpr value = to_expr(interp, rest[0], "T.reinterpret value");
    if (t.bits * t.lanes != value->dtype.bits * value->dtype.lanes) {
      raise(ExcKind::ValueError,
            fmt::format("T.reinterpret: {} and {} differ in size ({} vs {} bits)", value->dtype.to_string(),
                        t.to_string(), value->dtype.bits * value->dtype.lanes, t.bits * t.lanes));
    }
    return wrap(ir::call(t, "reinterpret", {value}));
  });
  // T.vectorlow / T.vectorhigh(vec, dtype=...): the first / second half of a vector's lanes.
  for (const char* op : {"vectorlow", "vectorhigh"}) {
    std::string name = op;
    def_function(ns, op, "*args, dtype=None", [name](Interpreter& interp, Args& a) {
      std::vector<Value> rest = a.varargs();
      Value dtype = take_dtype(rest, a[1], "T." + name);
      if (rest.size() != 1) raise(ExcKind::TypeError, "T." + name + ": expected one vector");
      ir::DataType t = to_dtype(interp, dtype, "T." + name + " dtype");
      ir::PrimExpr v = to_expr(interp, rest[0], "T." + name + " vector");
      if (v->dtype.lanes % 2 != 0 || t != v->dtype.with_lanes(v->dtype.lanes / 2)) {
        raise(ExcKind::ValueError, "T." + name + ": " + t.to_string() + " is not half of " + v->dtype.to_string());
      }
      return wrap(ir::call(t, name, {v}));
    });
  }
  // T.llvm_lookup_intrinsic_id("llvm.x86...."): the intrinsic, named (code generation looks it
  // up); T.call_llvm_pure_intrin / T.call_llvm_intrin(dtype, intrinsic, *args) call it. TVM
  // v0.18's leading argument count (T.uint32(n)) is accepted and dropped.
  def_function(ns, "llvm_lookup_intrinsic_id", "name", [](Interpreter&, Args& a) {
    const std::string& name = a.get_str(0);
    if (name.rfind("llvm.", 0) != 0) a.value_error(0, "an LLVM intrinsic name such as \"llvm.x86.avx2.pmadd.wd\"");
    return wrap(ir::PrimExpr(std::make_shared<ir::StringImmNode>(name)));
  });
  for (const char* op : {"call_llvm_pure_intrin", "call_llvm_intrin"}) {
    std::string name = op;
    def_function(ns, op, "*args, dtype=None", [name](Interpreter& interp, Args& a) {
      std::vector<Value> rest = a.varargs();
      Value dtype = take_dtype(rest, a[1], "T." + name);
      if (rest.empty())
        raise(ExcKind::TypeError, "T." + name + ": missing the intrinsic (a name or T.llvm_lookup_intrinsic_id(name))");
      ir::PrimExpr intrinsic = to_expr(interp, rest.front(), "T." + name + " intrinsic");
      auto* text = ir::as<ir::StringImmNode>(intrinsic);
      if (!text || text->value.rfind("llvm.", 0) != 0)
        raise(
            ExcKind::TypeError,
            "T." + name + ": the intrinsic must be named, e.g. T.llvm_lookup_intrinsic_id(\"llvm.x86.avx2.pmadd.wd\")");
      std::vector<ir::PrimExpr> args{intrinsic};
      for (size_t i = 1; i < rest.size(); ++i) args.push_back(to_expr(interp, rest[i], "T." + name + " argument"));
      int64_t count;
      if (args.size() >= 2 && args[1]->dtype == ir::DataType::uint(32) && ir::as_const_int(args[1], &count) &&
          count == static_cast<int64_t>(args.size()) - 2) {
        args.erase(args.begin() + 1);
      }
      return wrap(ir::call(to_dtype(interp, dtype, "T." + name + " dtype"), name, args));
    });
  }
}

}  // namespace tsch::bindings
