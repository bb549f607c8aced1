#include "values/attr_values.h"

#include "ir/op.h"
#include "ir/printer.h"
#include "script/exceptions.h"
#include "script/types.h"
#include "values/ir_values.h"

namespace tsch::bindings {

using script::Args;
using script::ExcKind;
using script::raise;

ir::AttrValue to_attr(Interpreter& interp, const Value& v) {
  ir::AttrValue a;
  if (v.is_bool()) return ir::AttrValue::of_bool(v.as_bool());
  if (v.is_int()) return ir::AttrValue::of_int(v.as_int());
  if (v.is_float()) {
    a.kind = ir::AttrValue::Kind::Float;
    a.f = v.as_float();
    return a;
  }
  if (auto* s = v.as<script::Str>()) return ir::AttrValue::of_str(s->value);
  if (auto* e = v.as<ExprValue>()) {
    int64_t c;
    if (e->expr->dtype.is_bool() && ir::as_const_int(e->expr, &c)) return ir::AttrValue::of_bool(c != 0);
    a.kind = ir::AttrValue::Kind::Expr;
    a.expr = e->expr;
    return a;
  }
  if (v.as<script::List>() || v.as<script::Tuple>()) {
    a.kind = ir::AttrValue::Kind::Array;
    for (const auto& item : interp.to_vector(v)) a.array.push_back(to_attr(interp, item));
    return a;
  }
  if (auto* d = v.as<script::Dict>()) {
    a.kind = ir::AttrValue::Kind::Map;
    for (const auto& [k, val] : d->items()) a.map.emplace_back(interp.str(k), to_attr(interp, val));
    return a;
  }
  raise(ExcKind::TypeError, "unsupported attribute value of type " + Interpreter::type_name(v));
}

ir::AttrMap to_attr_map(Interpreter& interp, const Value& v, const std::string& what) {
  auto* d = v.as<script::Dict>();
  if (!d) raise(ExcKind::TypeError, what + ": expected a dict, got " + Interpreter::type_name(v));
  ir::AttrMap out;
  for (const auto& [k, val] : d->items()) {
    auto* key = k.as<script::Str>();
    if (!key) raise(ExcKind::TypeError, what + ": keys must be strings");
    out.emplace_back(key->value, to_attr(interp, val));
  }
  return out;
}

Value attr_to_value(Interpreter& interp, const ir::AttrValue& a) {
  switch (a.kind) {
    case ir::AttrValue::Kind::Int:
      return Value::integer(a.i);
    case ir::AttrValue::Kind::Float:
      return Value::real(a.f);
    case ir::AttrValue::Kind::Str:
      return script::make_str(a.s);
    case ir::AttrValue::Kind::Bool:
      return Value::boolean(a.b);
    case ir::AttrValue::Kind::Expr:
      return wrap(a.expr);
    case ir::AttrValue::Kind::Array: {
      std::vector<Value> items;
      for (const auto& x : a.array) items.push_back(attr_to_value(interp, x));
      return script::make_list(std::move(items));
    }
    case ir::AttrValue::Kind::Map: {
      auto d = std::make_shared<script::Dict>();
      for (const auto& [k, x] : a.map) d->set(interp, script::make_str(k), attr_to_value(interp, x));
      return Value(d);
    }
  }
  return Value();
}

ir::PrimExpr attr_stmt_operand(Interpreter& interp, const Value& v, const std::string& what) {
  if (auto* s = v.as<script::Str>()) return std::make_shared<ir::StringImmNode>(s->value);
  if (v.as<BufferValue>())
    raise(ExcKind::NotImplementedError,
          "not supported yet: a buffer as " + what + " (tsch's attribute nodes are expressions)");
  return to_expr(interp, v, what);
}

namespace {

class DictAttrsValue : public script::Object {
 public:
  explicit DictAttrsValue(ir::AttrMap a) : attrs(std::move(a)) {}
  script::TypeObject* type() const override;
  std::string repr_hook(Interpreter&) override { return ir::script(attrs); }
  ir::AttrMap attrs;
};

const ir::AttrMap& attrs_of(const Value& v) { return v.as<DictAttrsValue>()->attrs; }

script::TypeRef make_dict_attrs_type() {
  auto t = std::make_shared<script::TypeObject>("DictAttrs");
  t->set_module("tvm.ir");
  t->def("__getitem__", "self, key", [](Interpreter& interp, Args& a) -> Value {
    if (const ir::AttrValue* v = ir::find_attr(attrs_of(a[0]), a.get_str(1))) return attr_to_value(interp, *v);
    script::raise_key_error(a[1]);
  });
  t->def("get", "self, key, default=None", [](Interpreter& interp, Args& a) -> Value {
    const ir::AttrValue* v = ir::find_attr(attrs_of(a[0]), a.get_str(1));
    return v ? attr_to_value(interp, *v) : a[2];
  });
  t->def("__contains__", "self, key", [](Interpreter&, Args& a) {
    return Value::boolean(a[1].as<script::Str>() && ir::find_attr(attrs_of(a[0]), a.get_str(1)));
  });
  t->def("__len__", "self",
         [](Interpreter&, Args& a) { return Value::integer(static_cast<int64_t>(attrs_of(a[0]).size())); });
  t->def("keys", "self", [](Interpreter&, Args& a) {
    std::vector<Value> keys;
    for (const auto& [k, v] : attrs_of(a[0])) keys.push_back(script::make_str(k));
    return script::make_list(std::move(keys));
  });
  t->def("items", "self", [](Interpreter& interp, Args& a) {
    std::vector<Value> items;
    for (const auto& [k, v] : attrs_of(a[0]))
      items.push_back(script::make_tuple({script::make_str(k), attr_to_value(interp, v)}));
    return script::make_list(std::move(items));
  });
  t->def("__iter__", "self", [](Interpreter& interp, Args& a) {
    std::vector<Value> keys;
    for (const auto& [k, v] : attrs_of(a[0])) keys.push_back(script::make_str(k));
    return Value(interp.iter(script::make_list(std::move(keys))));
  });
  return t;
}

script::TypeObject* DictAttrsValue::type() const {
  static script::TypeRef t = make_dict_attrs_type();
  return t.get();
}

}  // namespace

Value wrap_attrs(ir::AttrMap attrs) { return Value(std::make_shared<DictAttrsValue>(std::move(attrs))); }

}  // namespace tsch::bindings
