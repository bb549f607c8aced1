#include "script/object.h"

#include <fmt/format.h>

#include <algorithm>

#include "script/exceptions.h"
#include "script/interpreter.h"
#include "script/types.h"

namespace tsch::script {

// ---------------------------------------------------------------- TypeObject

TypeObject::TypeObject(std::string name, std::vector<TypeRef> bases)
    : name_(std::move(name)), bases_(std::move(bases)) {
  // Depth-first, left to right, duplicates removed keeping the last occurrence: enough for
  // the single and simple multiple inheritance scripts use.
  std::vector<TypeObject*> order{this};
  for (const auto& base : bases_) {
    for (TypeObject* t : base->mro()) order.push_back(t);
  }
  for (size_t i = 0; i < order.size(); ++i) {
    bool later = std::find(order.begin() + static_cast<long>(i) + 1, order.end(), order[i]) != order.end();
    if (!later) mro_.push_back(order[i]);
  }
  for (const auto& base : bases_) {
    if (base->is_exception) is_exception = true;
  }
}

TypeObject* TypeObject::type() const { return builtin_types().type.get(); }

bool TypeObject::is_subtype_of(const TypeObject* other) const {
  return std::find(mro_.begin(), mro_.end(), other) != mro_.end();
}

Value* TypeObject::lookup(Symbol name) {
  for (TypeObject* t : mro_) {
    if (Value* v = t->dict_.find(name)) return v;
  }
  return nullptr;
}

void TypeObject::def(const std::string& name, const std::string& signature,
                     std::function<Value(Interpreter&, Args&)> fn, std::string doc) {
  // A method called through its class (`list.append(1, 2)`) gets whatever comes first: as
  // Python's method descriptors, refuse a `self` of another type before the method reads it.
  if (signature == "self" || signature.rfind("self,", 0) == 0) {
    fn = [owner = this, name, method = std::move(fn)](Interpreter& interp, Args& a) {
      if (!a[0].type()->is_subtype_of(owner)) {
        raise(ExcKind::TypeError, fmt::format("descriptor '{}' for '{}' objects doesn't apply to a '{}' object", name,
                                              owner->name(), a[0].type()->name()));
      }
      return method(interp, a);
    };
  }
  def_function(dict_, name, signature, std::move(fn), std::move(doc));
}

void TypeObject::def_property(const std::string& name, std::function<Value(Interpreter&, const Value&)> getter,
                              std::string doc) {
  dict_.set(intern(name), Value(std::make_shared<Property>(std::move(getter), std::move(doc))));
}

void def_function(Namespace& ns, const std::string& name, const std::string& signature,
                  std::function<Value(Interpreter&, Args&)> fn, std::string doc) {
  ns.set(intern(name),
         Value(std::make_shared<NativeFunction>(name, Signature::parse(signature), std::move(fn), std::move(doc))));
}

// ---------------------------------------------------------------- type() of each kind

TypeObject* Str::type() const { return builtin_types().str.get(); }
TypeObject* List::type() const { return builtin_types().list.get(); }
TypeObject* Tuple::type() const { return builtin_types().tuple.get(); }
TypeObject* Dict::type() const { return builtin_types().dict.get(); }
TypeObject* Range::type() const { return builtin_types().range.get(); }
TypeObject* SliceObject::type() const { return builtin_types().slice.get(); }
TypeObject* Iterator::type() const { return builtin_types().iterator.get(); }
TypeObject* Function::type() const { return builtin_types().function.get(); }
TypeObject* NativeFunction::type() const { return builtin_types().native_function.get(); }
TypeObject* BoundMethod::type() const { return builtin_types().bound_method.get(); }
TypeObject* Property::type() const { return builtin_types().property.get(); }
TypeObject* ClassMethod::type() const { return builtin_types().classmethod.get(); }
TypeObject* StaticMethod::type() const { return builtin_types().staticmethod.get(); }
TypeObject* Module::type() const { return builtin_types().module.get(); }

int64_t Range::length() const {
  if (step > 0 && start < stop) return (stop - start - 1) / step + 1;
  if (step < 0 && start > stop) return (start - stop - 1) / (-step) + 1;
  return 0;
}

// ---------------------------------------------------------------- Dict

std::optional<size_t> Dict::position(Interpreter& interp, const Value& key, size_t h) {
  auto range = index_.equal_range(h);
  for (auto it = range.first; it != range.second; ++it) {
    const Entry& e = entries_[it->second];
    if (e.key.is(key) || interp.equals(e.key, key)) return it->second;
  }
  return std::nullopt;
}

Value* Dict::find(Interpreter& interp, const Value& key) {
  auto pos = position(interp, key, interp.hash(key));
  return pos ? &entries_[*pos].value : nullptr;
}

void Dict::set(Interpreter& interp, const Value& key, Value value) {
  size_t h = interp.hash(key);
  if (auto pos = position(interp, key, h)) {
    entries_[*pos].value = std::move(value);
    return;
  }
  entries_.push_back(Entry{key, std::move(value), true});
  index_.emplace(h, entries_.size() - 1);
}

bool Dict::erase(Interpreter& interp, const Value& key) {
  size_t h = interp.hash(key);
  auto range = index_.equal_range(h);
  for (auto it = range.first; it != range.second; ++it) {
    Entry& e = entries_[it->second];
    if (e.key.is(key) || interp.equals(e.key, key)) {
      e.live = false;
      e.key = Value();
      e.value = Value();
      index_.erase(it);
      if (entries_.size() > 32 && index_.size() * 2 < entries_.size()) compact();
      return true;
    }
  }
  return false;
}

void Dict::compact() {
  std::vector<Entry> live;
  live.reserve(index_.size());
  std::unordered_multimap<size_t, size_t> new_index;
  // Rebuild the index by re-mapping old positions to new ones.
  std::vector<size_t> remap(entries_.size(), SIZE_MAX);
  for (size_t i = 0; i < entries_.size(); ++i) {
    if (entries_[i].live) {
      remap[i] = live.size();
      live.push_back(std::move(entries_[i]));
    }
  }
  for (const auto& [h, pos] : index_) new_index.emplace(h, remap[pos]);
  entries_ = std::move(live);
  index_ = std::move(new_index);
}

std::vector<std::pair<Value, Value>> Dict::items() const {
  std::vector<std::pair<Value, Value>> out;
  out.reserve(index_.size());
  for (const auto& e : entries_) {
    if (e.live) out.emplace_back(e.key, e.value);
  }
  return out;
}

}  // namespace tsch::script
