// The script value model: a Value is None, a bool, an int64, a double, or a reference to a
// heap Object (strings, containers, functions, modules, and later IR and schedules).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "support/symbol.h"

namespace tsch::script {

class Object;
class TypeObject;
class Interpreter;
using ObjectRef = std::shared_ptr<Object>;

class Value {
 public:
  enum class Tag : uint8_t { None, Bool, Int, Float, Object };

  Value() : tag_(Tag::None), numpy_dtype_(0), i_(0) {}
  static Value boolean(bool b) {
    Value v;
    v.tag_ = Tag::Bool;
    v.b_ = b;
    return v;
  }
  static Value integer(int64_t i) {
    Value v;
    v.tag_ = Tag::Int;
    v.i_ = i;
    return v;
  }
  static Value real(double f) {
    Value v;
    v.tag_ = Tag::Float;
    v.f_ = f;
    return v;
  }
  Value(ObjectRef obj) : tag_(obj ? Tag::Object : Tag::None), numpy_dtype_(0), i_(0), obj_(std::move(obj)) {}
  template <typename T>
  Value(std::shared_ptr<T> obj) : Value(ObjectRef(std::move(obj))) {}

  Tag tag() const { return tag_; }
  bool is_none() const { return tag_ == Tag::None; }
  bool is_bool() const { return tag_ == Tag::Bool; }
  bool is_int() const { return tag_ == Tag::Int; }
  // bool counts as an int, as in Python.
  bool is_integral() const { return tag_ == Tag::Int || tag_ == Tag::Bool; }
  bool is_float() const { return tag_ == Tag::Float; }
  bool is_number() const { return tag_ == Tag::Int || tag_ == Tag::Bool || tag_ == Tag::Float; }
  bool is_object() const { return tag_ == Tag::Object; }

  bool as_bool() const { return b_; }
  int64_t as_int() const { return tag_ == Tag::Bool ? (b_ ? 1 : 0) : i_; }
  double as_float() const { return tag_ == Tag::Float ? f_ : static_cast<double>(as_int()); }
  // A number may carry a NumPy scalar dtype (np.float32(0.1) is a Float holding float32's
  // value, marked float32): every consumer of numbers still reads a number, while type(),
  // printing and the operators ask for NumPy's behaviour (bindings/numpy_scalar.h owns what
  // the codes mean). 0 is a plain Python number. The code lives in the tag's padding.
  uint8_t numpy_dtype() const { return numpy_dtype_; }
  bool is_numpy_scalar() const { return numpy_dtype_ != 0; }
  static Value numpy_scalar(Value number, uint8_t code) {
    number.numpy_dtype_ = code;
    return number;
  }
  // A number without its NumPy dtype (what float()/int() of a NumPy scalar give).
  Value plain() const {
    Value v = *this;
    v.numpy_dtype_ = 0;
    return v;
  }

  Object* object() const { return obj_.get(); }
  const ObjectRef& object_ref() const { return obj_; }

  // The object as T when it is one (checked with dynamic_cast), else null.
  template <typename T>
  T* as() const {
    return tag_ == Tag::Object ? dynamic_cast<T*>(obj_.get()) : nullptr;
  }
  template <typename T>
  std::shared_ptr<T> as_ref() const {
    return tag_ == Tag::Object ? std::dynamic_pointer_cast<T>(obj_) : nullptr;
  }

  // The script-level type of this value.
  TypeObject* type() const;
  // Identity (`is`).
  bool is(const Value& other) const;

 private:
  Tag tag_;
  uint8_t numpy_dtype_;
  union {
    bool b_;
    int64_t i_;
    double f_;
  };
  ObjectRef obj_;
};

// NumPy's dtype tag must not grow a Value: it sits in the padding after the tag.
static_assert(sizeof(Value) == 2 * sizeof(int64_t) + sizeof(ObjectRef));

// Base of every heap value.
class Object : public std::enable_shared_from_this<Object> {
 public:
  virtual ~Object() = default;
  virtual TypeObject* type() const = 0;
  // Attributes computed per object (beyond its type's methods and properties), for native
  // objects such as modules of IR functions. Return false when there is no such attribute.
  virtual bool get_attr_hook(Interpreter& interp, Symbol name, Value& out) { return false; }
  virtual bool set_attr_hook(Interpreter& interp, Symbol name, const Value& value) { return false; }
  // Script-visible repr; empty means "use the generic form".
  virtual std::string repr_hook(Interpreter& interp) { return {}; }
};

// A name -> value table: module globals, function locals, class and instance attributes.
// Iteration follows insertion order (class bodies, `dir`, module listings depend on it).
class Namespace {
 public:
  Value* find(Symbol name) {
    auto it = index_.find(name);
    return it == index_.end() ? nullptr : &entries_[it->second].second;
  }
  void set(Symbol name, Value value) {
    auto it = index_.find(name);
    if (it != index_.end()) {
      entries_[it->second].second = std::move(value);
      return;
    }
    index_.emplace(name, entries_.size());
    entries_.emplace_back(name, std::move(value));
  }
  bool erase(Symbol name) {
    auto it = index_.find(name);
    if (it == index_.end()) return false;
    size_t pos = it->second;
    index_.erase(it);
    entries_.erase(entries_.begin() + static_cast<long>(pos));
    for (auto& [sym, p] : index_) {
      if (p > pos) --p;
    }
    return true;
  }
  // Entries in insertion order.
  const std::vector<std::pair<Symbol, Value>>& values() const { return entries_; }

 private:
  std::vector<std::pair<Symbol, Value>> entries_;
  std::unordered_map<Symbol, size_t> index_;
};
using NamespaceRef = std::shared_ptr<Namespace>;

}  // namespace tsch::script
