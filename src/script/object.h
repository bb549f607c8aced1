// Heap object kinds of the script language: types, instances, strings, containers,
// functions, modules. Built-in operations on them live in the files named after each kind.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "script/signature.h"
#include "script/value.h"
#include "syntax/ast.h"

namespace tsch::script {

class Interpreter;

// A class: built-in (int, list, ValueError, later tvm types) or defined by a script.
class TypeObject : public Object {
 public:
  using Constructor = std::function<Value(Interpreter&, TypeObject* cls, CallArgs&)>;

  TypeObject(std::string name, std::vector<std::shared_ptr<TypeObject>> bases = {});
  TypeObject* type() const override;

  const std::string& name() const { return name_; }
  // Module-qualified name for repr, e.g. "tvm.tir.Schedule"; defaults to name().
  std::string qualified_name() const { return module_.empty() ? name_ : module_ + "." + name_; }
  void set_module(std::string module) { module_ = std::move(module); }
  const std::vector<std::shared_ptr<TypeObject>>& bases() const { return bases_; }
  // Method resolution order, self first.
  const std::vector<TypeObject*>& mro() const { return mro_; }
  bool is_subtype_of(const TypeObject* other) const;

  Namespace& dict() { return dict_; }
  // Looks `name` up along the MRO.
  Value* lookup(Symbol name);

  // Built-in types construct natively; script classes create an Instance and run __init__.
  Constructor constructor;
  bool is_builtin = true;
  // Instances of script classes derived from this type get this native base object kind.
  bool is_exception = false;
  // A built-in type whose __eq__/__hash__ define equality for `in`, `==` inside containers and
  // dict keys (as for script classes); other built-in types compare by identity there.
  bool hashes_by_value = false;

  // Registers a native method (first parameter is `self`).
  void def(const std::string& name, const std::string& signature, std::function<Value(Interpreter&, Args&)> fn,
           std::string doc = {});
  // Registers a read-only attribute computed from the object.
  void def_property(const std::string& name, std::function<Value(Interpreter&, const Value&)> getter,
                    std::string doc = {});

 private:
  std::string name_;
  std::string module_;
  std::vector<std::shared_ptr<TypeObject>> bases_;
  std::vector<TypeObject*> mro_;
  Namespace dict_;
};
using TypeRef = std::shared_ptr<TypeObject>;

// An instance of a script-defined class (also exception instances).
class Instance : public Object {
 public:
  explicit Instance(TypeRef cls) : cls_(std::move(cls)) {}
  TypeObject* type() const override { return cls_.get(); }
  const TypeRef& cls() const { return cls_; }
  Namespace& attrs() { return attrs_; }

 private:
  TypeRef cls_;
  Namespace attrs_;
};

class Str : public Object {
 public:
  explicit Str(std::string v) : value(std::move(v)) {}
  TypeObject* type() const override;
  std::string value;
};

class List : public Object {
 public:
  List() = default;
  explicit List(std::vector<Value> v) : items(std::move(v)) {}
  TypeObject* type() const override;
  std::vector<Value> items;
};

class Tuple : public Object {
 public:
  Tuple() = default;
  explicit Tuple(std::vector<Value> v) : items(std::move(v)) {}
  TypeObject* type() const override;
  std::vector<Value> items;
};

// Insertion-ordered hash map with Python key semantics (1 == 1.0 == True).
class Dict : public Object {
 public:
  TypeObject* type() const override;

  Value* find(Interpreter& interp, const Value& key);
  void set(Interpreter& interp, const Value& key, Value value);
  bool erase(Interpreter& interp, const Value& key);
  size_t size() const { return index_.size(); }
  void clear() {
    entries_.clear();
    index_.clear();
  }
  // Live entries in insertion order.
  std::vector<std::pair<Value, Value>> items() const;
  template <typename F>
  void for_each(F&& f) const {
    for (const auto& e : entries_) {
      if (e.live) f(e.key, e.value);
    }
  }

 private:
  struct Entry {
    Value key;
    Value value;
    bool live = true;
  };
  std::vector<Entry> entries_;
  std::unordered_multimap<size_t, size_t> index_;  // hash -> entry position
  std::optional<size_t> position(Interpreter& interp, const Value& key, size_t hash);
  void compact();
};

class Range : public Object {
 public:
  Range(int64_t start, int64_t stop, int64_t step) : start(start), stop(stop), step(step) {}
  TypeObject* type() const override;
  int64_t length() const;
  int64_t start, stop, step;
};

class SliceObject : public Object {
 public:
  TypeObject* type() const override;
  Value start, stop, step;
};

// A lazy iterator (range, list, map, zip, ...). next() returns false when exhausted.
class Iterator : public Object {
 public:
  TypeObject* type() const override;
  virtual bool next(Interpreter& interp, Value& out) = 0;
  // For repr: "list_iterator", "map", "zip", ...
  virtual const char* kind() const { return "iterator"; }
};

// An iterator driven by a C++ callable (map, filter, zip, enumerate, ...).
class NativeIterator : public Iterator {
 public:
  NativeIterator(const char* kind, std::function<bool(Interpreter&, Value&)> step)
      : kind_(kind), step_(std::move(step)) {}
  bool next(Interpreter& interp, Value& out) override { return step_(interp, out); }
  const char* kind() const override { return kind_; }

 private:
  const char* kind_;
  std::function<bool(Interpreter&, Value&)> step_;
};

// Function defined in a script (`def` or `lambda`).
class Function : public Object {
 public:
  TypeObject* type() const override;

  std::string name;
  std::string qualname;
  // Keeps the AST alive as long as the function.
  std::shared_ptr<const ast::Module> owner;
  const ast::FunctionDef* def = nullptr;  // null for lambdas
  const ast::Lambda* lambda = nullptr;
  const std::vector<ast::Param>* params = nullptr;
  std::vector<Value> defaults;  // one per parameter; unset (None + flag) when absent
  std::vector<bool> has_default;
  NamespaceRef globals;
  // Enclosing function scopes, innermost first (closures read them at call time).
  std::vector<NamespaceRef> enclosing;
  // Attributes set by decorators or scripts (`f.__doc__`, ...).
  Namespace attrs;
};

// A function implemented in C++, with a declared signature.
class NativeFunction : public Object {
 public:
  NativeFunction(std::string name, Signature sig, std::function<Value(Interpreter&, Args&)> fn, std::string doc = {})
      : name(std::move(name)), signature(std::move(sig)), impl(std::move(fn)), doc(std::move(doc)) {}
  TypeObject* type() const override;

  std::string name;
  Signature signature;
  std::function<Value(Interpreter&, Args&)> impl;
  std::string doc;
};

// `obj.method`: a function with its first argument bound.
class BoundMethod : public Object {
 public:
  BoundMethod(Value self, Value func) : self(std::move(self)), func(std::move(func)) {}
  TypeObject* type() const override;
  Value self;
  Value func;
};

// `@classmethod` / `@staticmethod`: a function kept in a class whose attribute lookup binds
// the class it is looked up through (classmethod) or nothing (staticmethod), not the instance.
class ClassMethod : public Object {
 public:
  explicit ClassMethod(Value f) : func(std::move(f)) {}
  TypeObject* type() const override;
  Value func;
};

class StaticMethod : public Object {
 public:
  explicit StaticMethod(Value f) : func(std::move(f)) {}
  TypeObject* type() const override;
  Value func;
};

// A computed attribute of native types.
class Property : public Object {
 public:
  Property(std::function<Value(Interpreter&, const Value&)> g, std::string doc)
      : getter(std::move(g)), doc(std::move(doc)) {}
  TypeObject* type() const override;
  std::function<Value(Interpreter&, const Value&)> getter;
  std::string doc;
};

class Module : public Object {
 public:
  explicit Module(std::string name) : name(std::move(name)), globals(std::make_shared<Namespace>()) {}
  TypeObject* type() const override;
  std::string name;
  std::string file;  // empty for built-in modules
  NamespaceRef globals;
};

// Shorthands for making values.
inline Value make_str(std::string s) { return Value(std::make_shared<Str>(std::move(s))); }
inline Value make_list(std::vector<Value> v = {}) { return Value(std::make_shared<List>(std::move(v))); }
inline Value make_tuple(std::vector<Value> v = {}) { return Value(std::make_shared<Tuple>(std::move(v))); }

// Registers `fn` under `name` in a namespace as a NativeFunction.
void def_function(Namespace& ns, const std::string& name, const std::string& signature,
                  std::function<Value(Interpreter&, Args&)> fn, std::string doc = {});

}  // namespace tsch::script
