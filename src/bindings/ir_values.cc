// IR values in scripts. PrimExpr overloads Python's operators to build IR (as TVM's Python
// API does), which is what makes TVMScript bodies and te.compute lambdas evaluate to IR.
#include "bindings/ir_values.h"
#include "bindings/tvmscript_tir_math.h"

#include "bindings/expr_classes.h"

#include <fmt/format.h>

#include "arith/simplify.h"
#include "frontend/tir_specs.h"
#include "ir/op.h"
#include "ir/printer.h"
#include "script/exceptions.h"
#include "script/types.h"

namespace tsch::bindings {

using script::Args;
using script::ExcKind;
using script::raise;
using script::TypeObject;
using script::TypeRef;

bool is_expr(const Value& v) { return v.as<ExprValue>() != nullptr; }

Value wrap(ir::PrimExpr e) { return Value(std::make_shared<ExprValue>(std::move(e))); }
Value wrap(ir::Buffer b) { return Value(std::make_shared<BufferValue>(std::move(b))); }

Value wrap_list(const std::vector<ir::PrimExpr>& exprs) {
  std::vector<Value> out;
  for (const auto& e : exprs) out.push_back(wrap(e));
  return script::make_list(std::move(out));
}

Value wrap_list(const std::vector<ir::Buffer>& buffers) {
  std::vector<Value> out;
  for (const auto& b : buffers) out.push_back(wrap(b));
  return script::make_list(std::move(out));
}

ir::PrimExpr to_expr(Interpreter& interp, const Value& v, const std::string& what) {
  if (auto* e = v.as<ExprValue>()) return e->expr;
  // A sampled ExprRV is its variable, as TVM's ExprRV is a tir.Var.
  if (const ir::Var* var = expr_rv_var(v)) return *var;
  if (v.is_bool()) return ir::make_bool(v.as_bool());
  if (v.is_int()) {
    int64_t x = v.as_int();
    bool fits32 = x >= INT32_MIN && x <= INT32_MAX;
    return ir::make_int(x, fits32 ? ir::DataType::int32() : ir::DataType::int64());
  }
  if (v.is_float()) return ir::make_float(v.as_float(), ir::DataType::float32());
  raise(ExcKind::TypeError, fmt::format("{}: expected a PrimExpr or a number, got {}", what, Interpreter::type_name(v)));
}

ir::PrimExpr to_expr_as(Interpreter& interp, const Value& v, ir::DataType dtype, const std::string& what) {
  if (v.is_number()) {
    if (dtype.is_float()) return ir::make_float(v.as_float(), dtype);
    if (dtype.is_bool()) return ir::make_bool(v.as_float() != 0);
    if (v.is_float()) {
      raise(ExcKind::TypeError, fmt::format("{}: cannot use the float {} where {} is expected", what, interp.repr(v), dtype.to_string()));
    }
    return ir::make_int(v.as_int(), dtype);
  }
  return to_expr(interp, v, what);
}

namespace {

using K = ir::ExprKind;

Value binop(Interpreter& interp, Args& a, K kind, bool reflected) {
  ir::PrimExpr self = a[0].as<ExprValue>()->expr;
  if (!a[1].is_number() && !is_expr(a[1]) && !expr_rv_var(a[1])) return script::not_implemented_value();
  ir::PrimExpr other = to_expr(interp, a[1], "operand");
  ir::PrimExpr lhs = reflected ? other : self, rhs = reflected ? self : other;
  return wrap(guard_ir([&] {
    if (kind == K::Div) return ir::div(lhs, rhs);
    return ir::make_binary(kind, lhs, rhs);
  }));
}

void def_binop(TypeObject& t, const char* name, K kind, bool reflected) {
  t.def(name, "self, other", [kind, reflected](Interpreter& interp, Args& a) { return binop(interp, a, kind, reflected); });
}

TypeRef make_expr_type() {
  auto t = std::make_shared<TypeObject>("PrimExpr");
  t->set_module("tvm.tir");
  // Keys of dicts by node (func.buffer_map[func.params[0]]), as TVM's objects hash.
  t->hashes_by_value = true;
  // TVM's Object.same_as: the same node (== builds an EQ expression instead).
  t->def("same_as", "self, other", [](Interpreter&, Args& a) {
    auto* other = a[1].as<ExprValue>();
    return Value::boolean(other && other->expr == a[0].as<ExprValue>()->expr);
  });
  def_binop(*t, "__add__", K::Add, false);
  def_binop(*t, "__radd__", K::Add, true);
  def_binop(*t, "__sub__", K::Sub, false);
  def_binop(*t, "__rsub__", K::Sub, true);
  def_binop(*t, "__mul__", K::Mul, false);
  def_binop(*t, "__rmul__", K::Mul, true);
  def_binop(*t, "__truediv__", K::Div, false);
  def_binop(*t, "__rtruediv__", K::Div, true);
  def_binop(*t, "__floordiv__", K::FloorDiv, false);
  def_binop(*t, "__rfloordiv__", K::FloorDiv, true);
  def_binop(*t, "__mod__", K::FloorMod, false);
  def_binop(*t, "__rmod__", K::FloorMod, true);
  def_binop(*t, "__lt__", K::LT, false);
  def_binop(*t, "__le__", K::LE, false);
  def_binop(*t, "__gt__", K::GT, false);
  def_binop(*t, "__ge__", K::GE, false);
  // == on handles (a PrimFunc's parameters) means the same variable, as TVM's EqualOp
  // decides it when there is no comparison to build.
  t->def("__eq__", "self, other", [](Interpreter& interp, Args& a) {
    auto* other = a[1].as<ExprValue>();
    if (other && (other->expr->dtype.is_handle() || a[0].as<ExprValue>()->expr->dtype.is_handle()))
      return Value::boolean(other->expr == a[0].as<ExprValue>()->expr);
    return binop(interp, a, K::EQ, false);
  });
  def_binop(*t, "__ne__", K::NE, false);
  // `2 <= j` in TVMScript (script::Evaluator::tvmscript): the comparison as written.
  t->def("__tsch_rcompare__", "self, other, op", [](Interpreter& interp, Args& a) {
    static const std::pair<const char*, K> ops[] = {{"<", K::LT}, {"<=", K::LE}, {">", K::GT}, {">=", K::GE}, {"==", K::EQ}, {"!=", K::NE}};
    for (const auto& [symbol, kind] : ops)
      if (a.get_str(2) == symbol) return binop(interp, a, kind, true);
    return script::not_implemented_value();
  });
  // & | ^ << >> ~ on integers are TVM's bitwise calls; & and | on booleans are And / Or.
  struct Bitwise { const char* name; const char* op; K logical; bool reflected; };
  for (Bitwise b : {Bitwise{"__and__", "bitwise_and", K::And, false}, {"__rand__", "bitwise_and", K::And, true},
                    {"__or__", "bitwise_or", K::Or, false}, {"__ror__", "bitwise_or", K::Or, true},
                    {"__xor__", "bitwise_xor", K::Add, false}, {"__rxor__", "bitwise_xor", K::Add, true},
                    {"__lshift__", "shift_left", K::Add, false}, {"__rlshift__", "shift_left", K::Add, true},
                    {"__rshift__", "shift_right", K::Add, false}, {"__rrshift__", "shift_right", K::Add, true}}) {
    t->def(b.name, "self, other", [b](Interpreter& interp, Args& a) {
      ir::PrimExpr self = a[0].as<ExprValue>()->expr;
      // A Python int takes the expression's type, as TVM's bit operators make_const it
      // (`const(1, "int8x2") >> 1` stays int8x2).
      ir::PrimExpr other = a[1].is_int() && !self->dtype.is_handle() ? to_expr_as(interp, a[1], self->dtype.element_of(), b.name)
                                                                    : to_expr(interp, a[1], b.name);
      bool logical = b.logical != K::Add && self->dtype.is_bool() && (other->dtype.is_bool() || a[1].is_bool());
      if (logical) return binop(interp, a, b.logical, b.reflected);
      if (b.reflected) std::swap(self, other);
      return wrap(guard_ir([&] { return ir::bitwise(b.op, self, other); }));
    });
  }
  t->def("__invert__", "self", [](Interpreter&, Args& a) { return wrap(guard_ir([&] { return ir::bitwise_not(a[0].as<ExprValue>()->expr); })); });
  def_binop(*t, "__tsch_and__", K::And, false);
  def_binop(*t, "__tsch_or__", K::Or, false);
  t->def("__neg__", "self", [](Interpreter&, Args& a) { return wrap(guard_ir([&] { return ir::neg(a[0].as<ExprValue>()->expr); })); });
  t->def("__tsch_not__", "self", [](Interpreter&, Args& a) {
    return wrap(guard_ir([&] { return ir::logical_not(a[0].as<ExprValue>()->expr); }));
  });
  // `t if cond else f` in TVMScript: T.if_then_else, as TVM's parser evaluates it.
  t->def("__tsch_select__", "self, true_value, false_value", [](Interpreter& interp, Args& a) {
    const ir::PrimExpr& cond = a[0].as<ExprValue>()->expr;
    if (!cond->dtype.is_bool()) raise(ExcKind::TypeError, "Expected Python bool or TIR bool, but got " + cond->dtype.to_string());
    ir::PrimExpr t = to_expr(interp, a[1], "true value"), f = to_expr(interp, a[2], "false value");
    return wrap(guard_ir([&] { return if_then_else(cond, t, f); }));
  });
  t->def("__bool__", "self", [](Interpreter&, Args& a) {
    const ir::PrimExpr& e = a[0].as<ExprValue>()->expr;
    int64_t v;
    if (ir::as_const_int(e, &v)) return Value::boolean(v != 0);
    // As in TVM: `a == b` on expressions is true when they are the same object.
    if (e->kind == K::EQ) return Value::boolean(ir::binary_a(e) == ir::binary_b(e));
    if (e->kind == K::NE) return Value::boolean(ir::binary_a(e) != ir::binary_b(e));
    raise(ExcKind::ValueError, "Cannot use and / or / not operator to Expr, hint: use tvm.tir.all / tvm.tir.any instead");
  });
  // TVM's ExprOp.equal: the expression `self == other` (== itself is kept for identity tests).
  t->def("equal", "self, other, span=None", [](Interpreter& interp, Args& a) {
    ir::PrimExpr other = to_expr(interp, a[1], "equal");
    return wrap(guard_ir([&] { return ir::make_binary(ir::ExprKind::EQ, a[0].as<ExprValue>()->expr, other); }));
  });
  t->def("astype", "self, dtype, span=None", [](Interpreter& interp, Args& a) {
    ir::DataType t = to_dtype(interp, a[1], "astype dtype");
    return wrap(guard_ir([&] { return ir::cast(t, a[0].as<ExprValue>()->expr); }));
  });
  // int(IntImm) / float(FloatImm), as TVM's constants convert (int(C.shape[0])).
  t->def("__int__", "self", [](Interpreter&, Args& a) {
    const ir::PrimExpr& e = a[0].as<ExprValue>()->expr;
    if (auto* i = ir::as<ir::IntImmNode>(e)) return Value::integer(i->value);
    if (auto* f = ir::as<ir::FloatImmNode>(e)) return Value::integer(static_cast<int64_t>(f->value));
    raise(ExcKind::TypeError, "int() argument must be a constant expression, not the symbolic " + ir::script(e));
  });
  t->def("__float__", "self", [](Interpreter&, Args& a) {
    const ir::PrimExpr& e = a[0].as<ExprValue>()->expr;
    if (auto* i = ir::as<ir::IntImmNode>(e)) return Value::real(static_cast<double>(i->value));
    if (auto* f = ir::as<ir::FloatImmNode>(e)) return Value::real(f->value);
    raise(ExcKind::TypeError, "float() argument must be a constant expression, not the symbolic " + ir::script(e));
  });
  t->def("__hash__", "self", [](Interpreter&, Args& a) {
    // TVM's IntImm hashes as its value, so equal constants are one dict key (the decisions of
    // a trace counted in a dict); other expressions hash by node.
    if (auto* i = ir::as<ir::IntImmNode>(a[0].as<ExprValue>()->expr)) return Value::integer(i->value);
    return Value::integer(static_cast<int64_t>(reinterpret_cast<uintptr_t>(a[0].as<ExprValue>()->expr.get())));
  });
  t->def_property("dtype", [](Interpreter&, const Value& v) { return script::make_str(v.as<ExprValue>()->expr->dtype.to_string()); });
  // The fields of TVM's node classes (value, a, b, args, ...) are in expr_classes.cc.
  t->def_property("name", [](Interpreter&, const Value& v) -> Value {
    if (auto* var = ir::as<ir::VarNode>(v.as<ExprValue>()->expr)) return script::make_str(var->name);
    raise(ExcKind::AttributeError, "only variables have a name");
  });
  return t;
}

TypeRef make_buffer_type() {
  auto t = std::make_shared<TypeObject>("Buffer");
  t->set_module("tvm.tir");
  t->def_property("name", [](Interpreter&, const Value& v) { return script::make_str(v.as<BufferValue>()->buffer->name); });
  t->def_property("dtype", [](Interpreter&, const Value& v) { return script::make_str(v.as<BufferValue>()->buffer->dtype.to_string()); });
  t->def_property("elem_offset", [](Interpreter&, const Value& v) {
    const ir::Buffer& b = v.as<BufferValue>()->buffer;
    return wrap(b->elem_offset ? b->elem_offset : ir::make_int(0));
  });
  t->def("same_as", "self, other", [](Interpreter&, Args& a) {
    auto* other = a[1].as<BufferValue>();
    return Value::boolean(other && other->buffer == a[0].as<BufferValue>()->buffer);
  });
  // As TVM's objects: == and hash by node (`load.buffer == b`).
  t->hashes_by_value = true;
  t->def("__eq__", "self, other", [](Interpreter&, Args& a) {
    auto* other = a[1].as<BufferValue>();
    return Value::boolean(other && other->buffer == a[0].as<BufferValue>()->buffer);
  });
  t->def("__ne__", "self, other", [](Interpreter&, Args& a) {
    auto* other = a[1].as<BufferValue>();
    return Value::boolean(!(other && other->buffer == a[0].as<BufferValue>()->buffer));
  });
  t->def("__hash__", "self", [](Interpreter&, Args& a) {
    return Value::integer(static_cast<int64_t>(reinterpret_cast<uintptr_t>(a[0].as<BufferValue>()->buffer.get()) >> 4));
  });
  t->def_property("shape", [](Interpreter&, const Value& v) {
    std::vector<Value> dims;
    for (const auto& d : v.as<BufferValue>()->buffer->shape) {
      int64_t c;
      dims.push_back(ir::as_const_int(d, &c) ? Value::integer(c) : wrap(d));
    }
    return script::make_tuple(std::move(dims));
  });
  t->def_property("strides", [](Interpreter&, const Value& v) {
    std::vector<Value> dims;
    for (const auto& d : v.as<BufferValue>()->buffer->strides) dims.push_back(wrap(d));
    return script::make_list(std::move(dims));
  });
  t->def_property("ndim", [](Interpreter&, const Value& v) {
    return Value::integer(static_cast<int64_t>(v.as<BufferValue>()->buffer->shape.size()));
  });
  t->def_property("data", [](Interpreter&, const Value& v) { return wrap(ir::PrimExpr(v.as<BufferValue>()->buffer->data)); });
  t->def("scope", "self", [](Interpreter&, Args& a) { return script::make_str(a[0].as<BufferValue>()->buffer->scope); });
  // TVM's Buffer.access_ptr: `T.tvm_access_ptr(T.type_annotation(dtype), B.data, offset, extent,
  // mask)`, an opaque pointer into the buffer (mask 1 read, 2 write); offset counts elements
  // from the buffer's own offset, extent defaults to the rest of the buffer.
  // TVM's Buffer.vload(begin, dtype): a vector load of dtype's lanes from `begin` on (the last
  // index becomes a ramp, which may run past the last axis into the next rows, as in TVM);
  // vstore(begin, value) the store.
  auto vector_indices = [](Interpreter& interp, const ir::Buffer& b, const Value& begin, int lanes, const char* what) {
    std::vector<ir::PrimExpr> idx;
    for (const Value& v : interp.to_vector(begin)) idx.push_back(to_expr(interp, v, std::string(what) + " index"));
    if (idx.size() != b->shape.size()) {
      raise(ExcKind::IndexError, fmt::format("{}: buffer {} has {} dimensions, {} indices given", what, b->name, b->shape.size(), idx.size()));
    }
    if (lanes > 1 && !idx.empty()) idx.back() = std::make_shared<ir::RampNode>(idx.back(), ir::make_int(1, idx.back()->dtype), lanes);
    return idx;
  };
  t->def("vload", "self, begin, dtype=None, predicate=None", [vector_indices](Interpreter& interp, Args& a) {
    const ir::Buffer& b = a[0].as<BufferValue>()->buffer;
    if (!a[3].is_none()) raise(ExcKind::NotImplementedError, "not supported yet: Buffer.vload with a predicate");
    ir::DataType t = a[2].is_none() ? b->dtype : to_dtype(interp, a[2], "Buffer.vload dtype");
    if (t.element_of() != b->dtype.element_of() || t.lanes % b->dtype.lanes != 0) {
      raise(ExcKind::ValueError, fmt::format("Buffer.vload: {} is not a vector of buffer {}'s {}", t.to_string(), b->name, b->dtype.to_string()));
    }
    auto idx = vector_indices(interp, b, a[1], t.lanes / b->dtype.lanes, "Buffer.vload");
    return wrap(ir::PrimExpr(std::make_shared<ir::BufferLoadNode>(t, b, idx)));
  }, "vload(begin, dtype): a vector of dtype's lanes loaded from begin on.");
  t->def("access_ptr", "self, access_mask, ptr_type=\"handle\", content_lanes=1, offset=0, extent=None",
         [](Interpreter& interp, Args& a) {
    const ir::Buffer& b = a[0].as<BufferValue>()->buffer;
    int64_t mask = 0;
    if (auto* text = a[1].as<script::Str>()) {
      for (char c : text->value) {
        if (c == 'r') mask |= 1;
        else if (c == 'w') mask |= 2;
        else a.value_error(1, "expected a mask of \"r\" and \"w\", got \"" + text->value + "\"");
      }
    } else {
      mask = a.get_int(1);
    }
    if (a.get_str(2) != "handle") raise(ExcKind::NotImplementedError, "not supported yet: access_ptr with ptr_type other than \"handle\"");
    if (a.get_int(3) != 1) raise(ExcKind::NotImplementedError, "not supported yet: access_ptr with content_lanes other than 1");
    ir::DataType index_type = b->shape.empty() ? ir::DataType::int32() : b->shape[0]->dtype;
    ir::PrimExpr offset = to_expr_as(interp, a[4], index_type, "access_ptr offset");
    ir::PrimExpr total = ir::make_int(1, index_type);
    for (const auto& d : b->shape) total = ir::mul(total, d);
    ir::PrimExpr extent = a[5].is_none() ? arith::simplify(ir::sub(total, offset)) : to_expr_as(interp, a[5], index_type, "access_ptr extent");
    if (b->elem_offset && !ir::is_zero(b->elem_offset)) offset = ir::add(b->elem_offset, offset);
    ir::PrimExpr annotation = ir::call(b->dtype, "type_annotation", {});
    return wrap(ir::call(ir::DataType::handle(), "tvm_access_ptr", {annotation, ir::PrimExpr(b->data), offset, extent, ir::make_int(mask)}));
  }, "access_ptr(access_mask, ptr_type=\"handle\", content_lanes=1, offset=0, extent=None): an opaque pointer into the buffer.");
  t->def("same_as", "self, other", [](Interpreter&, Args& a) {
    auto* other = a[1].as<BufferValue>();
    return Value::boolean(other && other->buffer == a[0].as<BufferValue>()->buffer);
  }, "same_as(other): whether both are the same buffer object (not merely equal).");
  t->def("__getitem__", "self, indices", [](Interpreter& interp, Args& a) -> Value {
    const ir::Buffer& b = a[0].as<BufferValue>()->buffer;
    std::vector<Value> items = a[1].as<script::Tuple>() ? a[1].as<script::Tuple>()->items : std::vector<Value>{a[1]};
    if (items.size() == 1 && items[0].as<script::Tuple>() && items[0].as<script::Tuple>()->items.empty()) items.clear();
    if (items.size() != b->shape.size()) {
      raise(ExcKind::IndexError, fmt::format("buffer {} has {} dimension{}, but {} ind{} given", b->name, b->shape.size(),
                                             b->shape.size() == 1 ? "" : "s", items.size(), items.size() == 1 ? "ex was" : "ices were"));
    }
    bool any_slice = false;
    for (const auto& v : items) any_slice |= v.as<script::SliceObject>() != nullptr;
    if (!any_slice) {
      std::vector<ir::PrimExpr> idx;
      for (const auto& v : items) {
        ir::PrimExpr e = to_expr(interp, v, "buffer index");
        if (!e->dtype.is_integer()) raise(ExcKind::TypeError, "buffer index must be an integer, got " + e->dtype.to_string());
        idx.push_back(e);
      }
      return wrap(ir::buffer_load(b, std::move(idx)));
    }
    // A region: A[vi, 0:128].
    ir::BufferRegion region{b, {}};
    for (size_t d = 0; d < items.size(); ++d) {
      if (auto* s = items[d].as<script::SliceObject>()) {
        if (!s->step.is_none()) raise(ExcKind::ValueError, "buffer regions do not take a step");
        ir::PrimExpr lo = s->start.is_none() ? ir::make_int(0, b->shape[d]->dtype) : to_expr(interp, s->start, "region start");
        ir::PrimExpr hi = s->stop.is_none() ? b->shape[d] : to_expr(interp, s->stop, "region stop");
        region.region.push_back(guard_ir([&] { return ir::Range{lo, arith::extent_between(lo, hi)}; }));
      } else {
        ir::PrimExpr e = to_expr(interp, items[d], "buffer index");
        region.region.push_back(ir::Range{e, ir::make_int(1, e->dtype)});
      }
    }
    return Value(std::make_shared<frontend::RegionValue>(region));
  });
  return t;
}

}  // namespace

TypeRef expr_type() {
  static TypeRef t = make_expr_type();
  return t;
}
TypeRef var_type() {
  static TypeRef t = [] {
    auto v = std::make_shared<TypeObject>("Var", std::vector<TypeRef>{expr_type()});
    v->set_module("tvm.tir.expr");
    v->hashes_by_value = true;
    return v;
  }();
  return t;
}
TypeRef buffer_type() {
  static TypeRef t = make_buffer_type();
  return t;
}
TypeObject* ExprValue::type() const { return expr_kind_type(expr->kind).get(); }
TypeObject* BufferValue::type() const { return buffer_type().get(); }

std::string ExprValue::repr_hook(Interpreter&) { return ir::script(expr); }
std::string BufferValue::repr_hook(Interpreter&) {
  std::string dims;
  for (size_t i = 0; i < buffer->shape.size(); ++i) dims += (i ? ", " : "") + ir::script(buffer->shape[i]);
  return fmt::format("T.Buffer(({}{}), \"{}\")  # {}", dims, buffer->shape.size() == 1 ? "," : "", buffer->dtype.to_string(), buffer->name);
}

}  // namespace tsch::bindings
