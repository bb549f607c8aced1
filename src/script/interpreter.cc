// Generic operations on values: calls, attributes, items, operators, comparison, hashing,
// iteration and str/repr. Built-in types take fast paths; everything else goes through the
// type's dunder methods, so native types of later layers plug in by defining them.
#include "script/interpreter.h"

#include <unistd.h>

#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <functional>

#include "script/format.h"
#include "script/modules.h"
#include "script/numbers.h"
#include "script/sequence.h"
#include "script/types.h"
#include "support/error.h"
#include "support/checked_size.h"
#include "support/interrupt.h"

namespace tsch::script {

void install_builtins(Interpreter& interp, Namespace& ns);

Interpreter::Interpreter() : builtins_(std::make_shared<Namespace>()), modules_(std::make_unique<ModuleLoader>()) {
  // Output to a pipe or file is flushed at the next statement (Evaluator::exec), so what a
  // script printed is not lost when it is killed; a terminal is line-buffered already.
  static const bool stdout_is_terminal = isatty(STDOUT_FILENO);
  write_stdout = [this](const std::string& text) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    if (!stdout_is_terminal) stdout_unflushed = true;
  };
  install_builtins(*this, *builtins_);
}

Interpreter::~Interpreter() = default;

std::vector<DecoratorHook>& Interpreter::decorator_hooks() {
  static auto* hooks = new std::vector<DecoratorHook>();
  return *hooks;
}

void Interpreter::check_interrupt() {
  if (interrupt_requested.exchange(false)) {
    clear_interrupt();
    throw ScriptError(make_exception(exception_type(ExcKind::KeyboardInterrupt), {}));
  }
}

std::string Interpreter::type_name(const Value& v) { return v.type()->name(); }

namespace {

const char* dunder_name(ast::BinOpKind op, bool reflected) {
  using K = ast::BinOpKind;
  switch (op) {
    case K::Add: return reflected ? "__radd__" : "__add__";
    case K::Sub: return reflected ? "__rsub__" : "__sub__";
    case K::Mul: return reflected ? "__rmul__" : "__mul__";
    case K::MatMul: return reflected ? "__rmatmul__" : "__matmul__";
    case K::Div: return reflected ? "__rtruediv__" : "__truediv__";
    case K::FloorDiv: return reflected ? "__rfloordiv__" : "__floordiv__";
    case K::Mod: return reflected ? "__rmod__" : "__mod__";
    case K::Pow: return reflected ? "__rpow__" : "__pow__";
    case K::LShift: return reflected ? "__rlshift__" : "__lshift__";
    case K::RShift: return reflected ? "__rrshift__" : "__rshift__";
    case K::BitOr: return reflected ? "__ror__" : "__or__";
    case K::BitXor: return reflected ? "__rxor__" : "__xor__";
    case K::BitAnd: return reflected ? "__rand__" : "__and__";
  }
  return "";
}

// `__iadd__` for `+=`, ...: "__i" + the name without its leading "__".
std::string inplace_dunder_name(ast::BinOpKind op) { return std::string("__i") + (dunder_name(op, false) + 2); }

bool is_builtin_value(const Value& v) { return !v.is_object() || v.type()->is_builtin; }

// A dunder method from the value's type (not from instance attributes, as in Python).
bool type_method(const Value& v, const char* name, Value& out) {
  if (!v.is_object()) return false;
  Value* m = v.type()->lookup(intern(name));
  if (!m) return false;
  out = *m;
  return true;
}

Value call_method(Interpreter& interp, const Value& self, const Value& method, std::vector<Value> args) {
  args.insert(args.begin(), self);
  return interp.call(method, std::move(args));
}

bool is_not_implemented(const Value& v);

// Code-point boundaries of a UTF-8 string (size n+1), or empty when it is ASCII.
std::vector<size_t> utf8_boundaries(const std::string& s) {
  bool ascii = true;
  for (char c : s) {
    if (static_cast<unsigned char>(c) >= 0x80) {
      ascii = false;
      break;
    }
  }
  if (ascii) return {};
  std::vector<size_t> b;
  for (size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) b.push_back(i);
  }
  b.push_back(s.size());
  return b;
}

int64_t str_length(const std::string& s) {
  auto b = utf8_boundaries(s);
  return b.empty() ? static_cast<int64_t>(s.size()) : static_cast<int64_t>(b.size() - 1);
}

std::string str_char(const std::string& s, const std::vector<size_t>& b, size_t i) {
  if (b.empty()) return std::string(1, s[i]);
  return s.substr(b[i], b[i + 1] - b[i]);
}

class ListIterator : public Iterator {
 public:
  explicit ListIterator(std::shared_ptr<List> l) : list_(std::move(l)) {}
  bool next(Interpreter&, Value& out) override {
    if (pos_ >= list_->items.size()) return false;
    out = list_->items[pos_++];
    return true;
  }
  const char* kind() const override { return "list_iterator"; }

 private:
  std::shared_ptr<List> list_;
  size_t pos_ = 0;
};

class VectorIterator : public Iterator {
 public:
  VectorIterator(std::vector<Value> items, const char* kind) : items_(std::move(items)), kind_(kind) {}
  bool next(Interpreter&, Value& out) override {
    if (pos_ >= items_.size()) return false;
    out = items_[pos_++];
    return true;
  }
  const char* kind() const override { return kind_; }

 private:
  std::vector<Value> items_;
  size_t pos_ = 0;
  const char* kind_;
};

class RangeIterator : public Iterator {
 public:
  explicit RangeIterator(const Range& r) : next_(r.start), step_(r.step), left_(r.length()) {}
  bool next(Interpreter&, Value& out) override {
    if (left_ <= 0) return false;
    out = Value::integer(next_);
    next_ += step_;
    --left_;
    return true;
  }
  const char* kind() const override { return "range_iterator"; }

 private:
  int64_t next_, step_, left_;
};

std::string str_repr(const std::string& s) {
  bool has_single = s.find('\'') != std::string::npos;
  bool has_double = s.find('"') != std::string::npos;
  char quote = has_single && !has_double ? '"' : '\'';
  std::string out(1, quote);
  for (unsigned char c : s) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c == static_cast<unsigned char>(quote)) {
          out += '\\';
          out += static_cast<char>(c);
        } else if (c < 0x20 || c == 0x7F) {
          out += fmt::format("\\x{:02x}", c);
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += quote;
  return out;
}

}  // namespace

// ---------------------------------------------------------------------------- calls

Value Interpreter::call(const Value& callee, CallArgs args) {
  if (auto* fn = callee.as<Function>()) return call_function(*fn, args);
  if (auto* native = callee.as<NativeFunction>()) {
    Args bound(*this, native->name, native->signature, std::move(args));
    // Sizes computed from user shapes and refused allocations become Python's errors here,
    // so the caret points at the call that asked for them.
    try {
      return native->impl(*this, bound);
    } catch (const SizeOverflow& e) {
      raise(ExcKind::ValueError, e.what());
    } catch (const UserError& e) {
      // A C++ core refused what the script asked for (support/error.h).
      raise(exception_kind_of(e.kind), e.what());
    } catch (const OutOfMemory& e) {
      raise(ExcKind::MemoryError, e.what());
    } catch (const std::bad_alloc&) {
      raise(ExcKind::MemoryError, "out of memory");
    } catch (const Interrupted&) {
      // Ctrl-C stopped a compiled kernel: the interrupt is handled here.
      interrupt_requested = false;
      throw ScriptError(make_exception(exception_type(ExcKind::KeyboardInterrupt), {}));
    }
  }
  if (auto* bound = callee.as<BoundMethod>()) {
    args.positional.insert(args.positional.begin(), bound->self);
    return call(bound->func, std::move(args));
  }
  if (auto* cls = callee.as<TypeObject>()) {
    if (cls->is_exception) {
      Value inst = make_exception(cls, args.positional);
      Value* init = cls->lookup(intern("__init__"));
      if (init && init->as<Function>()) {
        args.positional.insert(args.positional.begin(), inst);
        call(*init, std::move(args));
      } else if (!args.keywords.empty()) {
        raise(ExcKind::TypeError, cls->name() + "() takes no keyword arguments");
      }
      return inst;
    }
    if (!cls->is_builtin) {
      for (TypeObject* t : cls->mro()) {
        if (t->is_builtin && t != builtin_types().object.get()) {
          raise(ExcKind::TypeError, "not supported yet: subclassing the built-in type '" + t->name() + "'");
        }
      }
      auto inst = std::make_shared<Instance>(std::static_pointer_cast<TypeObject>(cls->shared_from_this()));
      Value self(inst);
      Value* init = cls->lookup(intern("__init__"));
      if (init) {
        args.positional.insert(args.positional.begin(), self);
        Value result = call(*init, std::move(args));
        if (!result.is_none()) raise(ExcKind::TypeError, "__init__() should return None, not '" + type_name(result) + "'");
      } else if (!args.positional.empty() || !args.keywords.empty()) {
        raise(ExcKind::TypeError, cls->name() + "() takes no arguments");
      }
      return self;
    }
    for (TypeObject* t : cls->mro()) {
      if (t->constructor) return t->constructor(*this, cls, args);
    }
    raise(ExcKind::TypeError, "cannot create '" + cls->name() + "' instances");
  }
  Value method;
  if (callee.is_object() && type_method(callee, "__call__", method)) {
    args.positional.insert(args.positional.begin(), callee);
    return call(method, std::move(args));
  }
  raise(ExcKind::TypeError, "'" + type_name(callee) + "' object is not callable");
}

// ---------------------------------------------------------------------------- attributes

bool Interpreter::try_get_attr(const Value& obj, Symbol name, Value& out) {
  static const Symbol kName = intern("__name__");
  static const Symbol kClass = intern("__class__");
  static const Symbol kDoc = intern("__doc__");
  if (auto* module = obj.as<Module>()) {
    if (Value* v = module->globals->find(name)) {
      out = *v;
      return true;
    }
    if (name == kName) {
      out = make_str(module->name);
      return true;
    }
    return module->get_attr_hook(*this, name, out);
  }
  if (name == kClass) {
    out = Value(obj.type()->shared_from_this());
    return true;
  }
  if (auto* cls = obj.as<TypeObject>()) {
    if (Value* v = cls->lookup(name)) {
      out = *v;
      return true;
    }
    if (name == kName) {
      out = make_str(cls->name());
      return true;
    }
    return cls->get_attr_hook(*this, name, out);
  }
  if (auto* fn = obj.as<Function>()) {
    if (Value* v = fn->attrs.find(name)) {
      out = *v;
      return true;
    }
    if (name == kName) {
      out = make_str(fn->name);
      return true;
    }
    if (name == kDoc) {
      out = Value();
      return true;
    }
  }
  if (auto* native = obj.as<NativeFunction>()) {
    if (name == kName) {
      out = make_str(native->name);
      return true;
    }
    if (name == kDoc) {
      out = make_str(native->doc);
      return true;
    }
  }
  if (auto* inst = obj.as<Instance>()) {
    if (Value* v = inst->attrs().find(name)) {
      out = *v;
      return true;
    }
  }
  if (obj.is_object() && obj.object()->get_attr_hook(*this, name, out)) return true;
  if (Value* v = obj.type()->lookup(name)) {
    if (v->as<Function>() || v->as<NativeFunction>()) {
      out = Value(std::make_shared<BoundMethod>(obj, *v));
    } else if (auto* prop = v->as<Property>()) {
      out = prop->getter(*this, obj);
    } else {
      out = *v;
    }
    return true;
  }
  return false;
}

Value Interpreter::get_attr(const Value& obj, Symbol name) {
  Value out;
  if (try_get_attr(obj, name, out)) return out;
  if (auto* module = obj.as<Module>()) {
    raise(ExcKind::AttributeError, fmt::format("module '{}' has no attribute '{}'", module->name, symbol_name(name)));
  }
  if (auto* cls = obj.as<TypeObject>()) {
    raise(ExcKind::AttributeError, fmt::format("type object '{}' has no attribute '{}'", cls->name(), symbol_name(name)));
  }
  raise(ExcKind::AttributeError, fmt::format("'{}' object has no attribute '{}'", type_name(obj), symbol_name(name)));
}

void Interpreter::set_attr(const Value& obj, Symbol name, Value value) {
  if (auto* inst = obj.as<Instance>()) {
    inst->attrs().set(name, std::move(value));
    return;
  }
  if (auto* module = obj.as<Module>()) {
    module->globals->set(name, std::move(value));
    return;
  }
  if (auto* cls = obj.as<TypeObject>(); cls && !cls->is_builtin) {
    cls->dict().set(name, std::move(value));
    return;
  }
  if (auto* fn = obj.as<Function>()) {
    fn->attrs.set(name, std::move(value));
    return;
  }
  if (obj.is_object() && obj.object()->set_attr_hook(*this, name, value)) return;
  raise(ExcKind::AttributeError, fmt::format("'{}' object attribute '{}' is read-only", type_name(obj), symbol_name(name)));
}

// ---------------------------------------------------------------------------- items

Value Interpreter::get_item(const Value& obj, const Value& key) {
  if (auto* list = obj.as<List>()) {
    if (auto* s = key.as<SliceObject>()) return make_list(take_slice(list->items, slice_bounds(*s, static_cast<int64_t>(list->items.size()))));
    return list->items[resolve_index(*this, key, static_cast<int64_t>(list->items.size()), "list")];
  }
  if (auto* tuple = obj.as<Tuple>()) {
    if (auto* s = key.as<SliceObject>()) return make_tuple(take_slice(tuple->items, slice_bounds(*s, static_cast<int64_t>(tuple->items.size()))));
    return tuple->items[resolve_index(*this, key, static_cast<int64_t>(tuple->items.size()), "tuple")];
  }
  if (auto* str = obj.as<Str>()) {
    auto b = utf8_boundaries(str->value);
    int64_t n = b.empty() ? static_cast<int64_t>(str->value.size()) : static_cast<int64_t>(b.size() - 1);
    if (auto* s = key.as<SliceObject>()) {
      SliceBounds sb = slice_bounds(*s, n);
      std::string out;
      for (int64_t i = 0, k = sb.start; i < sb.length; ++i, k += sb.step) out += str_char(str->value, b, static_cast<size_t>(k));
      return make_str(out);
    }
    return make_str(str_char(str->value, b, resolve_index(*this, key, n, "string")));
  }
  if (auto* dict = obj.as<Dict>()) {
    if (Value* v = dict->find(*this, key)) return *v;
    raise_key_error(key);
  }
  if (auto* range = obj.as<Range>()) {
    if (auto* s = key.as<SliceObject>()) {
      SliceBounds sb = slice_bounds(*s, range->length());
      return Value(std::make_shared<Range>(range->start + sb.start * range->step,
                                           range->start + sb.stop * range->step, range->step * sb.step));
    }
    size_t i = resolve_index(*this, key, range->length(), "range object");
    return Value::integer(range->start + static_cast<int64_t>(i) * range->step);
  }
  Value method;
  if (type_method(obj, "__getitem__", method)) return call_method(*this, obj, method, {key});
  if (obj.as<TypeObject>()) {
    raise(ExcKind::TypeError, fmt::format("type '{}' is not subscriptable", obj.as<TypeObject>()->name()));
  }
  raise(ExcKind::TypeError, fmt::format("'{}' object is not subscriptable", type_name(obj)));
}

void Interpreter::set_item(const Value& obj, const Value& key, Value value) {
  if (auto* list = obj.as<List>()) {
    if (auto* s = key.as<SliceObject>()) {
      std::vector<Value> replacement = to_vector(value);
      SliceBounds sb = slice_bounds(*s, static_cast<int64_t>(list->items.size()));
      if (sb.step == 1) {
        auto first = list->items.begin() + sb.start;
        list->items.erase(first, first + sb.length);
        list->items.insert(list->items.begin() + sb.start, replacement.begin(), replacement.end());
        return;
      }
      if (static_cast<int64_t>(replacement.size()) != sb.length) {
        raise(ExcKind::ValueError, fmt::format("attempt to assign sequence of size {} to extended slice of size {}",
                                               replacement.size(), sb.length));
      }
      for (int64_t i = 0, k = sb.start; i < sb.length; ++i, k += sb.step) list->items[static_cast<size_t>(k)] = replacement[static_cast<size_t>(i)];
      return;
    }
    list->items[resolve_index(*this, key, static_cast<int64_t>(list->items.size()), "list assignment")] = std::move(value);
    return;
  }
  if (auto* dict = obj.as<Dict>()) {
    dict->set(*this, key, std::move(value));
    return;
  }
  Value method;
  if (type_method(obj, "__setitem__", method)) {
    call_method(*this, obj, method, {key, value});
    return;
  }
  raise(ExcKind::TypeError, fmt::format("'{}' object does not support item assignment", type_name(obj)));
}

void Interpreter::del_item(const Value& obj, const Value& key) {
  if (auto* list = obj.as<List>()) {
    if (auto* s = key.as<SliceObject>()) {
      SliceBounds sb = slice_bounds(*s, static_cast<int64_t>(list->items.size()));
      std::vector<bool> drop(list->items.size(), false);
      for (int64_t i = 0, k = sb.start; i < sb.length; ++i, k += sb.step) drop[static_cast<size_t>(k)] = true;
      std::vector<Value> kept;
      for (size_t i = 0; i < list->items.size(); ++i) {
        if (!drop[i]) kept.push_back(list->items[i]);
      }
      list->items = std::move(kept);
      return;
    }
    size_t i = resolve_index(*this, key, static_cast<int64_t>(list->items.size()), "list assignment");
    list->items.erase(list->items.begin() + static_cast<long>(i));
    return;
  }
  if (auto* dict = obj.as<Dict>()) {
    if (!dict->erase(*this, key)) raise_key_error(key);
    return;
  }
  Value method;
  if (type_method(obj, "__delitem__", method)) {
    call_method(*this, obj, method, {key});
    return;
  }
  raise(ExcKind::TypeError, fmt::format("'{}' object does not support item deletion", type_name(obj)));
}

// ---------------------------------------------------------------------------- operators

namespace {

std::vector<Value> repeat(const std::vector<Value>& items, int64_t n) {
  std::vector<Value> out;
  if (n <= 0) return out;
  if (items.size() * static_cast<size_t>(n) > (1u << 28)) raise(ExcKind::OverflowError, "repeated sequence is too long");
  out.reserve(items.size() * static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) out.insert(out.end(), items.begin(), items.end());
  return out;
}

}  // namespace

Value Interpreter::binary_op(ast::BinOpKind op, const Value& a, const Value& b) {
  using K = ast::BinOpKind;
  Value out;
  if (numeric_binary(op, a, b, out)) return out;
  if (auto* sa = a.as<Str>()) {
    if (op == K::Add) {
      if (auto* sb = b.as<Str>()) return make_str(sa->value + sb->value);
    }
    if (op == K::Mul && b.is_integral()) {
      int64_t n = b.as_int();
      if (n > 0 && sa->value.size() * static_cast<size_t>(n) > (1u << 30)) raise(ExcKind::OverflowError, "repeated string is too long");
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
  if (!is_builtin_value(a) || (a.is_object() && a.type()->lookup(intern(dunder_name(op, false))))) {
    if (type_method(a, dunder_name(op, false), method)) {
      Value r = call_method(*this, a, method, {b});
      if (!is_not_implemented(r)) return r;
    }
  }
  if (type_method(b, dunder_name(op, true), method)) {
    Value r = call_method(*this, b, method, {a});
    if (!is_not_implemented(r)) return r;
  }
  raise(ExcKind::TypeError, fmt::format("unsupported operand type(s) for {}: '{}' and '{}'", ast::binop_symbol(op),
                                        type_name(a), type_name(b)));
}

Value Interpreter::inplace_op(ast::BinOpKind op, const Value& a, const Value& b) {
  Value method;
  if (a.is_object() && type_method(a, inplace_dunder_name(op).c_str(), method)) {
    Value r = call_method(*this, a, method, {b});
    if (!is_not_implemented(r)) return r;
  }
  return binary_op(op, a, b);
}

Value Interpreter::unary_op(ast::UnaryOpKind op, const Value& a) {
  using K = ast::UnaryOpKind;
  if (op == K::Not) return Value::boolean(!truthy(a));
  if (a.is_integral()) {
    int64_t v = a.as_int();
    switch (op) {
      case K::Neg:
        if (v == INT64_MIN) raise(ExcKind::OverflowError, "integer overflow: the result does not fit in 64 bits");
        return Value::integer(-v);
      case K::Pos: return Value::integer(v);
      case K::Invert: return Value::integer(~v);
      default: break;
    }
  }
  if (a.is_float()) {
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

bool is_not_implemented(const Value& v) { return v.as<NotImplementedObject>() != nullptr; }

}  // namespace

Value not_implemented_value() {
  static Value v(std::make_shared<NotImplementedObject>());
  return v;
}

bool Interpreter::equals(const Value& a, const Value& b) {
  if (a.is_number() && b.is_number()) {
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
  if (auto* ra = a.as<Range>()) {
    auto* rb = b.as<Range>();
    return rb && ra->length() == rb->length() && (ra->length() == 0 || (ra->start == rb->start && (ra->length() == 1 || ra->step == rb->step)));
  }
  Value method;
  if (a.is_object() && !is_builtin_value(a) && type_method(a, "__eq__", method)) {
    Value r = call_method(*this, a, method, {b});
    if (!is_not_implemented(r)) return truthy(r);
  }
  if (b.is_object() && !is_builtin_value(b) && type_method(b, "__eq__", method)) {
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
  Value method;
  if (type_method(a, "__lt__", method)) {
    Value r = call_method(*this, a, method, {b});
    if (!is_not_implemented(r)) return truthy(r);
  }
  if (type_method(b, "__gt__", method)) {
    Value r = call_method(*this, b, method, {a});
    if (!is_not_implemented(r)) return truthy(r);
  }
  raise(ExcKind::TypeError, fmt::format("'<' not supported between instances of '{}' and '{}'", type_name(a), type_name(b)));
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
    raise(ExcKind::TypeError, fmt::format("'{}' not supported between instances of '{}' and '{}'", symbol,
                                          type_name(a), type_name(b)));
  };
  switch (op) {
    case K::Eq: return equals(a, b);
    case K::NotEq: {
      Value method;
      if (a.is_object() && !is_builtin_value(a) && type_method(a, "__ne__", method)) {
        Value r = call_method(*this, a, method, {b});
        if (!is_not_implemented(r)) return truthy(r);
      }
      return !equals(a, b);
    }
    case K::Lt: return ordered("__lt__", "<", [&] { return less(a, b); });
    case K::Gt: return ordered("__gt__", ">", [&] { return less(b, a); });
    case K::LtE: return ordered("__le__", "<=", [&] { return !less(b, a); });
    case K::GtE: return ordered("__ge__", ">=", [&] { return !less(a, b); });
    case K::In: return contains(b, a);
    case K::NotIn: return !contains(b, a);
    case K::Is: return a.is(b);
    case K::IsNot: return !a.is(b);
  }
  return false;
}

Value Interpreter::rich_compare(ast::CmpOpKind op, const Value& a, const Value& b) {
  using K = ast::CmpOpKind;
  const char* dunder = nullptr;
  const char* reflected = nullptr;
  switch (op) {
    case K::Eq: dunder = "__eq__"; reflected = "__eq__"; break;
    case K::NotEq: dunder = "__ne__"; reflected = "__ne__"; break;
    case K::Lt: dunder = "__lt__"; reflected = "__gt__"; break;
    case K::LtE: dunder = "__le__"; reflected = "__ge__"; break;
    case K::Gt: dunder = "__gt__"; reflected = "__lt__"; break;
    case K::GtE: dunder = "__ge__"; reflected = "__le__"; break;
    default: break;
  }
  // Native (non-script) types with rich comparisons, e.g. PrimExpr building IR.
  if (dunder) {
    Value method;
    if (a.is_object() && a.type()->is_builtin && type_method(a, dunder, method)) {
      Value r = call_method(*this, a, method, {b});
      if (!is_not_implemented(r)) return r;
    }
    if (b.is_object() && b.type()->is_builtin && type_method(b, reflected, method)) {
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
    case Value::Tag::None: return false;
    case Value::Tag::Bool: return v.as_bool();
    case Value::Tag::Int: return v.as_int() != 0;
    case Value::Tag::Float: return v.as_float() != 0;
    case Value::Tag::Object: break;
  }
  if (auto* s = v.as<Str>()) return !s->value.empty();
  if (auto* l = v.as<List>()) return !l->items.empty();
  if (auto* t = v.as<Tuple>()) return !t->items.empty();
  if (auto* d = v.as<Dict>()) return d->size() > 0;
  if (auto* r = v.as<Range>()) return r->length() > 0;
  Value method;
  if (type_method(v, "__bool__", method)) return truthy(call_method(*this, v, method, {}));
  if (type_method(v, "__len__", method)) return len(v) > 0;
  return true;
}

size_t Interpreter::hash(const Value& v) {
  switch (v.tag()) {
    case Value::Tag::None: return 0x9e3779b9;
    case Value::Tag::Bool:
    case Value::Tag::Int: return std::hash<int64_t>()(v.as_int());
    case Value::Tag::Float: {
      double d = v.as_float();
      if (d == std::floor(d) && std::fabs(d) < 9.2e18) return std::hash<int64_t>()(static_cast<int64_t>(d));
      return std::hash<double>()(d);
    }
    case Value::Tag::Object: break;
  }
  if (auto* s = v.as<Str>()) return std::hash<std::string>()(s->value);
  if (auto* t = v.as<Tuple>()) {
    size_t h = 0x345678;
    for (const auto& item : t->items) h = h * 1000003 ^ hash(item);
    return h;
  }
  if (v.as<List>() || v.as<Dict>()) raise(ExcKind::TypeError, "unhashable type: '" + type_name(v) + "'");
  Value method;
  if (!is_builtin_value(v) && type_method(v, "__hash__", method)) {
    Value h = call_method(*this, v, method, {});
    return static_cast<size_t>(h.as_int());
  }
  return std::hash<const void*>()(v.object());
}

int64_t Interpreter::len(const Value& v) {
  if (auto* s = v.as<Str>()) return str_length(s->value);
  if (auto* l = v.as<List>()) return static_cast<int64_t>(l->items.size());
  if (auto* t = v.as<Tuple>()) return static_cast<int64_t>(t->items.size());
  if (auto* d = v.as<Dict>()) return static_cast<int64_t>(d->size());
  if (auto* r = v.as<Range>()) return r->length();
  Value method;
  if (type_method(v, "__len__", method)) {
    Value n = call_method(*this, v, method, {});
    if (!n.is_integral()) raise(ExcKind::TypeError, "'" + type_name(n) + "' object cannot be interpreted as an integer");
    return n.as_int();
  }
  raise(ExcKind::TypeError, "object of type '" + type_name(v) + "' has no len()");
}

// ---------------------------------------------------------------------------- iteration

std::shared_ptr<Iterator> Interpreter::iter(const Value& iterable) {
  if (auto it = iterable.as_ref<Iterator>()) return it;
  if (auto list = iterable.as_ref<List>()) return std::make_shared<ListIterator>(list);
  if (auto* t = iterable.as<Tuple>()) return std::make_shared<VectorIterator>(t->items, "tuple_iterator");
  if (auto* r = iterable.as<Range>()) return std::make_shared<RangeIterator>(*r);
  if (auto* s = iterable.as<Str>()) {
    std::vector<Value> chars;
    auto b = utf8_boundaries(s->value);
    int64_t n = str_length(s->value);
    for (int64_t i = 0; i < n; ++i) chars.push_back(make_str(str_char(s->value, b, static_cast<size_t>(i))));
    return std::make_shared<VectorIterator>(std::move(chars), "str_iterator");
  }
  if (auto* d = iterable.as<Dict>()) {
    std::vector<Value> keys;
    d->for_each([&](const Value& k, const Value&) { keys.push_back(k); });
    return std::make_shared<VectorIterator>(std::move(keys), "dict_keyiterator");
  }
  Value method;
  if (type_method(iterable, "__iter__", method)) {
    Value it = call_method(*this, iterable, method, {});
    if (auto native = it.as_ref<Iterator>()) return native;
    Value next;
    if (!type_method(it, "__next__", next)) raise(ExcKind::TypeError, "iter() returned non-iterator of type '" + type_name(it) + "'");
    return std::make_shared<NativeIterator>("iterator", [it, next](Interpreter& interp, Value& out) {
      try {
        out = call_method(interp, it, next, {});
        return true;
      } catch (const ScriptError& e) {
        if (e.exception.type()->is_subtype_of(exception_type(ExcKind::StopIteration))) return false;
        throw;
      }
    });
  }
  raise(ExcKind::TypeError, "'" + type_name(iterable) + "' object is not iterable");
}

void Interpreter::for_each(const Value& iterable, const std::function<bool(const Value&)>& f) {
  if (auto* l = iterable.as<List>()) {
    for (size_t i = 0; i < l->items.size(); ++i) {
      Value item = l->items[i];
      if (!f(item)) return;
    }
    return;
  }
  std::shared_ptr<Iterator> it = iter(iterable);
  Value item;
  while (it->next(*this, item)) {
    if (!f(item)) return;
  }
}

std::vector<Value> Interpreter::to_vector(const Value& iterable) {
  if (auto* l = iterable.as<List>()) return l->items;
  if (auto* t = iterable.as<Tuple>()) return t->items;
  std::vector<Value> out;
  for_each(iterable, [&](const Value& v) {
    out.push_back(v);
    return true;
  });
  return out;
}

// ---------------------------------------------------------------------------- str / repr

bool Interpreter::repr_enter(const Value& v) {
  for (const auto& frame : repr_stack_) {
    if (!frame.empty() && frame[0].is(v)) return false;
  }
  repr_stack_.push_back({v});
  return true;
}

void Interpreter::repr_leave() { repr_stack_.pop_back(); }

std::string Interpreter::str(const Value& v) {
  if (auto* s = v.as<Str>()) return s->value;
  if (v.is_object() && v.type()->is_exception) {
    Value args_value;
    Value* args = v.as<Instance>()->attrs().find(intern("args"));
    if (Value* custom = v.type()->lookup(intern("__str__"))) return str(call(*custom, std::vector<Value>{v}));
    if (!args) return "";
    auto* t = args->as<Tuple>();
    if (!t || t->items.empty()) return "";
    if (t->items.size() == 1) {
      if (v.type()->is_subtype_of(exception_type(ExcKind::KeyError))) return repr(t->items[0]);
      return str(t->items[0]);
    }
    return repr(*args);
  }
  Value method;
  if (v.is_object() && type_method(v, "__str__", method)) {
    Value r = call_method(*this, v, method, {});
    if (!r.as<Str>()) raise(ExcKind::TypeError, "__str__ returned non-string (type " + type_name(r) + ")");
    return r.as<Str>()->value;
  }
  return repr(v);
}

std::string Interpreter::repr(const Value& v) {
  switch (v.tag()) {
    case Value::Tag::None: return "None";
    case Value::Tag::Bool: return v.as_bool() ? "True" : "False";
    case Value::Tag::Int: return std::to_string(v.as_int());
    case Value::Tag::Float: return float_repr(v.as_float());
    case Value::Tag::Object: break;
  }
  if (auto* s = v.as<Str>()) return str_repr(s->value);
  auto join = [&](const std::vector<Value>& items, const char* open, const char* close, bool tuple) {
    if (!repr_enter(v)) return std::string(open) + "..." + close;
    std::string out = open;
    for (size_t i = 0; i < items.size(); ++i) {
      if (i) out += ", ";
      out += repr(items[i]);
    }
    if (tuple && items.size() == 1) out += ",";
    repr_leave();
    return out + close;
  };
  if (auto* l = v.as<List>()) return join(l->items, "[", "]", false);
  if (auto* t = v.as<Tuple>()) return join(t->items, "(", ")", true);
  if (auto* d = v.as<Dict>()) {
    if (!repr_enter(v)) return "{...}";
    std::string out = "{";
    bool first = true;
    d->for_each([&](const Value& k, const Value& val) {
      if (!first) out += ", ";
      first = false;
      out += repr(k) + ": " + repr(val);
    });
    repr_leave();
    return out + "}";
  }
  if (auto* r = v.as<Range>()) {
    if (r->step == 1) return fmt::format("range({}, {})", r->start, r->stop);
    return fmt::format("range({}, {}, {})", r->start, r->stop, r->step);
  }
  if (auto* s = v.as<SliceObject>()) return fmt::format("slice({}, {}, {})", repr(s->start), repr(s->stop), repr(s->step));
  if (auto* cls = v.as<TypeObject>()) return "<class '" + (cls->is_builtin || cls->is_exception ? cls->qualified_name() : "__main__." + cls->name()) + "'>";
  if (auto* fn = v.as<Function>()) return "<function " + fn->qualname + ">";
  if (auto* native = v.as<NativeFunction>()) return "<built-in function " + native->name + ">";
  if (auto* bound = v.as<BoundMethod>()) {
    std::string name = bound->func.as<Function>() ? bound->func.as<Function>()->qualname
                       : bound->func.as<NativeFunction>() ? bound->func.as<NativeFunction>()->name : "?";
    return "<bound method " + name + " of " + repr(bound->self) + ">";
  }
  if (auto* module = v.as<Module>()) {
    return module->file.empty() ? "<module '" + module->name + "' (built-in)>" : "<module '" + module->name + "' from '" + module->file + "'>";
  }
  if (auto* it = v.as<Iterator>()) return std::string("<") + it->kind() + " object>";
  if (v.type()->is_exception) {
    Value* args = v.as<Instance>()->attrs().find(intern("args"));
    std::string inner = args && args->as<Tuple>() ? repr(*args) : "()";
    if (args && args->as<Tuple>() && args->as<Tuple>()->items.size() == 1) inner = "(" + repr(args->as<Tuple>()->items[0]) + ")";
    return v.type()->name() + inner;
  }
  Value method;
  if (!is_builtin_value(v) && type_method(v, "__repr__", method)) {
    Value r = call_method(*this, v, method, {});
    if (!r.as<Str>()) raise(ExcKind::TypeError, "__repr__ returned non-string (type " + type_name(r) + ")");
    return r.as<Str>()->value;
  }
  std::string custom = v.object()->repr_hook(*this);
  if (!custom.empty()) return custom;
  if (v.type()->is_builtin) return "<" + v.type()->qualified_name() + " object>";
  return "<__main__." + v.type()->name() + " object>";
}

}  // namespace tsch::script
