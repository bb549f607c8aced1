// Generic operations on values: calls, attributes and str/repr (items and iteration in
// interpreter_items.cc; operators, comparison and hashing in operators.cc). Built-in types take fast paths; everything
// else goes through the type's dunder methods, so native types of later layers plug in by defining them.
#include "script/interpreter.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <functional>

#include "script/dispatch.h"
#include "script/format.h"
#include "script/modules.h"
#include "script/numbers.h"
#include "script/sequence.h"
#include "script/sets.h"
#include "script/types.h"
#include "support/checked_size.h"
#include "support/error.h"
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

std::string str_repr(const std::string& s) {
  bool has_single = s.find('\'') != std::string::npos;
  bool has_double = s.find('"') != std::string::npos;
  char quote = has_single && !has_double ? '"' : '\'';
  std::string out(1, quote);
  for (unsigned char c : s) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
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
  if (auto* sm = callee.as<StaticMethod>()) return call(sm->func, std::move(args));  // callable since Python 3.10
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
        if (!result.is_none())
          raise(ExcKind::TypeError, "__init__() should return None, not '" + type_name(result) + "'");
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

namespace {
// A module's attribute without its __getattr__: a global, __name__, a native module's hook.
bool module_own_attr(Interpreter& interp, Module& module, Symbol name, Value& out) {
  static const Symbol kName = intern("__name__");
  if (Value* v = module.globals->find(name)) {
    out = *v;
    return true;
  }
  if (name == kName) {
    out = make_str(module.name);
    return true;
  }
  return module.get_attr_hook(interp, name, out);
}
}  // namespace

bool Interpreter::try_get_attr(const Value& obj, Symbol name, Value& out) {
  static const Symbol kName = intern("__name__");
  static const Symbol kClass = intern("__class__");
  static const Symbol kDoc = intern("__doc__");
  static const Symbol kDict = intern("__dict__");
  static const Symbol kGetattr = intern("__getattr__");
  if (auto* module = obj.as<Module>()) {
    if (module_own_attr(*this, *module, name, out)) return true;
    // PEP 562: a module's own __getattr__ answers names it lacks; its AttributeError means
    // "no such attribute" to hasattr and `from m import x`.
    if (Value* found = module->globals->find(kGetattr)) {
      Value hook = *found;  // the call may change the module's globals
      try {
        out = call(hook, {make_str(symbol_name(name))});
        return true;
      } catch (ScriptError& e) {
        if (!e.exception.type()->is_subtype_of(exception_type(ExcKind::AttributeError))) throw;
        return false;
      }
    }
    return false;
  }
  if (name == kClass) {
    out = Value(obj.type()->shared_from_this());
    return true;
  }
  if (auto* cls = obj.as<TypeObject>()) {
    if (Value* v = cls->lookup(name)) {
      // Through the class: a classmethod binds the class it was looked up through (a subclass
      // gets itself), a staticmethod nothing, a plain function stays unbound.
      if (auto* cm = v->as<ClassMethod>()) {
        out = Value(std::make_shared<BoundMethod>(obj, cm->func));
      } else if (auto* sm = v->as<StaticMethod>()) {
        out = sm->func;
      } else {
        out = *v;
      }
      return true;
    }
    if (name == kName) {
      out = make_str(cls->name());
      return true;
    }
    // __module__ of a native class: the module it is shown under, "builtins" for Python's own.
    static const Symbol kModule = intern("__module__");
    if (name == kModule && cls->is_builtin) {
      std::string qualified = cls->qualified_name();
      size_t dot = qualified.rfind('.');
      out = make_str(dot == std::string::npos ? "builtins" : qualified.substr(0, dot));
      return true;
    }
    if (name == kDict && !cls->is_builtin) {
      // A copy of what the class body defined (Python's is a read-only view that also holds
      // __module__, __qualname__ and __doc__).
      auto d = std::make_shared<Dict>();
      for (const auto& [k, v] : cls->dict().values()) d->set(*this, make_str(symbol_name(k)), v);
      out = Value(d);
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
    if (name == kDoc) {  // the docstring: a string literal as the body's first statement
      out = Value();
      if (fn->def && !fn->def->body.empty() && fn->def->body[0]->kind == ast::StmtKind::Expr) {
        const auto& value = static_cast<const ast::ExprStmt&>(*fn->def->body[0]).value;
        if (value->kind == ast::ExprKind::Constant &&
            static_cast<const ast::Constant&>(*value).type == ast::Constant::Type::Str) {
          out = make_str(static_cast<const ast::Constant&>(*value).str_value);
        }
      }
      return true;
    }
  }
  if (auto* method = obj.as<BoundMethod>()) {
    // As CPython's bound methods: the function's name and documentation, and both halves.
    static const Symbol kSelf = intern("__self__"), kFunc = intern("__func__");
    if (name == kSelf || name == kFunc) {
      out = name == kSelf ? method->self : method->func;
      return true;
    }
    if (name == kName || name == kDoc) return try_get_attr(method->func, name, out);
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
    } else if (auto* cm = v->as<ClassMethod>()) {
      out = Value(std::make_shared<BoundMethod>(Value(obj.type()->shared_from_this()), cm->func));
    } else if (auto* sm = v->as<StaticMethod>()) {
      out = sm->func;
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
  if (auto* module = obj.as<Module>()) {
    if (module_own_attr(*this, *module, name, out)) return out;
    // PEP 562: the module's __getattr__ answers, or raises its own error (called once).
    if (Value* found = module->globals->find(intern("__getattr__"))) {
      Value hook = *found;  // the call may change the module's globals
      return call(hook, {make_str(symbol_name(name))});
    }
    if (const std::string* gap = ModuleLoader::not_supported(module->name + "." + symbol_name(name)))
      raise(ExcKind::AttributeError, *gap);
    raise_attribute_error(fmt::format("module '{}' has no attribute '{}'", module->name, symbol_name(name)), obj,
                          symbol_name(name));
  }
  if (try_get_attr(obj, name, out)) return out;
  if (auto* cls = obj.as<TypeObject>()) {
    raise_attribute_error(fmt::format("type object '{}' has no attribute '{}'", cls->name(), symbol_name(name)), obj,
                          symbol_name(name));
  }
  raise_attribute_error(fmt::format("'{}' object has no attribute '{}'", type_name(obj), symbol_name(name)), obj,
                        symbol_name(name));
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
  raise(ExcKind::AttributeError,
        fmt::format("'{}' object attribute '{}' is read-only", type_name(obj), symbol_name(name)));
}

// ---------------------------------------------------------------------------- str / repr

bool Interpreter::repr_enter(const Value& v) {
  for (const auto& frame : repr_stack_) {
    if (!frame.empty() && frame[0].is(v)) return false;
  }
  // As CPython: containers nested deeper than the recursion limit are not printed (and the
  // scan above stays bounded).
  if (repr_stack_.size() >= static_cast<size_t>(kMaxDepth))
    raise(ExcKind::RecursionError, "maximum recursion depth exceeded while getting the repr of an object");
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
  if ((v.is_object() || v.is_numpy_scalar()) && type_method(v, "__str__", method)) {
    Value r = call_method(*this, v, method, {});
    if (!r.as<Str>()) raise(ExcKind::TypeError, "__str__ returned non-string (type " + type_name(r) + ")");
    return r.as<Str>()->value;
  }
  return repr(v);
}

std::string Interpreter::repr(const Value& v) {
  if (v.is_numpy_scalar()) {
    Value method;
    if (type_method(v, "__repr__", method)) return str(call_method(*this, v, method, {}));
  }
  switch (v.tag()) {
    case Value::Tag::None:
      return "None";
    case Value::Tag::Bool:
      return v.as_bool() ? "True" : "False";
    case Value::Tag::Int:
      return std::to_string(v.as_int());
    case Value::Tag::Float:
      return float_repr(v.as_float());
    case Value::Tag::Object:
      break;
  }
  if (auto* s = v.as<Str>()) return str_repr(s->value);
  auto join = [&](const std::vector<Value>& items, const char* open, const char* close, bool tuple) {
    if (!repr_enter(v)) return std::string(open) + "..." + close;
    std::string out = open;
    try {
      for (size_t i = 0; i < items.size(); ++i) {
        if (i) out += ", ";
        out += repr(items[i]);
      }
    } catch (...) {
      repr_leave();  // an item's repr raised: this container is no longer being printed
      throw;
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
    try {
      d->for_each([&](const Value& k, const Value& val) {
        if (!first) out += ", ";
        first = false;
        out += repr(k) + ": " + repr(val);
      });
    } catch (...) {
      repr_leave();
      throw;
    }
    repr_leave();
    return out + "}";
  }
  if (v.as<Set>()) return set_repr(*this, v);
  if (auto* r = v.as<Range>()) {
    if (r->step == 1) return fmt::format("range({}, {})", r->start, r->stop);
    return fmt::format("range({}, {}, {})", r->start, r->stop, r->step);
  }
  if (auto* s = v.as<SliceObject>())
    return fmt::format("slice({}, {}, {})", repr(s->start), repr(s->stop), repr(s->step));
  if (auto* cls = v.as<TypeObject>())
    return "<class '" + (cls->is_builtin || cls->is_exception ? cls->qualified_name() : "__main__." + cls->name()) +
           "'>";
  if (auto* fn = v.as<Function>()) return "<function " + fn->qualname + ">";
  if (auto* native = v.as<NativeFunction>()) return "<built-in function " + native->name + ">";
  if (auto* bound = v.as<BoundMethod>()) {
    std::string name = bound->func.as<Function>()         ? bound->func.as<Function>()->qualname
                       : bound->func.as<NativeFunction>() ? bound->func.as<NativeFunction>()->name
                                                          : "?";
    return "<bound method " + name + " of " + repr(bound->self) + ">";
  }
  if (auto* cm = v.as<ClassMethod>()) return "<classmethod(" + repr(cm->func) + ")>";
  if (auto* sm = v.as<StaticMethod>()) return "<staticmethod(" + repr(sm->func) + ")>";
  if (auto* module = v.as<Module>()) {
    return module->file.empty() ? "<module '" + module->name + "' (built-in)>"
                                : "<module '" + module->name + "' from '" + module->file + "'>";
  }
  if (auto* it = v.as<Iterator>()) return std::string("<") + it->kind() + " object>";
  if (v.type()->is_exception) {
    Value* args = v.as<Instance>()->attrs().find(intern("args"));
    std::string inner = args && args->as<Tuple>() ? repr(*args) : "()";
    if (args && args->as<Tuple>() && args->as<Tuple>()->items.size() == 1)
      inner = "(" + repr(args->as<Tuple>()->items[0]) + ")";
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

bool Interpreter::is_callable(const Value& v) {
  return v.as<Function>() || v.as<NativeFunction>() || v.as<BoundMethod>() || v.as<TypeObject>() ||
         v.as<StaticMethod>() || (v.is_object() && v.type()->lookup(intern("__call__")));
}

}  // namespace tsch::script
