// T.* math functions and intrinsics of one to three arguments (tvmscript_tir_math.h).
#include "bindings/tvm/script/tvmscript_tir_math.h"

#include "ir/float_class.h"
#include "ir/if_then_else.h"
#include "ir/op.h"
#include "script/object.h"
#include "script/signature.h"
#include "values/ir_values.h"

namespace tsch::bindings {

using script::Args;
using script::Namespace;

namespace {

void def_math(Namespace& ns, const char* name, int arity) {
  std::string op_name = name;
  // dtype= is accepted and dropped, as TVM's ir_builder wrappers of these functions do.
  std::string sig = std::string(op_name == "likely" ? "cond"
                                : arity == 1        ? "x"
                                : arity == 2        ? "x, y"
                                                    : "x, y, z") +
                    ", dtype=None";
  def_function(ns, name, sig, [op_name, arity](Interpreter& interp, Args& a) {
    std::vector<ir::PrimExpr> args;
    for (int i = 0; i < arity; ++i) args.push_back(to_expr(interp, a[static_cast<size_t>(i)], op_name + " argument"));
    ir::DataType t = args[0]->dtype;
    if (op_name == "if_then_else") return wrap(guard_ir([&] { return ir::if_then_else(args[0], args[1], args[2]); }));
    if (op_name == "isnan" || op_name == "isinf" || op_name == "isfinite")
      return wrap(ir::float_class_test(op_name, args[0]));
    return wrap(ir::call(t, op_name, args));
  });
}

}  // namespace

void def_math_functions(Namespace& ns) {
  for (const char* f :
       {"exp",  "exp2",  "exp10", "log",   "log2",  "log10",     "log1p",    "sqrt",     "rsqrt", "tanh", "sigmoid",
        "fabs", "floor", "ceil",  "round", "trunc", "nearbyint", "sin",      "cos",      "tan",   "asin", "acos",
        "atan", "sinh",  "cosh",  "erf",   "isnan", "isinf",     "isfinite", "popcount", "likely"}) {
    def_math(ns, f, 1);
  }
  def_math(ns, "pow", 2);
  def_math(ns, "atan2", 2);
  def_math(ns, "fmod", 2);
  def_math(ns, "if_then_else", 3);
}

}  // namespace tsch::bindings
