// TVM's expression classes: one per node kind (tvm.tir.expr.Add, IntImm, Call, ...), each a
// subclass of PrimExpr, so that `isinstance(loop.extent, tvm.tir.IntImm)` and `e.a` / `e.b`
// work as in TVM. The constructors build the node as written (tvm.tir.Add(1, 2) stays an Add,
// as TVM's constructors do not fold); Python's operators on expressions fold as before.
#include "values/expr_classes.h"

#include <fmt/format.h>

#include <map>

#include "ir/op.h"
#include "script/exceptions.h"
#include "script/signature.h"
#include "values/ir_type_values.h"
#include "values/ir_values.h"

namespace tsch::bindings {

using script::Args;
using script::ExcKind;
using script::raise;
using script::TypeObject;
using script::TypeRef;
using K = ir::ExprKind;

namespace {

const char* kind_name(K kind) {
  switch (kind) {
#define TSCH_X(name) \
  case K::name:      \
    return #name;
    TSCH_IR_EXPR_KINDS(TSCH_X)
#undef TSCH_X
  }
  return "PrimExpr";
}

const ir::PrimExpr& self_expr(const Value& v) { return v.as<ExprValue>()->expr; }

[[noreturn]] void no_field(const Value& v, const char* field) {
  raise(ExcKind::AttributeError,
        fmt::format("'{}' object has no attribute '{}'", kind_name(self_expr(v)->kind), field));
}

// tvm.ir.Op: the operator a Call applies (`call.op.name` is "tir.exp").
class OpValue : public script::Object {
 public:
  explicit OpValue(std::string n) : name(std::move(n)) {}
  TypeObject* type() const override;
  std::string repr_hook(Interpreter&) override { return "Op(" + name + ")"; }
  std::string name;
};

TypeRef op_type() {
  static TypeRef t = [] {
    auto type = std::make_shared<TypeObject>("Op");
    type->set_module("tvm.ir");
    type->def_property("name", [](Interpreter&, const Value& v) { return script::make_str(v.as<OpValue>()->name); });
    type->hashes_by_value = true;
    type->def("__eq__", "self, other", [](Interpreter&, Args& a) {
      auto* other = a[1].as<OpValue>();
      return Value::boolean(other && other->name == a[0].as<OpValue>()->name);
    });
    type->def("__hash__", "self", [](Interpreter&, Args& a) {
      return Value::integer(static_cast<int64_t>(std::hash<std::string>()(a[0].as<OpValue>()->name) >> 1));
    });
    return type;
  }();
  return t;
}
TypeObject* OpValue::type() const { return op_type().get(); }

// The operator name a Call node holds: tsch keeps TVM's name without the "tir." namespace.
std::string call_op_name(const Interpreter&, const Value& op, const char* what) {
  std::string name;
  if (auto* o = op.as<OpValue>())
    name = o->name;
  else if (auto* s = op.as<script::Str>())
    name = s->value;
  else
    raise(ExcKind::TypeError, fmt::format("{}: expected an operator name or tvm.ir.Op", what));
  if (name.rfind("tir.", 0) != 0) {
    raise(ExcKind::ValueError,
          fmt::format("Cannot handle str op argument {}. This function only handles str argument with the tir "
                      "namespace. If you are certain about the intrinsic name, pass in Op.get(name) instead",
                      name));
  }
  return name.substr(4);
}

// The fields TVM's classes have, read from whichever node kind has them.
void def_fields(TypeObject& t) {
  t.def_property("a", [](Interpreter&, const Value& v) -> Value {
    const ir::PrimExpr& e = self_expr(v);
    if (ir::is_binary(e->kind)) return wrap(ir::binary_a(e));
    if (auto* n = ir::as<ir::NotNode>(e)) return wrap(n->a);
    no_field(v, "a");
  });
  t.def_property("b", [](Interpreter&, const Value& v) -> Value {
    const ir::PrimExpr& e = self_expr(v);
    if (ir::is_binary(e->kind)) return wrap(ir::binary_b(e));
    no_field(v, "b");
  });
  t.def_property("value", [](Interpreter&, const Value& v) -> Value {
    const ir::PrimExpr& e = self_expr(v);
    if (auto* i = ir::as<ir::IntImmNode>(e))
      return e->dtype.is_bool() ? Value::boolean(i->value != 0) : Value::integer(i->value);
    if (auto* f = ir::as<ir::FloatImmNode>(e)) return Value::real(f->value);
    if (auto* s = ir::as<ir::StringImmNode>(e)) return script::make_str(s->value);
    if (auto* c = ir::as<ir::CastNode>(e)) return wrap(c->value);
    if (auto* b = ir::as<ir::BroadcastNode>(e)) return wrap(b->value);
    if (auto* l = ir::as<ir::LetNode>(e)) return wrap(l->value);
    no_field(v, "value");
  });
  t.def_property("condition", [](Interpreter&, const Value& v) -> Value {
    if (auto* s = ir::as<ir::SelectNode>(self_expr(v))) return wrap(s->condition);
    no_field(v, "condition");
  });
  t.def_property("true_value", [](Interpreter&, const Value& v) -> Value {
    if (auto* s = ir::as<ir::SelectNode>(self_expr(v))) return wrap(s->true_value);
    no_field(v, "true_value");
  });
  t.def_property("false_value", [](Interpreter&, const Value& v) -> Value {
    if (auto* s = ir::as<ir::SelectNode>(self_expr(v))) return wrap(s->false_value);
    no_field(v, "false_value");
  });
  t.def_property("base", [](Interpreter&, const Value& v) -> Value {
    if (auto* r = ir::as<ir::RampNode>(self_expr(v))) return wrap(r->base);
    no_field(v, "base");
  });
  t.def_property("stride", [](Interpreter&, const Value& v) -> Value {
    if (auto* r = ir::as<ir::RampNode>(self_expr(v))) return wrap(r->stride);
    no_field(v, "stride");
  });
  t.def_property("lanes", [](Interpreter&, const Value& v) -> Value {
    if (auto* r = ir::as<ir::RampNode>(self_expr(v))) return Value::integer(r->lanes);
    if (auto* b = ir::as<ir::BroadcastNode>(self_expr(v))) return Value::integer(b->lanes);
    no_field(v, "lanes");
  });
  t.def_property("buffer", [](Interpreter&, const Value& v) -> Value {
    if (auto* l = ir::as<ir::BufferLoadNode>(self_expr(v))) return wrap(l->buffer);
    no_field(v, "buffer");
  });
  t.def_property("indices", [](Interpreter&, const Value& v) -> Value {
    if (auto* l = ir::as<ir::BufferLoadNode>(self_expr(v))) return wrap_list(l->indices);
    no_field(v, "indices");
  });
  t.def_property("op", [](Interpreter&, const Value& v) -> Value {
    if (auto* c = ir::as<ir::CallNode>(self_expr(v))) return Value(std::make_shared<OpValue>("tir." + c->op));
    no_field(v, "op");
  });
  t.def_property("args", [](Interpreter&, const Value& v) -> Value {
    if (auto* c = ir::as<ir::CallNode>(self_expr(v))) return wrap_list(c->args);
    no_field(v, "args");
  });
  t.def_property("var", [](Interpreter&, const Value& v) -> Value {
    if (auto* l = ir::as<ir::LetNode>(self_expr(v))) return wrap(ir::PrimExpr(l->var));
    no_field(v, "var");
  });
  t.def_property("body", [](Interpreter&, const Value& v) -> Value {
    if (auto* l = ir::as<ir::LetNode>(self_expr(v))) return wrap(l->body);
    no_field(v, "body");
  });
}

// tvm.tir.Add(a, b) and the other binary classes: both operands of one dtype (TVM's
// "mismatched types" check; Python ints are int32 and floats float32 there, as TVM converts them).
Value construct_binary(Interpreter& interp, K kind, Args& a) {
  std::string what = std::string("tvm.tir.") + kind_name(kind);
  ir::PrimExpr lhs = to_expr(interp, a[0], what), rhs = to_expr(interp, a[1], what);
  if (kind == K::And || kind == K::Or) {
    for (const auto* e : {&lhs, &rhs})
      if (!(*e)->dtype.is_bool())
        raise(ExcKind::TypeError,
              fmt::format("{}: expected a boolean expression, got {}", what, (*e)->dtype.to_string()));
  }
  if (lhs->dtype != rhs->dtype) {
    raise(ExcKind::TypeError,
          fmt::format("{}: mismatched types. {} vs. {}", what, lhs->dtype.to_string(), rhs->dtype.to_string()));
  }
  bool boolean = (kind >= K::EQ && kind <= K::GE) || kind == K::And || kind == K::Or;
  ir::DataType result = boolean ? ir::DataType::bool_(lhs->dtype.lanes) : lhs->dtype;
  switch (kind) {
#define TSCH_CASE(name) \
  case K::name:         \
    return wrap(ir::PrimExpr(std::make_shared<ir::BinaryNode<K::name>>(result, lhs, rhs)));
    TSCH_IR_BINARY_KINDS(TSCH_CASE)
#undef TSCH_CASE
    default:
      break;
  }
  raise(ExcKind::TypeError, what + ": not a binary operator");
}

int lanes_arg(Args& a, size_t i, const char* what) {
  int64_t lanes = a.get_int(i);
  if (lanes < 1 || lanes > 65536) a.value_error(i, fmt::format("{} lanes must be positive, got {}", what, lanes));
  return static_cast<int>(lanes);
}

// Each class's constructor, with TVM's signature.
void set_constructor(TypeObject& t, K kind) {
  auto ctor = [&t](const char* signature, std::function<Value(Interpreter&, Args&)> build) {
    auto sig = std::make_shared<script::Signature>(script::Signature::parse(signature));
    std::string name = t.name();
    t.constructor = [sig, name, build](Interpreter& interp, TypeObject*, script::CallArgs& call) {
      Args a(interp, name, *sig, std::move(call));
      return build(interp, a);
    };
  };
  if (ir::is_binary(kind)) {
    ctor("a, b, span=None", [kind](Interpreter& interp, Args& a) { return construct_binary(interp, kind, a); });
    return;
  }
  switch (kind) {
    case K::IntImm:
      ctor("dtype, value, span=None", [](Interpreter& interp, Args& a) {
        ir::DataType t = to_dtype(interp, a[0], "tvm.tir.IntImm dtype");
        if (!t.is_integer() && !t.is_bool()) a.value_error(0, "IntImm needs an integer dtype, got " + t.to_string());
        return wrap(ir::make_int(a.get_int(1), t));
      });
      break;
    case K::FloatImm:
      ctor("dtype, value, span=None", [](Interpreter& interp, Args& a) {
        ir::DataType t = to_dtype(interp, a[0], "tvm.tir.FloatImm dtype");
        if (!t.is_float()) a.value_error(0, "FloatImm needs a float dtype, got " + t.to_string());
        return wrap(ir::make_float(a.get_float(1), t));
      });
      break;
    case K::StringImm:
      ctor("value, span=None",
           [](Interpreter&, Args& a) { return wrap(ir::PrimExpr(std::make_shared<ir::StringImmNode>(a.get_str(0)))); });
      break;
    case K::Var:
      ctor("name, dtype, span=None", [](Interpreter& interp, Args& a) {
        return wrap(ir::PrimExpr(make_typed_var(a.get_str(0), to_var_type(interp, a[1], "tvm.tir.Var dtype"))));
      });
      break;
    case K::Not:
      ctor("a, span=None", [](Interpreter& interp, Args& a) {
        ir::PrimExpr x = to_expr(interp, a[0], "tvm.tir.Not");
        if (!x->dtype.is_bool())
          raise(ExcKind::TypeError, "tvm.tir.Not: expected a boolean expression, got " + x->dtype.to_string());
        return wrap(ir::PrimExpr(std::make_shared<ir::NotNode>(x)));
      });
      break;
    case K::Cast:
      ctor("dtype, value, span=None", [](Interpreter& interp, Args& a) {
        ir::DataType t = to_dtype(interp, a[0], "tvm.tir.Cast dtype");
        ir::PrimExpr v = to_expr(interp, a[1], "tvm.tir.Cast value");
        if (v->dtype.lanes != t.lanes) {
          a.value_error(0, fmt::format("Cast to {} of a value of {} lanes", t.to_string(), v->dtype.lanes));
        }
        return wrap(ir::PrimExpr(std::make_shared<ir::CastNode>(t, v)));
      });
      break;
    case K::Select:
      ctor("condition, true_value, false_value, span=None", [](Interpreter& interp, Args& a) {
        ir::PrimExpr c = to_expr(interp, a[0], "tvm.tir.Select condition");
        ir::PrimExpr t = to_expr(interp, a[1], "tvm.tir.Select true_value"),
                     f = to_expr(interp, a[2], "tvm.tir.Select false_value");
        if (!c->dtype.is_bool())
          raise(ExcKind::TypeError, "tvm.tir.Select: the condition must be boolean, got " + c->dtype.to_string());
        if (t->dtype != f->dtype) {
          raise(ExcKind::TypeError,
                fmt::format("tvm.tir.Select: mismatched types. {} vs. {}", t->dtype.to_string(), f->dtype.to_string()));
        }
        return wrap(ir::PrimExpr(std::make_shared<ir::SelectNode>(c, t, f)));
      });
      break;
    case K::Ramp:
      ctor("base, stride, lanes, span=None", [](Interpreter& interp, Args& a) {
        ir::PrimExpr base = to_expr(interp, a[0], "tvm.tir.Ramp base"),
                     stride = to_expr(interp, a[1], "tvm.tir.Ramp stride");
        if (!base->dtype.is_scalar() || base->dtype != stride->dtype) {
          raise(ExcKind::TypeError,
                fmt::format("tvm.tir.Ramp: base and stride must be scalars of one dtype, got {} and {}",
                            base->dtype.to_string(), stride->dtype.to_string()));
        }
        return wrap(ir::PrimExpr(std::make_shared<ir::RampNode>(base, stride, lanes_arg(a, 2, "Ramp"))));
      });
      break;
    case K::Broadcast:
      ctor("value, lanes, span=None", [](Interpreter& interp, Args& a) {
        ir::PrimExpr v = to_expr(interp, a[0], "tvm.tir.Broadcast value");
        if (!v->dtype.is_scalar())
          raise(ExcKind::TypeError, "tvm.tir.Broadcast: the value must be a scalar, got " + v->dtype.to_string());
        return wrap(ir::PrimExpr(std::make_shared<ir::BroadcastNode>(v, lanes_arg(a, 1, "Broadcast"))));
      });
      break;
    case K::Let:
      ctor("var, value, body, span=None", [](Interpreter& interp, Args& a) {
        ir::PrimExpr var = to_expr(interp, a[0], "tvm.tir.Let var");
        auto* v = ir::as<ir::VarNode>(var);
        if (!v) a.type_error(0, "a tvm.tir.Var");
        ir::PrimExpr value = to_expr(interp, a[1], "tvm.tir.Let value"),
                     body = to_expr(interp, a[2], "tvm.tir.Let body");
        if (value->dtype != var->dtype) {
          raise(ExcKind::TypeError, fmt::format("tvm.tir.Let: the value's {} is not the variable's {}",
                                                value->dtype.to_string(), var->dtype.to_string()));
        }
        return wrap(
            ir::PrimExpr(std::make_shared<ir::LetNode>(std::static_pointer_cast<const ir::VarNode>(var), value, body)));
      });
      break;
    case K::BufferLoad:
      ctor("buffer, indices, predicate=None, span=None", [](Interpreter& interp, Args& a) {
        auto* b = a[0].as<BufferValue>();
        if (!b) a.type_error(0, "a tvm.tir.Buffer");
        if (!a[2].is_none())
          raise(ExcKind::NotImplementedError, "not supported yet: tvm.tir.BufferLoad with a predicate");
        std::vector<ir::PrimExpr> idx;
        for (const Value& v : interp.to_vector(a[1])) idx.push_back(to_expr(interp, v, "tvm.tir.BufferLoad index"));
        if (idx.size() != b->buffer->shape.size()) {
          raise(ExcKind::IndexError, fmt::format("tvm.tir.BufferLoad: buffer {} has {} dimensions, {} indices given",
                                                 b->buffer->name, b->buffer->shape.size(), idx.size()));
        }
        return wrap(ir::buffer_load(b->buffer, std::move(idx)));
      });
      break;
    case K::Call:
      ctor("dtype, op, args, span=None", [](Interpreter& interp, Args& a) {
        ir::DataType t = to_dtype(interp, a[0], "tvm.tir.Call dtype");
        std::string op = call_op_name(interp, a[1], "tvm.tir.Call");
        std::vector<ir::PrimExpr> args;
        for (const Value& v : interp.to_vector(a[2])) {
          if (auto* s = v.as<script::Str>())
            args.push_back(std::make_shared<ir::StringImmNode>(s->value));
          else
            args.push_back(to_expr(interp, v, "tvm.tir.Call argument"));
        }
        return wrap(ir::call(t, op, std::move(args)));
      });
      break;
    default:
      break;
  }
}

TypeRef make_kind_type(K kind) {
  if (kind == K::Var) return var_type();
  auto t = std::make_shared<TypeObject>(kind_name(kind), std::vector<TypeRef>{expr_type()});
  t->set_module("tvm.tir.expr");
  t->hashes_by_value = true;
  return t;
}

const std::map<K, TypeRef>& kind_types() {
  static const std::map<K, TypeRef> types = [] {
    std::map<K, TypeRef> m;
#define TSCH_X(name) m[K::name] = make_kind_type(K::name);
    TSCH_IR_EXPR_KINDS(TSCH_X)
#undef TSCH_X
    for (auto& [kind, type] : m) set_constructor(*type, kind);
    def_fields(*expr_type());
    return m;
  }();
  return types;
}

}  // namespace

TypeRef expr_kind_type(ir::ExprKind kind) { return kind_types().at(kind); }

void install_expr_classes(script::Namespace& ns) {
  for (const auto& [kind, type] : kind_types()) ns.set(intern(kind_name(kind)), Value(type));
}

void install_op_class(script::Namespace& ns) {
  TypeRef t = op_type();
  // Op.get(name): the operator of that name ("tir.exp").
  t->def(
      "get", "op_name", [](Interpreter&, Args& a) { return Value(std::make_shared<OpValue>(a.get_str(0))); },
      "Op.get(name): the operator of that name (\"tir.exp\").");
  ns.set(intern("Op"), Value(t));
}

}  // namespace tsch::bindings
