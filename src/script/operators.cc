// Operators on values: arithmetic (binary, in-place, unary), comparison, containment,
// truth and hashing. Built-in types take fast paths; other types go through their dunder
// methods, with Python's reflected-operand and NotImplemented rules.
#include <fmt/format.h>

#include <cmath>

#include "script/dispatch.h"
#include "script/format.h"
#include "script/numbers.h"
#include "script/py_hash.h"
#include "script/sequence.h"
#include "script/sets.h"
#include "script/types.h"

namespace tsch::script {

namespace {

std::vector<Value> repeat(const std::vector<Value>& items, int64_t n) {
  std::vector<Value> out;
  if (n <= 0) return out;
  if (items.size() * static_cast<size_t>(n) > (1u << 28))
    raise(ExcKind::OverflowError, "repeated sequence is too long");
  out.reserve(items.size() * static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) out.insert(out.end(), items.begin(), items.end());
  return out;
}

}  // namespace

Value Interpreter::binary_op(ast::BinOpKind op, const Value& a, const Value& b) { return binary_op(op, a, b, false); }

Value Interpreter::binary_op(ast::BinOpKind op, const Value& a, const Value& b, bool augmented) {
  using K = ast::BinOpKind;
  Value out;
  if (numeric_binary(op, a, b, out)) return out;
  if (auto* sa = a.as<Str>()) {
    if (op == K::Add) {
      if (auto* sb = b.as<Str>()) return make_str(sa->value + sb->value);
    }
    if (op == K::Mul && b.is_integral()) {
      int64_t n = b.as_int();
      if (n > 0 && sa->value.size() * static_cast<size_t>(n) > (1u << 30))
        raise(ExcKind::OverflowError, "repeated string is too long");
      std::string r;
      for (int64_t i = 0; i < n; ++i) r += sa->value;
      return make_str(r);
    }
    if (op == K::Mod) return make_str(percent_format(*this, sa->value, b));
  }
  if (op == K::Mul && a.is_integral() && (b.as<Str>() || b.as<List>() || b.as<Tuple>())) return binary_op(op, b, a);
  if (auto* la = a.as<List>()) {
    if (op == K::Add) {
      if (auto* lb = b.as<List>()) {
        std::vector<Value> r = la->items;
        r.insert(r.end(), lb->items.begin(), lb->items.end());
        return make_list(std::move(r));
      }
    }
    if (op == K::Mul && b.is_integral()) return make_list(repeat(la->items, b.as_int()));
  }
  if (auto* ta = a.as<Tuple>()) {
    if (op == K::Add) {
      if (auto* tb = b.as<Tuple>()) {
        std::vector<Value> r = ta->items;
        r.insert(r.end(), tb->items.begin(), tb->items.end());
        return make_tuple(std::move(r));
      }
    }
    if (op == K::Mul && b.is_integral()) return make_tuple(repeat(ta->items, b.as_int()));
  }
  if (a.as<Set>() && b.as<Set>() && set_binary(*this, op, a, b, out)) return out;
  if (auto* da = a.as<Dict>(); da && op == K::BitOr) {
    if (auto* db = b.as<Dict>()) {
      auto d = std::make_shared<Dict>();
      for (auto& [k, v] : da->items()) d->set(*this, k, v);
      for (auto& [k, v] : db->items()) d->set(*this, k, v);
      return Value(d);
    }
  }
  // Dunder methods of script classes and native types.
  Value method;
  if (!is_builtin_value(a) ||
      ((a.is_object() || a.is_numpy_scalar()) && a.type()->lookup(intern(dunder_name(op, false))))) {
    if (type_method(a, dunder_name(op, false), method)) {
      Value r = call_method(*this, a, method, {b});
      if (!is_not_implemented(r)) return r;
    }
  }
  if (type_method(b, dunder_name(op, true), method)) {
    Value r = call_method(*this, b, method, {a});
    if (!is_not_implemented(r)) return r;
  }
  // `x += y` names its operator `+=` (Python tries __iadd__, then __add__, then __radd__).
  raise(ExcKind::TypeError, fmt::format("unsupported operand type(s) for {}{}: '{}' and '{}'", ast::binop_symbol(op),
                                        augmented ? "=" : "", type_name(a), type_name(b)));
}

Value Interpreter::inplace_op(ast::BinOpKind op, const Value& a, const Value& b) {
  if (auto* s = a.as<Set>(); s && !s->frozen && b.as<Set>() && set_inplace(*this, op, a, b)) return a;
  Value method;
  if (a.is_object() && type_method(a, inplace_dunder_name(op).c_str(), method)) {
    Value r = call_method(*this, a, method, {b});
    if (!is_not_implemented(r)) return r;
  }
  return binary_op(op, a, b, true);
}

Value Interpreter::unary_op(ast::UnaryOpKind op, const Value& a) {
  using K = ast::UnaryOpKind;
  if (op == K::Not) return Value::boolean(!truthy(a));
  if (a.is_integral() && !a.is_numpy_scalar()) {
    int64_t v = a.as_int();
    switch (op) {
      case K::Neg:
        if (v == INT64_MIN) raise(ExcKind::OverflowError, "integer overflow: the result does not fit in 64 bits");
        return Value::integer(-v);
      case K::Pos:
        return Value::integer(v);
      case K::Invert:
        return Value::integer(~v);
      default:
        break;
    }
  }
  if (a.is_float() && !a.is_numpy_scalar()) {
    if (op == K::Neg) return Value::real(-a.as_float());
    if (op == K::Pos) return a;
  }
  const char* name = op == K::Neg ? "__neg__" : op == K::Pos ? "__pos__" : "__invert__";
  Value method;
  if (type_method(a, name, method)) return call_method(*this, a, method, {});
  const char* symbol = op == K::Neg ? "-" : op == K::Pos ? "+" : "~";
  raise(ExcKind::TypeError, fmt::format("bad operand type for unary {}: '{}'", symbol, type_name(a)));
}

namespace {

class NotImplementedObject : public Object {
 public:
  TypeObject* type() const override {
    static TypeRef t = std::make_shared<TypeObject>("NotImplementedType");
    return t.get();
  }
  std::string repr_hook(Interpreter&) override { return "NotImplemented"; }
};

}  // namespace

bool is_not_implemented(const Value& v) { return v.as<NotImplementedObject>() != nullptr; }

Value not_implemented_value() {
  static Value v(std::make_shared<NotImplementedObject>());
  return v;
}

bool Interpreter::equals(const Value& a, const Value& b) {
  if (a.is_number() && b.is_number() && (a.numpy_dtype() | b.numpy_dtype()) == 0) {
    if (a.is_integral() && b.is_integral()) return a.as_int() == b.as_int();
    return a.as_float() == b.as_float();
  }
  if (a.is_none() || b.is_none()) return a.is_none() && b.is_none();
  if (auto* sa = a.as<Str>()) {
    auto* sb = b.as<Str>();
    return sb && sa->value == sb->value;
  }
  auto seq_equal = [&](const std::vector<Value>& x, const std::vector<Value>& y) {
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i) {
      if (!x[i].is(y[i]) && !equals(x[i], y[i])) return false;
    }
    return true;
  };
  if (auto* la = a.as<List>()) {
    auto* lb = b.as<List>();
    return lb && seq_equal(la->items, lb->items);
  }
  if (auto* ta = a.as<Tuple>()) {
    auto* tb = b.as<Tuple>();
    return tb && seq_equal(ta->items, tb->items);
  }
  if (auto* da = a.as<Dict>()) {
    auto* db = b.as<Dict>();
    if (!db || da->size() != db->size()) return false;
    for (auto& [k, v] : da->items()) {
      Value* other = db->find(*this, k);
      if (!other || !equals(v, *other)) return false;
    }
    return true;
  }
  if (auto* sa = a.as<Set>()) {
    if (auto* sb = b.as<Set>()) return set_equal(*this, *sa, *sb);
  }
  if (auto* ra = a.as<Range>()) {
    auto* rb = b.as<Range>();
    return rb && ra->length() == rb->length() &&
           (ra->length() == 0 || (ra->start == rb->start && (ra->length() == 1 || ra->step == rb->step)));
  }
  Value method;
  // NumPy scalars compare in their dtype (np.float32(0.1) == 0.1 under NEP 50).
  auto by_value = [](const Value& v) {
    return v.is_numpy_scalar() || (v.is_object() && (!is_builtin_value(v) || v.type()->hashes_by_value));
  };
  if (by_value(a) && type_method(a, "__eq__", method)) {
    Value r = call_method(*this, a, method, {b});
    if (!is_not_implemented(r)) return truthy(r);
  }
  if (by_value(b) && type_method(b, "__eq__", method)) {
    Value r = call_method(*this, b, method, {a});
    if (!is_not_implemented(r)) return truthy(r);
  }
  return a.is(b);
}

bool Interpreter::less(const Value& a, const Value& b) {
  if (a.is_number() && b.is_number()) {
    if (a.is_integral() && b.is_integral()) return a.as_int() < b.as_int();
    return a.as_float() < b.as_float();
  }
  if (auto* sa = a.as<Str>()) {
    if (auto* sb = b.as<Str>()) return sa->value < sb->value;
  }
  auto seq_less = [&](const std::vector<Value>& x, const std::vector<Value>& y) {
    for (size_t i = 0; i < x.size() && i < y.size(); ++i) {
      if (!equals(x[i], y[i])) return less(x[i], y[i]);
    }
    return x.size() < y.size();
  };
  if (auto* la = a.as<List>()) {
    if (auto* lb = b.as<List>()) return seq_less(la->items, lb->items);
  }
  if (auto* ta = a.as<Tuple>()) {
    if (auto* tb = b.as<Tuple>()) return seq_less(ta->items, tb->items);
  }
  if (auto* sa = a.as<Set>()) {
    if (auto* sb = b.as<Set>()) return set_order(*this, ast::CmpOpKind::Lt, *sa, *sb);
  }
  Value method;
  if (type_method(a, "__lt__", method)) {
    Value r = call_method(*this, a, method, {b});
    if (!is_not_implemented(r)) return truthy(r);
  }
  if (type_method(b, "__gt__", method)) {
    Value r = call_method(*this, b, method, {a});
    if (!is_not_implemented(r)) return truthy(r);
  }
  raise(ExcKind::TypeError,
        fmt::format("'<' not supported between instances of '{}' and '{}'", type_name(a), type_name(b)));
}

bool Interpreter::compare(ast::CmpOpKind op, const Value& a, const Value& b) {
  using K = ast::CmpOpKind;
  auto ordered = [&](const char* dunder, const char* symbol, auto builtin) -> bool {
    if ((a.is_number() && b.is_number()) || (a.as<Str>() && b.as<Str>()) || (a.as<List>() && b.as<List>()) ||
        (a.as<Tuple>() && b.as<Tuple>())) {
      return builtin();
    }
    Value method;
    if (type_method(a, dunder, method)) {
      Value r = call_method(*this, a, method, {b});
      if (!is_not_implemented(r)) return truthy(r);
    }
    raise(ExcKind::TypeError,
          fmt::format("'{}' not supported between instances of '{}' and '{}'", symbol, type_name(a), type_name(b)));
  };
  // Sets are ordered by inclusion, a partial order: `a <= b` is not `not b < a`.
  if (a.as<Set>() && b.as<Set>() && (op == K::Lt || op == K::LtE || op == K::Gt || op == K::GtE)) {
    return set_order(*this, op, *a.as<Set>(), *b.as<Set>());
  }
  switch (op) {
    case K::Eq:
      return equals(a, b);
    case K::NotEq: {
      Value method;
      if (a.is_object() && !is_builtin_value(a) && type_method(a, "__ne__", method)) {
        Value r = call_method(*this, a, method, {b});
        if (!is_not_implemented(r)) return truthy(r);
      }
      return !equals(a, b);
    }
    case K::Lt:
      return ordered("__lt__", "<", [&] { return less(a, b); });
    case K::Gt:
      return ordered("__gt__", ">", [&] { return less(b, a); });
    case K::LtE:
      return ordered("__le__", "<=", [&] { return !less(b, a); });
    case K::GtE:
      return ordered("__ge__", ">=", [&] { return !less(a, b); });
    case K::In:
      return contains(b, a);
    case K::NotIn:
      return !contains(b, a);
    case K::Is:
      return a.is(b);
    case K::IsNot:
      return !a.is(b);
  }
  return false;
}

Value Interpreter::rich_compare(ast::CmpOpKind op, const Value& a, const Value& b) {
  using K = ast::CmpOpKind;
  const char* dunder = nullptr;
  const char* reflected = nullptr;
  switch (op) {
    case K::Eq:
      dunder = "__eq__";
      reflected = "__eq__";
      break;
    case K::NotEq:
      dunder = "__ne__";
      reflected = "__ne__";
      break;
    case K::Lt:
      dunder = "__lt__";
      reflected = "__gt__";
      break;
    case K::LtE:
      dunder = "__le__";
      reflected = "__ge__";
      break;
    case K::Gt:
      dunder = "__gt__";
      reflected = "__lt__";
      break;
    case K::GtE:
      dunder = "__ge__";
      reflected = "__le__";
      break;
    default:
      break;
  }
  // Native (non-script) types with rich comparisons, e.g. PrimExpr building IR.
  if (dunder) {
    Value method;
    // NumPy scalars answer np.bool_, computed in their dtype.
    if ((a.is_numpy_scalar() || (a.is_object() && a.type()->is_builtin)) && type_method(a, dunder, method)) {
      Value r = call_method(*this, a, method, {b});
      if (!is_not_implemented(r)) return r;
    }
    if ((b.is_numpy_scalar() || (b.is_object() && b.type()->is_builtin)) && type_method(b, reflected, method)) {
      Value r = call_method(*this, b, method, {a});
      if (!is_not_implemented(r)) return r;
    }
  }
  return Value::boolean(compare(op, a, b));
}

bool Interpreter::contains(const Value& container, const Value& item) {
  if (auto* s = container.as<Str>()) {
    auto* needle = item.as<Str>();
    if (!needle) raise(ExcKind::TypeError, "'in <string>' requires string as left operand, not " + type_name(item));
    return s->value.find(needle->value) != std::string::npos;
  }
  if (auto* d = container.as<Dict>()) return d->find(*this, item) != nullptr;
  if (auto* s = container.as<Set>()) return set_contains(*this, *s, item);
  if (auto* r = container.as<Range>()) {
    if (!item.is_integral()) return false;
    int64_t v = item.as_int();
    if (r->step > 0 ? (v < r->start || v >= r->stop) : (v > r->start || v <= r->stop)) return false;
    return (v - r->start) % r->step == 0;
  }
  Value method;
  if (type_method(container, "__contains__", method)) return truthy(call_method(*this, container, method, {item}));
  bool found = false;
  for_each(container, [&](const Value& v) {
    if (v.is(item) || equals(v, item)) found = true;
    return !found;
  });
  return found;
}

bool Interpreter::truthy(const Value& v) {
  switch (v.tag()) {
    case Value::Tag::None:
      return false;
    case Value::Tag::Bool:
      return v.as_bool();
    case Value::Tag::Int:
      return v.as_int() != 0;
    case Value::Tag::Float:
      return v.as_float() != 0;
    case Value::Tag::Object:
      break;
  }
  if (auto* s = v.as<Str>()) return !s->value.empty();
  if (auto* l = v.as<List>()) return !l->items.empty();
  if (auto* t = v.as<Tuple>()) return !t->items.empty();
  if (auto* d = v.as<Dict>()) return d->size() > 0;
  if (auto* s = v.as<Set>()) return s->table.size() > 0;
  if (auto* r = v.as<Range>()) return r->length() > 0;
  Value method;
  if (type_method(v, "__bool__", method)) return truthy(call_method(*this, v, method, {}));
  if (type_method(v, "__len__", method)) return len(v) > 0;
  return true;
}

// CPython's hash values (py_hash.h) where CPython's do not vary between runs; the int64
// is what `hash()` returns, size_t what dicts and sets index by.
size_t Interpreter::hash(const Value& v) {
  switch (v.tag()) {
    case Value::Tag::None:
      return static_cast<size_t>(kPyHashNone);
    case Value::Tag::Bool:
    case Value::Tag::Int:
      return static_cast<size_t>(py_hash_int(v.as_int()));
    case Value::Tag::Float:
      return static_cast<size_t>(py_hash_double(v.as_float()));
    case Value::Tag::Object:
      break;
  }
  // str hashes are randomized in CPython: any fixed function does.
  if (auto* s = v.as<Str>())
    return static_cast<size_t>(py_hash_fix(static_cast<int64_t>(std::hash<std::string>()(s->value))));
  if (auto* t = v.as<Tuple>()) {
    PyTupleHasher h;
    for (const auto& item : t->items) h.add(static_cast<int64_t>(hash(item)));
    return static_cast<size_t>(h.finish(t->items.size()));
  }
  if (auto* s = v.as<Set>()) return static_cast<size_t>(set_hash(*s));
  if (v.as<List>() || v.as<Dict>()) raise(ExcKind::TypeError, "unhashable type: '" + type_name(v) + "'");
  Value method;
  if ((!is_builtin_value(v) || v.type()->hashes_by_value) && type_method(v, "__hash__", method)) {
    Value h = call_method(*this, v, method, {});
    if (!h.is_integral()) raise(ExcKind::TypeError, "__hash__ method should return an integer");
    return static_cast<size_t>(py_hash_fix(h.as_int()));
  }
  return static_cast<size_t>(py_hash_pointer(v.object()));
}

}  // namespace tsch::script
