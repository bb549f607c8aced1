// T.* builtins of TVM's ldmatrix / mma tensor-core intrinsics, with TVM's argument lists:
//   T.ptx_ldmatrix(dtype, trans, num, ".b16", local_ptr, local_offset, smem_ptr, smem_offset)
//   T.ptx_mma(dtype, shape, "row", "col", a_type, b_type, c_type, A, a_offset, B, b_offset,
//             C, c_offset, saturate[, bit_op])
//   T.mma_store(dtype, m, n, dst_ptr, src_ptr, src_offset, dst_stride)
//   T.mma_fill(dtype, local_size, local_ptr, offset)
// (the dtype first, or as dtype=..., TVMScript's dtype forwarding). Kinds of operands are
// checked here; which shapes and types code generation has is checked there
// (transform/mma_builtins.h).
#include "bindings/tvm/script/tvmscript_tir_mma.h"

#include <fmt/format.h>

#include "bindings/tvm/script/tvmscript_tir_vector.h"
#include "ir/op.h"
#include "ir/printer.h"
#include "script/exceptions.h"
#include "values/ir_values.h"

namespace tsch::bindings {

using script::Args;
using script::ExcKind;
using script::Interpreter;
using script::raise;
using script::Value;

namespace {

// The operands of one call, checked by kind with the builtin and the parameter named.
class Operands {
 public:
  Operands(Interpreter& interp, std::string op, std::vector<Value> values, const std::vector<std::string>& params,
           size_t optional = 0)
      : interp_(interp), op_(std::move(op)), values_(std::move(values)), params_(params) {
    size_t n = values_.size();
    if (n + optional < params.size() || n > params.size()) {
      std::string list;
      for (size_t i = 0; i < params.size(); ++i) list += (i ? ", " : "") + params[i];
      raise(ExcKind::TypeError,
            fmt::format("T.{} takes {} operands after the dtype ({}), got {}", op_, params.size(), list, n));
    }
  }
  size_t size() const { return values_.size(); }
  ir::PrimExpr str(size_t i) {
    auto* s = values_[i].as<script::Str>();
    if (!s) fail(i, "a string");
    return std::make_shared<ir::StringImmNode>(s->value);
  }
  ir::PrimExpr handle(size_t i) {
    ir::PrimExpr e = expr(i);
    if (!e->dtype.is_handle()) fail(i, "a pointer (a buffer's .data or access_ptr), got " + e->dtype.to_string());
    return e;
  }
  ir::PrimExpr index(size_t i) {
    ir::PrimExpr e = expr(i);
    if (!e->dtype.is_integer() || e->dtype.lanes != 1) fail(i, "an integer, got " + e->dtype.to_string());
    return e;
  }
  ir::PrimExpr constant(size_t i) {
    ir::PrimExpr e = index(i);
    int64_t v;
    if (!ir::as_const_int(e, &v)) fail(i, "a constant integer, got " + ir::script(e));
    return e;
  }
  ir::PrimExpr boolean(size_t i) {
    if (values_[i].is_bool()) return ir::make_bool(values_[i].as_bool());
    ir::PrimExpr e = expr(i);
    int64_t v;
    if (!ir::as_const_int(e, &v) || (v != 0 && v != 1)) fail(i, "a constant bool, got " + ir::script(e));
    return ir::make_bool(v != 0);
  }

 private:
  ir::PrimExpr expr(size_t i) { return to_expr(interp_, values_[i], "T." + op_ + " " + params_[i]); }
  [[noreturn]] void fail(size_t i, const std::string& expected) {
    raise(ExcKind::TypeError, fmt::format("T.{}: operand {} ({}) must be {}", op_, i + 1, params_[i], expected));
  }
  Interpreter& interp_;
  std::string op_;
  std::vector<Value> values_;
  std::vector<std::string> params_;
};

}  // namespace

void def_mma_functions(script::Namespace& ns) {
  def_function(ns, "ptx_ldmatrix", "*args, dtype=None", [](Interpreter& interp, Args& a) {
    std::vector<Value> rest = a.varargs();
    ir::DataType t = to_dtype(interp, take_dtype(rest, a[1], "T.ptx_ldmatrix"), "T.ptx_ldmatrix dtype");
    Operands o(interp, "ptx_ldmatrix", rest,
               {"trans", "num", "type", "local_ptr", "local_offset", "smem_ptr", "smem_offset"});
    std::vector<ir::PrimExpr> args{o.boolean(0), o.constant(1), o.str(2),  o.handle(3),
                                   o.index(4),   o.handle(5),   o.index(6)};
    return wrap(ir::call(t, "ptx_ldmatrix", args));
  });
  def_function(ns, "ptx_mma", "*args, dtype=None", [](Interpreter& interp, Args& a) {
    std::vector<Value> rest = a.varargs();
    ir::DataType t = to_dtype(interp, take_dtype(rest, a[1], "T.ptx_mma"), "T.ptx_mma dtype");
    Operands o(interp, "ptx_mma", rest,
               {"shape", "A_layout", "B_layout", "A_dtype", "B_dtype", "C_dtype", "multiplicand_a", "a_index",
                "multiplicand_b", "b_index", "accumulator", "c_index", "saturate", "bit_op"},
               1);
    std::vector<ir::PrimExpr> args{o.str(0),     o.str(1),    o.str(2),     o.str(3),    o.str(4),
                                   o.str(5),     o.handle(6), o.index(7),   o.handle(8), o.index(9),
                                   o.handle(10), o.index(11), o.boolean(12)};
    if (o.size() == 14) args.push_back(o.str(13));
    return wrap(ir::call(t, "ptx_mma", args));
  });
  def_function(ns, "mma_store", "*args, dtype=None", [](Interpreter& interp, Args& a) {
    std::vector<Value> rest = a.varargs();
    ir::DataType t = to_dtype(interp, take_dtype(rest, a[1], "T.mma_store"), "T.mma_store dtype");
    Operands o(interp, "mma_store", rest, {"m", "n", "dst_ptr", "src_ptr", "src_offset", "dst_stride"});
    return wrap(
        ir::call(t, "mma_store", {o.constant(0), o.constant(1), o.handle(2), o.handle(3), o.index(4), o.index(5)}));
  });
  def_function(ns, "mma_fill", "*args, dtype=None", [](Interpreter& interp, Args& a) {
    std::vector<Value> rest = a.varargs();
    ir::DataType t = to_dtype(interp, take_dtype(rest, a[1], "T.mma_fill"), "T.mma_fill dtype");
    Operands o(interp, "mma_fill", rest, {"local_size", "local_ptr", "offset"});
    return wrap(ir::call(t, "mma_fill", {o.constant(0), o.handle(1), o.index(2)}));
  });
}

}  // namespace tsch::bindings
