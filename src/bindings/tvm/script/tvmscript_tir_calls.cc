// The T.* calls of builtins and external functions: each checks its operands and builds the
// IR call TVM's builtin of that name is.
#include "bindings/tvm/script/tvmscript_tir_calls.h"

#include "bindings/tvm/script/tvmscript_tir_vector.h"
#include "ir/op.h"
#include "script/exceptions.h"
#include "script/object.h"
#include "values/ir_values.h"

namespace tsch::bindings {

using script::Args;
using script::ExcKind;
using script::raise;

void def_call_functions(script::Namespace& ns) {
  def_function(ns, "call_packed", "name, *args", [](Interpreter& interp, Args& a) {
    std::vector<ir::PrimExpr> args{std::make_shared<ir::StringImmNode>(a.get_str(0))};
    for (const auto& v : a.varargs()) {
      if (auto* b = v.as<BufferValue>()) {
        args.push_back(ir::stack_array_of(b->buffer));
      } else if (auto* s = v.as<script::Str>()) {
        args.push_back(std::make_shared<ir::StringImmNode>(s->value));
      } else {
        args.push_back(to_expr(interp, v, "T.call_packed argument"));
      }
    }
    return wrap(ir::call(ir::DataType::int32(), "call_packed", args));
  });
  // T.q_multiply_shift(x, y, q, s): TVM's fixed-point multiply of int32 values, round(x * y *
  // 2^(s - q)); code generation expands it into int64 arithmetic as TVM's lowering does.
  def_function(ns, "q_multiply_shift", "x, y, q, s, dtype=\"int32\"", [](Interpreter& interp, Args& a) {
    std::vector<ir::PrimExpr> args;
    for (size_t i = 0; i < 4; ++i) args.push_back(to_expr(interp, a[i], "T.q_multiply_shift argument"));
    for (size_t i = 0; i < 4; ++i) {
      if (!(args[i]->dtype.is_int() && args[i]->dtype.bits == 32 && args[i]->dtype.lanes == 1))
        a.type_error(i, "an int32 value");
    }
    return wrap(ir::call(to_dtype(interp, a[4], "T.q_multiply_shift dtype"), "q_multiply_shift", args));
  });
  // T.q_multiply_shift_per_axis(x, y, ls, rs, q, is_lshift_required, is_rshift_required): the
  // same multiply with the shifts given (per channel in TVM's requantization); the flags are
  // booleans (TVM's Select takes the first as its condition).
  def_function(ns, "q_multiply_shift_per_axis",
               "x, y, ls, rs, q, is_lshift_required, is_rshift_required, dtype=\"int32\"",
               [](Interpreter& interp, Args& a) {
                 std::vector<ir::PrimExpr> args;
                 for (size_t i = 0; i < 5; ++i) {
                   args.push_back(to_expr(interp, a[i], "T.q_multiply_shift_per_axis argument"));
                   if (!(args[i]->dtype.is_int() && args[i]->dtype.bits == 32 && args[i]->dtype.lanes == 1))
                     a.type_error(i, "an int32 value");
                 }
                 for (size_t i = 5; i < 7; ++i)
                   args.push_back(to_expr_as(interp, a[i], ir::DataType::bool_(), "T.q_multiply_shift_per_axis flag"));
                 return wrap(ir::call(to_dtype(interp, a[7], "T.q_multiply_shift_per_axis dtype"),
                                      "q_multiply_shift_per_axis", args));
               });
  // T.type_annotation(dtype): a value of no use but its type (the first argument of
  // T.tvm_access_ptr); T.tvm_access_ptr(ptype, data, offset, extent, rw_mask): an opaque
  // pointer to element `offset` of the data.
  def_function(ns, "type_annotation", "dtype", [](Interpreter& interp, Args& a) {
    return wrap(ir::call(to_dtype(interp, a[0], "T.type_annotation dtype"), "type_annotation", {}));
  });
  def_function(
      ns, "tvm_access_ptr", "ptype, data, offset, extent, rw_mask, dtype=\"handle\"", [](Interpreter& interp, Args& a) {
        // tvm.tir.tvm_access_ptr("float32", ...) names the type by a string: its T.type_annotation.
        ir::PrimExpr ptype = a[0].as<script::Str>()
                                 ? ir::call(to_dtype(interp, a[0], "T.tvm_access_ptr type"), "type_annotation", {})
                                 : to_expr(interp, a[0], "T.tvm_access_ptr type annotation");
        auto* annotation = ir::as<ir::CallNode>(ptype);
        if (!annotation || annotation->op != "type_annotation")
          raise(ExcKind::TypeError, "T.tvm_access_ptr: the first argument is T.type_annotation(dtype)");
        ir::PrimExpr data = to_expr(interp, a[1], "T.tvm_access_ptr data");
        if (!data->dtype.is_handle())
          raise(ExcKind::TypeError, "T.tvm_access_ptr: data must be a handle (B.data), got " + data->dtype.to_string());
        std::vector<ir::PrimExpr> args{ptype, data};
        for (size_t i = 2; i < 5; ++i) args.push_back(to_expr(interp, a[i], "T.tvm_access_ptr argument"));
        return wrap(ir::call(to_dtype(interp, a[5], "T.tvm_access_ptr dtype"), "tvm_access_ptr", args));
      });
  def_function(ns, "tvm_stack_make_shape", "*dims", [](Interpreter& interp, Args& a) {
    std::vector<ir::PrimExpr> dims;
    for (const auto& v : a.varargs()) dims.push_back(to_expr(interp, v, "T.tvm_stack_make_shape dimension"));
    return wrap(ir::call(ir::DataType::handle(), "tvm_stack_make_shape", dims));
  });
  def_function(ns, "tvm_stack_make_array", "data, shape, strides, ndim, arr_dtype, elem_offset",
               [](Interpreter& interp, Args& a) {
                 std::vector<ir::PrimExpr> args;
                 for (size_t i = 0; i < 6; ++i)
                   args.push_back(to_expr(interp, a[i], "T.tvm_stack_make_array argument"));
                 if (!args[0]->dtype.is_handle())
                   raise(ExcKind::TypeError,
                         "T.tvm_stack_make_array: data must be a handle (B.data), got " + args[0]->dtype.to_string());
                 return wrap(ir::call(ir::DataType::handle(), "tvm_stack_make_array", args));
               });
  // T.call_extern(dtype, name, *args), or T.call_extern(name, *args, dtype=...) as TVMScript's
  // dtype forwarding allows ("" is void).
  // T.call_pure_extern: the same, for a function without side effects.
  for (const char* op : {"call_extern", "call_pure_extern"}) {
    std::string name = op;
    def_function(ns, op, "*args, dtype=None", [name](Interpreter& interp, Args& a) {
      std::vector<Value> rest = a.varargs();
      Value dtype = take_dtype(rest, a[1], "T." + name);
      if (rest.empty() || !rest.front().as<script::Str>())
        raise(ExcKind::TypeError, "T." + name + ": expected the function name (a str)");
      std::vector<ir::PrimExpr> args{std::make_shared<ir::StringImmNode>(rest.front().as<script::Str>()->value)};
      for (size_t i = 1; i < rest.size(); ++i) args.push_back(to_expr(interp, rest[i], "T." + name + " argument"));
      auto* text = dtype.as<script::Str>();
      ir::DataType t =
          text && text->value.empty() ? ir::DataType::void_() : to_dtype(interp, dtype, "T." + name + " dtype");
      return wrap(ir::call(t, name, args));
    });
  }
}

}  // namespace tsch::bindings
