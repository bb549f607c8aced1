// The built-in namespace: print, len, range, the built-in types and exceptions, ...
#include <fmt/format.h>

#include <cmath>
#include <cstdio>

#include "script/dispatch.h"
#include "script/exceptions.h"
#include "script/format.h"
#include "script/interpreter.h"
#include "script/numbers.h"
#include "script/sequence.h"
#include "script/sets.h"
#include "script/suggestions.h"
#include "script/types.h"

namespace tsch::script {

Value not_implemented_value();
Value ellipsis_value();

namespace {

Value min_max(Interpreter& interp, Args& a, bool want_max) {
  std::vector<Value> items;
  const char* name = want_max ? "max" : "min";
  if (a.varargs().size() == 1) {
    items = interp.to_vector(a.varargs()[0]);
  } else {
    items = a.varargs();
  }
  Value key, fallback;
  bool has_default = false;
  for (auto& [k, v] : a.kwargs()) {
    const std::string& kn = symbol_name(k);
    if (kn == "key")
      key = v;
    else if (kn == "default") {
      fallback = v;
      has_default = true;
    } else {
      raise(ExcKind::TypeError, fmt::format("{}() got an unexpected keyword argument '{}'", name, kn));
    }
  }
  if (a.varargs().empty()) raise(ExcKind::TypeError, fmt::format("{} expected at least 1 argument, got 0", name));
  if (items.empty()) {
    if (has_default) return fallback;
    raise(ExcKind::ValueError, fmt::format("{}() arg is an empty sequence", name));
  }
  Value best = items[0];
  Value best_key = key.is_none() ? best : interp.call(key, std::vector<Value>{best});
  for (size_t i = 1; i < items.size(); ++i) {
    Value k = key.is_none() ? items[i] : interp.call(key, std::vector<Value>{items[i]});
    if (want_max ? interp.less(best_key, k) : interp.less(k, best_key)) {
      best = items[i];
      best_key = k;
    }
  }
  return best;
}

bool isinstance_of(const Value& v, const Value& spec, bool& ok) {
  if (auto* cls = spec.as<TypeObject>()) {
    ok = true;
    return v.type()->is_subtype_of(cls);
  }
  if (auto* t = spec.as<Tuple>()) {
    for (const auto& item : t->items) {
      bool inner_ok = false;
      if (isinstance_of(v, item, inner_ok)) {
        ok = true;
        return true;
      }
      if (!inner_ok) {
        ok = false;
        return false;
      }
    }
    ok = true;
    return false;
  }
  ok = false;
  return false;
}

// sys.stdout / sys.stderr: objects with write() and flush().
class Stream : public Object {
 public:
  explicit Stream(FILE* f) : file(f) {}
  TypeObject* type() const override { return stream_type().get(); }
  static TypeRef& stream_type() {
    static TypeRef t = [] {
      auto type = std::make_shared<TypeObject>("TextIOWrapper");
      type->def("write", "self, s", [](Interpreter& interp, Args& a) {
        auto* self = a[0].as<Stream>();
        const std::string& text = a.get_str(1);
        if (self->file == stdout) {
          interp.write_stdout(text);
        } else {
          std::fflush(stdout);  // keep stdout and stderr in order
          std::fwrite(text.data(), 1, text.size(), self->file);
        }
        return Value::integer(static_cast<int64_t>(text.size()));
      });
      type->def("flush", "self", [](Interpreter&, Args& a) {
        std::fflush(a[0].as<Stream>()->file);
        return Value();
      });
      return type;
    }();
    return t;
  }
  FILE* file;
};

}  // namespace

Value make_stream(FILE* file) { return Value(std::make_shared<Stream>(file)); }

void install_builtins(Interpreter& interp, Namespace& ns) {  // function-length: table (one def per script name)
  const BuiltinTypes& t = builtin_types();
  for (const TypeRef& type : {t.object, t.type, t.int_, t.bool_, t.float_, t.str, t.list, t.tuple, t.dict, t.range,
                              t.slice, t.classmethod, t.staticmethod}) {
    ns.set(intern(type->name()), Value(type));
  }
  ns.set(intern("set"), Value(set_type()));
  ns.set(intern("frozenset"), Value(frozenset_type()));
  for (int k = 0; k < static_cast<int>(ExcKind::Count); ++k) {
    TypeRef e = exception_type_ref(static_cast<ExcKind>(k));
    ns.set(intern(e->name()), Value(e));
  }
  ns.set(intern("NotImplemented"), not_implemented_value());
  ns.set(intern("Ellipsis"), ellipsis_value());

  def_function(
      ns, "print", "*objects, sep=\" \", end=\"\n\", file=None, flush=False",
      [](Interpreter& interp, Args& a) {
        std::string sep = a[1].is_none() ? " " : a.get_str(1);
        std::string end = a[2].is_none() ? "\n" : a.get_str(2);
        std::string text;
        for (size_t i = 0; i < a.varargs().size(); ++i) {
          if (i) text += sep;
          text += interp.str(a.varargs()[i]);
        }
        text += end;
        if (!a[3].is_none()) {
          interp.call(interp.get_attr(a[3], intern("write")), std::vector<Value>{make_str(text)});
        } else {
          interp.write_stdout(text);
        }
        if (interp.truthy(a[4])) std::fflush(stdout);
        return Value();
      },
      "print(*objects, sep=' ', end='\\n', file=None, flush=False): write the objects' str() to stdout.");
  def_function(ns, "len", "obj", [](Interpreter& interp, Args& a) { return Value::integer(interp.len(a[0])); });
  def_function(ns, "repr", "obj", [](Interpreter& interp, Args& a) { return make_str(interp.repr(a[0])); });
  def_function(ns, "ascii", "obj", [](Interpreter& interp, Args& a) { return make_str(interp.repr(a[0])); });
  def_function(ns, "format", "value, format_spec=\"\"",
               [](Interpreter& interp, Args& a) { return make_str(format_value(interp, a[0], a.get_str(1))); });
  def_function(ns, "abs", "x", [](Interpreter& interp, Args& a) {
    if (a[0].is_integral() && !a[0].is_numpy_scalar()) {
      int64_t v = a[0].as_int();
      if (v == INT64_MIN) raise(ExcKind::OverflowError, "integer overflow: the result does not fit in 64 bits");
      return Value::integer(v < 0 ? -v : v);
    }
    if (a[0].is_float() && !a[0].is_numpy_scalar()) return Value::real(std::fabs(a[0].as_float()));
    Value method;
    if (interp.try_get_attr(a[0], intern("__abs__"), method)) return interp.call(method, std::vector<Value>{});
    raise(ExcKind::TypeError, "bad operand type for abs(): '" + Interpreter::type_name(a[0]) + "'");
  });
  def_function(ns, "round", "number, ndigits=None", [](Interpreter& interp, Args& a) {
    // NumPy's scalars round in their dtype (np.float32 stays np.float32 with ndigits).
    Value method;
    if (a[0].is_numpy_scalar() && type_method(a[0], "__round__", method))
      return call_method(interp, a[0], method, {a[1]});
    if (a[0].is_integral()) return Value::integer(a[0].as_int());
    double v = a.get_float(0);
    if (a[1].is_none()) {
      if (!std::isfinite(v)) raise(ExcKind::ValueError, "cannot convert float to integer");
      return Value::integer(static_cast<int64_t>(round_half_even(v, 0)));
    }
    int64_t digits = a.get_int(1);
    if (digits >= 0 && digits < 300 && std::isfinite(v)) {
      // printf rounds the exact binary value correctly, as Python's round() does.
      return Value::real(std::strtod(fmt::format("{:.{}f}", v, digits).c_str(), nullptr));
    }
    return Value::real(round_half_even(v, digits));
  });
  def_function(ns, "divmod", "a, b", [](Interpreter& interp, Args& a) {
    return make_tuple(
        {interp.binary_op(ast::BinOpKind::FloorDiv, a[0], a[1]), interp.binary_op(ast::BinOpKind::Mod, a[0], a[1])});
  });
  def_function(ns, "pow", "base, exp",
               [](Interpreter& interp, Args& a) { return interp.binary_op(ast::BinOpKind::Pow, a[0], a[1]); });
  def_function(ns, "min", "*args, **kwargs", [](Interpreter& interp, Args& a) { return min_max(interp, a, false); });
  def_function(ns, "max", "*args, **kwargs", [](Interpreter& interp, Args& a) { return min_max(interp, a, true); });
  def_function(ns, "sum", "iterable, start=0", [](Interpreter& interp, Args& a) {
    Value total = a[1];
    // Neumaier compensation keeps float sums accurate.
    double compensation = 0;
    bool float_mode = false;
    interp.for_each(a[0], [&](const Value& v) {
      // NumPy scalars add in their dtype, through their operators.
      if (total.is_float() && v.is_number() && (total.numpy_dtype() | v.numpy_dtype()) == 0) {
        double x = v.as_float(), s = total.as_float(), sum = s + x;
        compensation += std::fabs(s) >= std::fabs(x) ? (s - sum) + x : (x - sum) + s;
        total = Value::real(sum);
        float_mode = true;
      } else {
        total = interp.binary_op(ast::BinOpKind::Add, total, v);
      }
      return true;
    });
    if (float_mode && total.is_float()) return Value::real(total.as_float() + compensation);
    return total;
  });
  def_function(ns, "any", "iterable", [](Interpreter& interp, Args& a) {
    bool found = false;
    interp.for_each(a[0], [&](const Value& v) { return !(found = interp.truthy(v)); });
    return Value::boolean(found);
  });
  def_function(ns, "all", "iterable", [](Interpreter& interp, Args& a) {
    bool ok = true;
    interp.for_each(a[0], [&](const Value& v) { return (ok = interp.truthy(v)); });
    return Value::boolean(ok);
  });
  def_function(ns, "sorted", "iterable, *, key=None, reverse=False", [](Interpreter& interp, Args& a) {
    std::vector<Value> items = interp.to_vector(a[0]);
    sort_values(interp, items, a[1], interp.truthy(a[2]));
    return make_list(std::move(items));
  });
  def_function(ns, "reversed", "seq", [](Interpreter& interp, Args& a) {
    std::vector<Value> items = interp.to_vector(a[0]);
    std::reverse(items.begin(), items.end());
    auto pos = std::make_shared<size_t>(0);
    auto data = std::make_shared<std::vector<Value>>(std::move(items));
    return Value(std::make_shared<NativeIterator>("reversed", [pos, data](Interpreter&, Value& out) {
      if (*pos >= data->size()) return false;
      out = (*data)[(*pos)++];
      return true;
    }));
  });
  def_function(ns, "enumerate", "iterable, start=0", [](Interpreter& interp, Args& a) {
    auto it = interp.iter(a[0]);
    auto counter = std::make_shared<int64_t>(a.get_int(1));
    return Value(std::make_shared<NativeIterator>("enumerate", [it, counter](Interpreter& interp, Value& out) {
      Value item;
      if (!it->next(interp, item)) return false;
      out = make_tuple({Value::integer((*counter)++), item});
      return true;
    }));
  });
  def_function(ns, "zip", "*iterables", [](Interpreter& interp, Args& a) {
    auto its = std::make_shared<std::vector<std::shared_ptr<Iterator>>>();
    for (const auto& v : a.varargs()) its->push_back(interp.iter(v));
    return Value(std::make_shared<NativeIterator>("zip", [its](Interpreter& interp, Value& out) {
      if (its->empty()) return false;
      std::vector<Value> row;
      for (auto& it : *its) {
        Value item;
        if (!it->next(interp, item)) return false;
        row.push_back(item);
      }
      out = make_tuple(std::move(row));
      return true;
    }));
  });
  def_function(ns, "map", "function, *iterables", [](Interpreter& interp, Args& a) {
    if (a.varargs().empty()) raise(ExcKind::TypeError, "map() must have at least two arguments.");
    auto its = std::make_shared<std::vector<std::shared_ptr<Iterator>>>();
    for (const auto& v : a.varargs()) its->push_back(interp.iter(v));
    Value fn = a[0];
    return Value(std::make_shared<NativeIterator>("map", [its, fn](Interpreter& interp, Value& out) {
      std::vector<Value> args;
      for (auto& it : *its) {
        Value item;
        if (!it->next(interp, item)) return false;
        args.push_back(item);
      }
      out = interp.call(fn, std::move(args));
      return true;
    }));
  });
  def_function(ns, "filter", "function, iterable", [](Interpreter& interp, Args& a) {
    auto it = interp.iter(a[1]);
    Value fn = a[0];
    return Value(std::make_shared<NativeIterator>("filter", [it, fn](Interpreter& interp, Value& out) {
      Value item;
      while (it->next(interp, item)) {
        bool keep = fn.is_none() ? interp.truthy(item) : interp.truthy(interp.call(fn, std::vector<Value>{item}));
        if (keep) {
          out = item;
          return true;
        }
      }
      return false;
    }));
  });
  def_function(ns, "iter", "obj", [](Interpreter& interp, Args& a) { return Value(interp.iter(a[0])); });
  def_function(ns, "next", "iterator, *default", [](Interpreter& interp, Args& a) {
    auto* it = a[0].as<Iterator>();
    if (!it) raise(ExcKind::TypeError, "'" + Interpreter::type_name(a[0]) + "' object is not an iterator");
    Value out;
    if (it->next(interp, out)) return out;
    if (!a.varargs().empty()) return a.varargs()[0];
    throw ScriptError(make_exception(exception_type(ExcKind::StopIteration), {}));
  });
  def_function(ns, "isinstance", "obj, class_or_tuple", [](Interpreter&, Args& a) {
    bool ok = false;
    bool result = isinstance_of(a[0], a[1], ok);
    if (!ok) a.type_error(1, "a type or tuple of types");
    return Value::boolean(result);
  });
  def_function(ns, "issubclass", "cls, class_or_tuple", [](Interpreter&, Args& a) {
    auto* cls = a.get<TypeObject>(0, "a class");
    if (auto* base = a[1].as<TypeObject>()) return Value::boolean(cls->is_subtype_of(base));
    if (auto* tuple = a[1].as<Tuple>()) {
      for (const auto& item : tuple->items) {
        if (auto* base = item.as<TypeObject>(); base && cls->is_subtype_of(base)) return Value::boolean(true);
      }
      return Value::boolean(false);
    }
    a.type_error(1, "a class or tuple of classes");
  });
  def_function(ns, "hasattr", "obj, name", [](Interpreter& interp, Args& a) {
    Value out;
    return Value::boolean(interp.try_get_attr(a[0], intern(a.get_str(1)), out));
  });
  def_function(ns, "getattr", "obj, name, *default", [](Interpreter& interp, Args& a) {
    Value out;
    if (interp.try_get_attr(a[0], intern(a.get_str(1)), out)) return out;
    if (!a.varargs().empty()) return a.varargs()[0];
    return interp.get_attr(a[0], intern(a.get_str(1)));
  });
  def_function(ns, "setattr", "obj, name, value", [](Interpreter& interp, Args& a) {
    interp.set_attr(a[0], intern(a.get_str(1)), a[2]);
    return Value();
  });
  def_function(ns, "callable", "obj",
               [](Interpreter& interp, Args& a) { return Value::boolean(Interpreter::is_callable(a[0])); });
  def_function(ns, "hash", "obj", [](Interpreter& interp, Args& a) {
    return Value::integer(static_cast<int64_t>(interp.hash(a[0])));  // CPython's value, sign included
  });
  def_function(ns, "id", "obj", [](Interpreter& interp, Args& a) {
    if (a[0].is_object()) return Value::integer(static_cast<int64_t>(reinterpret_cast<uintptr_t>(a[0].object())));
    return Value::integer(static_cast<int64_t>(interp.hash(a[0]) & 0x7fffffffffffffffULL));
  });
  def_function(ns, "chr", "i", [](Interpreter&, Args& a) {
    int64_t cp = a.get_int(0);
    if (cp < 0 || cp > 0x10FFFF) raise(ExcKind::ValueError, "chr() arg not in range(0x110000)");
    std::string out;
    uint32_t c = static_cast<uint32_t>(cp);
    if (c < 0x80)
      out += static_cast<char>(c);
    else if (c < 0x800) {
      out += static_cast<char>(0xC0 | (c >> 6));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
      out += static_cast<char>(0xE0 | (c >> 12));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (c >> 18));
      out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    }
    return make_str(out);
  });
  def_function(ns, "ord", "c", [](Interpreter& interp, Args& a) {
    const std::string& s = a.get_str(0);
    if (interp.len(a[0]) != 1) {
      raise(ExcKind::TypeError,
            fmt::format("ord() expected a character, but string of length {} found", interp.len(a[0])));
    }
    auto b = [&](size_t i) { return static_cast<uint32_t>(static_cast<unsigned char>(s[i])); };
    uint32_t c = b(0);
    if (c >= 0xF0)
      c = ((c & 0x07) << 18) | ((b(1) & 0x3F) << 12) | ((b(2) & 0x3F) << 6) | (b(3) & 0x3F);
    else if (c >= 0xE0)
      c = ((c & 0x0F) << 12) | ((b(1) & 0x3F) << 6) | (b(2) & 0x3F);
    else if (c >= 0xC0)
      c = ((c & 0x1F) << 6) | (b(1) & 0x3F);
    return Value::integer(c);
  });
  auto radix = [](const char* spec) {
    return [spec](Interpreter& interp, Args& a) {
      a.get_int(0);
      return make_str(format_value(interp, a[0], spec));
    };
  };
  def_function(ns, "hex", "x", radix("#x"));
  def_function(ns, "oct", "x", radix("#o"));
  def_function(ns, "bin", "x", radix("#b"));
  // help(x): x's documentation, as the REPL's `:help` prints a primitive's (pydoc's pager
  // and interactive help are not there).
  def_function(ns, "help", "request=None", [](Interpreter& interp, Args& a) {
    if (a[0].is_none()) {
      interp.write_stdout(
          "help(x) prints the documentation of x (help(sch.split), help(tvm.build)); in the REPL, :help lists the "
          "commands and :help split describes a schedule primitive.\n");
      return Value();
    }
    Value doc;
    if (interp.try_get_attr(a[0], intern("__doc__"), doc) && doc.as<Str>() && !doc.as<Str>()->value.empty()) {
      interp.write_stdout(doc.as<Str>()->value + "\n");
    } else {
      interp.write_stdout("No documentation found for " + interp.repr(a[0]) + "\n");
    }
    return Value();
  });
  def_function(ns, "dir", "obj", [](Interpreter&, Args& a) {
    std::vector<Value> out;
    for (auto& n : attribute_names(a[0])) out.push_back(make_str(n));
    return make_list(std::move(out));
  });
}

}  // namespace tsch::script
