// Creates the built-in types with their constructors (int("3"), list(x), range(n), ...).
#include "script/types.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "script/exceptions.h"
#include "script/interpreter.h"

namespace tsch::script {
namespace {

// Binds a constructor call against a signature, with the type's name in errors.
Args bind(Interpreter& interp, TypeObject* cls, const char* signature, CallArgs& call) {
  static thread_local std::unordered_map<std::string, Signature> cache;
  auto it = cache.find(signature);
  if (it == cache.end()) it = cache.emplace(signature, Signature::parse(signature)).first;
  return Args(interp, cls->name(), it->second, std::move(call));
}

std::string strip(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\n\r");
  size_t e = s.find_last_not_of(" \t\n\r");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

Value int_from(Interpreter& interp, const Value& v, int64_t base, bool base_given) {
  if (auto* s = v.as<Str>()) {
    std::string text;
    for (char c : strip(s->value)) {
      if (c != '_') text += c;
    }
    errno = 0;
    char* end = nullptr;
    int b = static_cast<int>(base);
    const char* start = text.c_str();
    bool negative = false;
    if (*start == '+' || *start == '-') negative = *start++ == '-';
    if (b == 0 || b == 16 || b == 8 || b == 2) {
      if (start[0] == '0' && start[1] != '\0' && std::isalpha(static_cast<unsigned char>(start[1]))) {
        char p = static_cast<char>(std::tolower(start[1]));
        int prefixed = p == 'x' ? 16 : p == 'o' ? 8 : p == 'b' ? 2 : -1;
        if (prefixed > 0 && (b == 0 || b == prefixed)) {
          b = prefixed;
          start += 2;
        }
      }
      if (b == 0) b = 10;
    }
    unsigned long long magnitude = std::strtoull(start, &end, b);
    if (text.empty() || end == start || *end != '\0' || std::isspace(static_cast<unsigned char>(*start)) ||
        *start == '-' || *start == '+') {
      raise(ExcKind::ValueError, "invalid literal for int() with base " + std::to_string(base) + ": " + interp.repr(v));
    }
    if (errno == ERANGE || magnitude > static_cast<unsigned long long>(INT64_MAX) + (negative ? 1 : 0)) {
      raise(ExcKind::OverflowError, "int too large: tsch integers are 64-bit");
    }
    return Value::integer(negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude));
  }
  if (base_given) raise(ExcKind::TypeError, "int() can't convert non-string with explicit base");
  if (v.is_integral()) return Value::integer(v.as_int());
  if (v.is_float()) {
    double d = v.as_float();
    if (std::isnan(d)) raise(ExcKind::ValueError, "cannot convert float NaN to integer");
    if (std::isinf(d)) raise(ExcKind::OverflowError, "cannot convert float infinity to integer");
    double t = std::trunc(d);
    if (t >= 9.2233720368547758e18 || t < -9.2233720368547758e18) {
      raise(ExcKind::OverflowError, "int too large: tsch integers are 64-bit");
    }
    return Value::integer(static_cast<int64_t>(t));
  }
  Value method;
  if (interp.try_get_attr(v, intern("__int__"), method)) return interp.call(method, std::vector<Value>{});
  raise(ExcKind::TypeError, "int() argument must be a string or a number, not '" + Interpreter::type_name(v) + "'");
}

Value float_from(Interpreter& interp, const Value& v) {
  if (v.is_number()) return Value::real(v.as_float());
  if (auto* s = v.as<Str>()) {
    std::string text = strip(s->value);
    std::string lower;
    for (char c : text) lower += static_cast<char>(std::tolower(c));
    if (lower == "inf" || lower == "+inf" || lower == "infinity") return Value::real(INFINITY);
    if (lower == "-inf" || lower == "-infinity") return Value::real(-INFINITY);
    if (lower == "nan" || lower == "+nan" || lower == "-nan") return Value::real(NAN);
    char* end = nullptr;
    double d = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || lower.find("0x") != std::string::npos) {
      raise(ExcKind::ValueError, "could not convert string to float: " + interp.repr(v));
    }
    return Value::real(d);
  }
  Value method;
  if (interp.try_get_attr(v, intern("__float__"), method)) return interp.call(method, std::vector<Value>{});
  raise(ExcKind::TypeError, "float() argument must be a string or a number, not '" + Interpreter::type_name(v) + "'");
}

BuiltinTypes* create() {
  auto* t = new BuiltinTypes();
  auto make = [](const char* name, TypeRef base = nullptr) {
    std::vector<TypeRef> bases;
    if (base) bases.push_back(base);
    return std::make_shared<TypeObject>(name, std::move(bases));
  };
  t->object = make("object");
  t->type = make("type", t->object);
  t->none = make("NoneType", t->object);
  t->int_ = make("int", t->object);
  t->bool_ = make("bool", t->int_);
  t->float_ = make("float", t->object);
  t->str = make("str", t->object);
  t->list = make("list", t->object);
  t->tuple = make("tuple", t->object);
  t->dict = make("dict", t->object);
  t->range = make("range", t->object);
  t->slice = make("slice", t->object);
  t->iterator = make("iterator", t->object);
  t->function = make("function", t->object);
  t->native_function = make("builtin_function_or_method", t->object);
  t->bound_method = make("method", t->object);
  t->property = make("property", t->object);
  t->module = make("module", t->object);
  t->ellipsis = make("ellipsis", t->object);
  t->classmethod = make("classmethod", t->object);
  t->staticmethod = make("staticmethod", t->object);

  t->object->constructor = [](Interpreter& interp, TypeObject* cls, CallArgs& call) {
    bind(interp, cls, "", call);
    return Value(std::make_shared<Instance>(std::static_pointer_cast<TypeObject>(cls->shared_from_this())));
  };
  t->type->constructor = [](Interpreter& interp, TypeObject* cls, CallArgs& call) {
    Args a = bind(interp, cls, "object", call);
    return Value(a[0].type()->shared_from_this());
  };
  t->int_->constructor = [](Interpreter& interp, TypeObject* cls, CallArgs& call) {
    Args a = bind(interp, cls, "x=0, base=10", call);
    bool base_given = !a[1].is_int() || a[1].as_int() != 10;
    return int_from(interp, a[0], a.get_int(1), base_given);
  };
  t->bool_->constructor = [](Interpreter& interp, TypeObject* cls, CallArgs& call) {
    Args a = bind(interp, cls, "x=False", call);
    return Value::boolean(interp.truthy(a[0]));
  };
  t->float_->constructor = [](Interpreter& interp, TypeObject* cls, CallArgs& call) {
    Args a = bind(interp, cls, "x=0.0", call);
    return float_from(interp, a[0]);
  };
  t->str->constructor = [](Interpreter& interp, TypeObject* cls, CallArgs& call) {
    Args a = bind(interp, cls, "object=\"\"", call);
    return make_str(interp.str(a[0]));
  };
  t->list->constructor = [](Interpreter& interp, TypeObject* cls, CallArgs& call) {
    Args a = bind(interp, cls, "iterable=None", call);
    if (a[0].is_none() && call.positional.empty()) return make_list();
    return make_list(interp.to_vector(a[0]));
  };
  t->tuple->constructor = [](Interpreter& interp, TypeObject* cls, CallArgs& call) {
    Args a = bind(interp, cls, "iterable=None", call);
    if (a[0].is_none() && call.positional.empty()) return make_tuple();
    return make_tuple(interp.to_vector(a[0]));
  };
  t->dict->constructor = [](Interpreter& interp, TypeObject* cls, CallArgs& call) {
    Args a = bind(interp, cls, "iterable=None, **kwargs", call);
    auto d = std::make_shared<Dict>();
    if (auto* src = a[0].as<Dict>()) {
      src->for_each([&](const Value& k, const Value& v) { d->set(interp, k, v); });
    } else if (!a[0].is_none()) {
      interp.for_each(a[0], [&](const Value& item) {
        std::vector<Value> pair = interp.to_vector(item);
        if (pair.size() != 2) {
          raise(ExcKind::ValueError,
                "dictionary update sequence element has length " + std::to_string(pair.size()) + "; 2 is required");
        }
        d->set(interp, pair[0], pair[1]);
        return true;
      });
    }
    for (auto& [k, v] : a.kwargs()) d->set(interp, make_str(symbol_name(k)), v);
    return Value(d);
  };
  t->range->constructor = [](Interpreter& interp, TypeObject* cls, CallArgs& call) {
    Args a = bind(interp, cls, "start, stop=None, step=1", call);
    for (size_t i = 0; i < 3; ++i) {
      if (!a[i].is_none() && !a[i].is_integral()) {
        raise(ExcKind::TypeError, "'" + Interpreter::type_name(a[i]) + "' object cannot be interpreted as an integer");
      }
    }
    int64_t start = 0, stop = 0;
    if (a[1].is_none()) {
      stop = a[0].as_int();
    } else {
      start = a[0].as_int();
      stop = a[1].as_int();
    }
    int64_t step = a[2].as_int();
    if (step == 0) raise(ExcKind::ValueError, "range() arg 3 must not be zero");
    return Value(std::make_shared<Range>(start, stop, step));
  };
  t->slice->constructor = [](Interpreter& interp, TypeObject* cls, CallArgs& call) {
    Args a = bind(interp, cls, "start, stop=None, step=None", call);
    auto s = std::make_shared<SliceObject>();
    if (call.positional.size() <= 1) {
      s->stop = a[0];
    } else {
      s->start = a[0];
      s->stop = a[1];
      s->step = a[2];
    }
    return Value(s);
  };

  // classmethod(f) / staticmethod(f): Python checks nothing until the wrapper is used.
  t->classmethod->constructor = [](Interpreter& interp, TypeObject* cls, CallArgs& call) {
    Args a = bind(interp, cls, "function", call);
    return Value(std::make_shared<ClassMethod>(a[0]));
  };
  t->staticmethod->constructor = [](Interpreter& interp, TypeObject* cls, CallArgs& call) {
    Args a = bind(interp, cls, "function", call);
    return Value(std::make_shared<StaticMethod>(a[0]));
  };
  auto wrapped = [](const Value& v) {
    return v.as<ClassMethod>() ? v.as<ClassMethod>()->func : v.as<StaticMethod>()->func;
  };
  for (const TypeRef& type : {t->classmethod, t->staticmethod}) {
    type->def_property("__func__", [wrapped](Interpreter&, const Value& self) { return wrapped(self); });
    type->def_property("__wrapped__", [wrapped](Interpreter&, const Value& self) { return wrapped(self); });
  }

  install_str_methods(*t->str);
  install_list_methods(*t->list);
  install_tuple_methods(*t->tuple);
  install_dict_methods(*t->dict);
  install_number_methods(*t->int_, *t->float_);
  return t;
}

}  // namespace

const BuiltinTypes& builtin_types() {
  static const BuiltinTypes* types = create();  // never destroyed: used during teardown
  return *types;
}

}  // namespace tsch::script
