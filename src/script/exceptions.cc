#include "script/exceptions.h"

#include <array>
#include <filesystem>

#include "script/interpreter.h"
#include "script/modules.h"
#include "script/suggestions.h"
#include "script/types.h"

namespace tsch::script {
namespace {

struct ExceptionTable {
  std::array<TypeRef, static_cast<size_t>(ExcKind::Count)> types;

  ExceptionTable() {
    auto make = [&](ExcKind kind, const char* name, ExcKind base) {
      std::vector<TypeRef> bases;
      if (kind != ExcKind::BaseException) bases.push_back(types[static_cast<size_t>(base)]);
      auto t = std::make_shared<TypeObject>(name, std::move(bases));
      t->is_exception = true;
      types[static_cast<size_t>(kind)] = t;
    };
    using K = ExcKind;
    make(K::BaseException, "BaseException", K::BaseException);
    make(K::Exception, "Exception", K::BaseException);
    make(K::KeyboardInterrupt, "KeyboardInterrupt", K::BaseException);
    make(K::SystemExit, "SystemExit", K::BaseException);
    make(K::ArithmeticError, "ArithmeticError", K::Exception);
    make(K::LookupError, "LookupError", K::Exception);
    make(K::ValueError, "ValueError", K::Exception);
    make(K::UnicodeError, "UnicodeError", K::ValueError);
    make(K::TypeError, "TypeError", K::Exception);
    make(K::KeyError, "KeyError", K::LookupError);
    make(K::IndexError, "IndexError", K::LookupError);
    make(K::AssertionError, "AssertionError", K::Exception);
    make(K::RuntimeError, "RuntimeError", K::Exception);
    make(K::RecursionError, "RecursionError", K::RuntimeError);
    make(K::NotImplementedError, "NotImplementedError", K::RuntimeError);
    make(K::ZeroDivisionError, "ZeroDivisionError", K::ArithmeticError);
    make(K::OverflowError, "OverflowError", K::ArithmeticError);
    make(K::NameError, "NameError", K::Exception);
    make(K::UnboundLocalError, "UnboundLocalError", K::NameError);
    make(K::AttributeError, "AttributeError", K::Exception);
    make(K::ImportError, "ImportError", K::Exception);
    make(K::ModuleNotFoundError, "ModuleNotFoundError", K::ImportError);
    make(K::StopIteration, "StopIteration", K::Exception);
    make(K::MemoryError, "MemoryError", K::Exception);
    make(K::OSError, "OSError", K::Exception);
    make(K::FileNotFoundError, "FileNotFoundError", K::OSError);
  }
};

const ExceptionTable& table() {
  static const ExceptionTable* t = new ExceptionTable();
  return *t;
}

}  // namespace

TypeObject* exception_type(ExcKind kind) { return table().types[static_cast<size_t>(kind)].get(); }
TypeRef exception_type_ref(ExcKind kind) { return table().types[static_cast<size_t>(kind)]; }

Value make_exception(TypeObject* cls, std::vector<Value> args) {
  TypeRef ref = std::static_pointer_cast<TypeObject>(cls->shared_from_this());
  auto inst = std::make_shared<Instance>(ref);
  inst->attrs().set(intern("args"), make_tuple(std::move(args)));
  return Value(inst);
}

Value make_exception(ExcKind kind, const std::string& message) {
  return make_exception(exception_type(kind), {make_str(message)});
}

void raise(ExcKind kind, const std::string& message) { throw ScriptError(make_exception(kind, message)); }

void raise_key_error(const Value& key) { throw ScriptError(make_exception(exception_type(ExcKind::KeyError), {key})); }

void raise_at(ExcKind kind, const std::string& message, SourceLoc loc) {
  ScriptError e(make_exception(kind, message));
  e.pending = loc;
  throw e;
}

void raise_type_error(const std::string& message) { raise(ExcKind::TypeError, message); }

namespace {

// The text a NameError's report adds (CPython's traceback module computes it when printing).
const Symbol& suggestion_attr() {
  static const Symbol s = intern("_tsch_suggestion");
  return s;
}

[[noreturn]] void throw_at(Value exc, const SourceLoc* loc) {
  ScriptError e(std::move(exc));
  if (loc) e.pending = *loc;
  throw e;
}

bool names_a_module(const std::string& name) {
  if (ModuleLoader::has_builtin(name)) return true;
  std::string stdlib = ModuleLoader::stdlib_dir();
  if (stdlib.empty()) return false;
  std::error_code ec;
  return std::filesystem::exists(stdlib + "/" + name + ".tsch", ec) ||
         std::filesystem::exists(stdlib + "/" + name + "/__init__.tsch", ec);
}

}  // namespace

void raise_name_error(const std::string& name, const std::vector<std::string>& candidates, bool self_has_it,
                      const SourceLoc* loc) {
  Value exc = make_exception(ExcKind::NameError, "name '" + name + "' is not defined");
  auto* inst = exc.as<Instance>();
  inst->attrs().set(intern("name"), make_str(name));
  std::string best = self_has_it ? "self." + name : closest_name(name, candidates);
  std::string suffix = best.empty() ? "" : ". Did you mean: '" + best + "'?";
  if (names_a_module(name)) {
    suffix += (best.empty() ? ". Did you forget to import '" : " Or did you forget to import '") + name + "'?";
  }
  if (!suffix.empty()) inst->attrs().set(suggestion_attr(), make_str(suffix));
  throw_at(std::move(exc), loc);
}

void raise_attribute_error(const std::string& message, const Value& obj, const std::string& name,
                           const SourceLoc* loc) {
  Value exc = make_exception(ExcKind::AttributeError, message);
  auto* inst = exc.as<Instance>();
  inst->attrs().set(intern("name"), make_str(name));
  inst->attrs().set(intern("obj"), obj);
  throw_at(std::move(exc), loc);
}

std::string exception_class_name(const Value& exc) { return exc.type()->name(); }

namespace {

std::string suggestion_of(const Value& exc) {
  auto* inst = exc.as<Instance>();
  if (!inst) return "";
  if (Value* text = inst->attrs().find(suggestion_attr())) return text->as<Str>() ? text->as<Str>()->value : "";
  Value* obj = inst->attrs().find(intern("obj"));
  Value* name = inst->attrs().find(intern("name"));
  if (obj && name && name->as<Str>() && exc.type()->is_subtype_of(exception_type(ExcKind::AttributeError))) {
    return attribute_suggestion(*obj, name->as<Str>()->value);
  }
  return "";
}

}  // namespace

std::string describe_exception(Interpreter& interp, const Value& exc) {
  std::string name = exception_class_name(exc);
  std::string text = interp.str(exc) + suggestion_of(exc);
  // TVM's rendered ScheduleError already starts with "ScheduleError: ": say it once.
  if (text.rfind(name + ": ", 0) == 0) return text;
  return text.empty() ? name : name + ": " + text;
}

ExcKind exception_kind_of(UserErrorKind kind) {
  switch (kind) {
    case UserErrorKind::ValueError:
      return ExcKind::ValueError;
    case UserErrorKind::TypeError:
      return ExcKind::TypeError;
    case UserErrorKind::IndexError:
      return ExcKind::IndexError;
    case UserErrorKind::KeyError:
      return ExcKind::KeyError;
    case UserErrorKind::AttributeError:
      return ExcKind::AttributeError;
    case UserErrorKind::NotImplementedError:
      return ExcKind::NotImplementedError;
    case UserErrorKind::RuntimeError:
      return ExcKind::RuntimeError;
  }
  return ExcKind::RuntimeError;
}

}  // namespace tsch::script
