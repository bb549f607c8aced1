// TVM's builtin ops (src/tir/op/builtin.cc) as the calls tvm/tir/op.py builds: each is a Call
// of "tir.<name>" with the result type TVM gives it (the table: ir/builtin_ops.h). Code
// generation refuses those it has no lowering for ("not supported yet: the intrinsic T.<name>
// ..."); they print and parse back.
#include "bindings/tvm/script/tvmscript_tir_builtins.h"

#include "ir/builtin_ops.h"
#include "ir/op.h"
#include "script/exceptions.h"
#include "script/object.h"
#include "script/signature.h"
#include "values/ir_values.h"

namespace tsch::bindings {

using ir::DataType;
using script::Args;
using script::ExcKind;
using script::raise;

namespace {

// An operand: a string becomes a StringImm (lookup_param's name, ptx_mma_sp's layouts).
ir::PrimExpr operand(Interpreter& interp, const Value& v, const std::string& op) {
  if (auto* s = v.as<script::Str>()) return std::make_shared<ir::StringImmNode>(s->value);
  return to_expr(interp, v, "T." + op + " argument");
}

std::vector<ir::PrimExpr> operands(Interpreter& interp, const std::vector<Value>& values, const std::string& op) {
  std::vector<ir::PrimExpr> out;
  for (const Value& v : values) out.push_back(operand(interp, v, op));
  return out;
}

Value build(Interpreter& interp, Args& a, const ir::BuiltinOp& b, const std::vector<script::Parameter>& params) {
  using ir::BuiltinResult;
  std::vector<Value> values;
  for (size_t i = 0; i < params.size(); ++i) {
    const script::Parameter& p = params[i];
    if (p.kind == script::Parameter::Kind::VarArgs) {
      for (const Value& v : a.varargs()) values.push_back(v);
      continue;
    }
    bool result_type =
        p.name == "dtype" && (b.result == BuiltinResult::DtypeFirst || b.result == BuiltinResult::DtypeLast);
    if (p.name != "span" && !result_type) values.push_back(a[i]);
  }
  std::vector<ir::PrimExpr> args = operands(interp, values, b.name);
  DataType t = DataType::void_();
  if (b.result == BuiltinResult::DtypeFirst) t = to_dtype(interp, a[0], std::string("T.") + b.name + " dtype");
  if (b.result == BuiltinResult::DtypeLast)
    t = to_dtype(interp, a[params.size() - 1], std::string("T.") + b.name + " dtype");
  return wrap(ir::builtin_call(b, t, std::move(args)));
}

}  // namespace

void def_builtin_functions(script::Namespace& ns) {
  for (const ir::BuiltinOp& b : ir::builtin_ops()) {
    std::vector<script::Parameter> params = script::Signature::parse(b.params).params();
    def_function(ns, b.name, b.params,
                 [&b, params](Interpreter& interp, Args& a) { return build(interp, a, b, params); });
  }
  // address_of(buffer or buffer[i]): the element's address (a Buffer means its first element).
  def_function(ns, "address_of", "obj, span=None", [](Interpreter& interp, Args& a) {
    ir::PrimExpr load;
    if (auto* buf = a[0].as<BufferValue>()) {
      load = ir::buffer_load(buf->buffer, std::vector<ir::PrimExpr>(buf->buffer->shape.size(), ir::make_int(0)));
    } else {
      load = to_expr(interp, a[0], "T.address_of argument");
      if (load->kind != ir::ExprKind::BufferLoad) a.type_error(0, "a Buffer or a BufferLoad");
    }
    return wrap(ir::call(DataType::handle(), "address_of", {load}));
  });
  // dp4a(vec1, vec2, acc=0): the int8x4 dot product accumulated into int32. TVMScript prints
  // the result type first (T.dp4a("int32", ...)), which is accepted and checked here.
  def_function(ns, "dp4a", "*args", [](Interpreter& interp, Args& a) {
    std::vector<Value> values = a.varargs();
    if (!values.empty() && values[0].as<script::Str>()) {
      if (to_dtype(interp, values[0], "T.dp4a dtype") != DataType::int32())
        raise(ExcKind::TypeError, "T.dp4a: its result is int32");
      values.erase(values.begin());
    }
    if (values.size() < 2 || values.size() > 3)
      raise(ExcKind::TypeError, "dp4a() takes vec1, vec2 and an optional acc");
    std::vector<ir::PrimExpr> args = operands(interp, values, "dp4a");
    if (args.size() == 2) args.push_back(ir::make_int(0));
    return wrap(ir::call(DataType::int32(), "dp4a", std::move(args)));
  });
  // call_intrin(dtype, "tir.name", *args): the builtin by TVM's op name.
  def_function(ns, "call_intrin", "dtype, func_name, *args, span=None", [](Interpreter& interp, Args& a) {
    std::string name = a.get_str(1);
    if (name.rfind("tir.", 0) != 0) a.value_error(1, "a TIR op name such as \"tir.exp\"");
    DataType t = to_dtype(interp, a[0], "T.call_intrin dtype");
    return wrap(ir::call(t, name.substr(4), operands(interp, a.varargs(), name)));
  });
  // tvm.tir.div(a, b): C's division (truncating for integers), TVM's Div node.
  def_function(ns, "div", "a, b, span=None", [](Interpreter& interp, Args& a) {
    ir::PrimExpr x = to_expr(interp, a[0], "div operand"), y = to_expr(interp, a[1], "div operand");
    return wrap(guard_ir([&] { return ir::div(x, y); }));
  });
  if (Value* pow = ns.find(intern("pow"))) ns.set(intern("power"), *pow);
}

}  // namespace tsch::bindings
