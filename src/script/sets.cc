#include "script/sets.h"

#include <fmt/format.h>

#include "script/exceptions.h"
#include "script/interpreter.h"
#include "script/types.h"

namespace tsch::script {
namespace {

SetTable::KeyEq key_eq(Interpreter& interp) {
  return [&interp](const Value& stored, const Value& key) { return stored.is(key) || interp.equals(stored, key); };
}

int64_t key_hash(Interpreter& interp, const Value& key) { return static_cast<int64_t>(interp.hash(key)); }

// make_new_set_basetype(Py_TYPE(so)): results of operations have the left operand's type.
SetRef new_like(const Set& s) { return std::make_shared<Set>(s.frozen); }

SetRef copy_of(Interpreter& interp, const Set& s) {
  SetRef r = new_like(s);
  r->table.merge(s.table, key_eq(interp));
  return r;
}

// Calls f(key, hash) for each element, by slot index: f may run script code that changes s.
template <typename F>
void each_entry(const Set& s, F&& f) {
  for (size_t i = 0; i < s.table.capacity(); ++i) {
    if (!s.table.active(i)) continue;
    SetTable::Slot slot = s.table.slot(i);
    if (!f(slot.key, slot.hash)) return;
  }
}

// The lookup key for `in`, remove and discard: a set stands for the frozenset of its elements.
Value lookup_key(Interpreter& interp, const Value& key) {
  auto* s = key.as<Set>();
  if (!s || s->frozen) return key;
  SetRef f = std::make_shared<Set>(true);
  f->table.merge(s->table, key_eq(interp));
  return Value(f);
}

Value intersection(Interpreter& interp, const Value& so_value, const Value& other) {
  Set& so = *so_value.as<Set>();
  if (other.is(so_value)) return Value(copy_of(interp, so));
  SetRef result = new_like(so);
  auto eq = key_eq(interp);
  if (auto* o = other.as<Set>()) {
    // Walk the smaller set, look up in the larger.
    Set* big = &so;
    Set* small = o;
    if (small->table.size() > big->table.size()) std::swap(big, small);
    each_entry(*small, [&](const Value& key, int64_t hash) {
      if (big->table.contains(key, hash, eq)) result->table.add(key, hash, eq);
      return true;
    });
    return Value(result);
  }
  interp.for_each(other, [&](const Value& key) {
    int64_t hash = key_hash(interp, key);
    if (so.table.contains(key, hash, eq)) {
      result->table.add(key, hash, eq);
      if (result->table.size() >= so.table.size()) return false;
    }
    return true;
  });
  return Value(result);
}

Value intersection_multi(Interpreter& interp, const Value& so, const std::vector<Value>& others) {
  if (others.empty()) return Value(copy_of(interp, *so.as<Set>()));
  Value result = so;
  for (const Value& other : others) result = intersection(interp, result, other);
  return result;
}

void difference_update(Interpreter& interp, const Value& so_value, const Value& other) {
  Set& so = *so_value.as<Set>();
  if (other.is(so_value)) {
    so.table.clear();
    return;
  }
  auto eq = key_eq(interp);
  if (auto* o = other.as<Set>()) {
    // A much larger other set is first cut down to the common elements.
    Value source = (o->table.size() >> 3) > so.table.size() ? intersection(interp, so_value, other) : other;
    each_entry(*source.as<Set>(), [&](const Value& key, int64_t hash) {
      so.table.discard(key, hash, eq);
      return true;
    });
  } else {
    interp.for_each(other, [&](const Value& key) {
      so.table.discard(key, key_hash(interp, key), eq);
      return true;
    });
  }
  so.table.purge_dummies();
}

Value difference(Interpreter& interp, const Value& so_value, const Value& other) {
  Set& so = *so_value.as<Set>();
  auto* other_set = other.as<Set>();
  auto* other_dict = other.as<Dict>();
  auto copy_and_difference = [&] {
    Value result(copy_of(interp, so));
    difference_update(interp, result, other);
    return result;
  };
  if (!other_set && !other_dict) return copy_and_difference();
  size_t other_size = other_set ? other_set->table.size() : other_dict->size();
  if ((so.table.size() >> 2) > other_size) return copy_and_difference();
  SetRef result = new_like(so);
  auto eq = key_eq(interp);
  each_entry(so, [&](const Value& key, int64_t hash) {
    bool found = other_set ? other_set->table.contains(key, hash, eq) : other_dict->find(interp, key) != nullptr;
    if (!found) result->table.add(key, hash, eq);
    return true;
  });
  return Value(result);
}

Value difference_multi(Interpreter& interp, const Value& so, const std::vector<Value>& others) {
  if (others.empty()) return Value(copy_of(interp, *so.as<Set>()));
  Value result = difference(interp, so, others[0]);
  for (size_t i = 1; i < others.size(); ++i) difference_update(interp, result, others[i]);
  return result;
}

void symmetric_difference_update(Interpreter& interp, const Value& so_value, const Value& other) {
  Set& so = *so_value.as<Set>();
  if (other.is(so_value)) {
    so.table.clear();
    return;
  }
  auto eq = key_eq(interp);
  auto toggle = [&](const Value& key, int64_t hash) {
    if (!so.table.discard(key, hash, eq)) so.table.add(key, hash, eq);
    return true;
  };
  if (auto* d = other.as<Dict>()) {
    for (const auto& [key, value] : d->items()) toggle(key, key_hash(interp, key));
    return;
  }
  Value other_set = other;
  if (!other.as<Set>()) {
    SetRef s = new_like(so);
    set_update(interp, *s, other);
    other_set = Value(s);
  }
  each_entry(*other_set.as<Set>(), toggle);
}

Value symmetric_difference(Interpreter& interp, const Value& so, const Value& other) {
  SetRef result = new_like(*so.as<Set>());
  set_update(interp, *result, other);
  symmetric_difference_update(interp, Value(result), so);
  return Value(result);
}

bool is_subset(Interpreter& interp, Set& so, const Value& other) {
  auto* o = other.as<Set>();
  if (!o) return is_subset(interp, so, Value(make_set(interp, false, &other)));
  if (so.table.size() > o->table.size()) return false;
  auto eq = key_eq(interp);
  bool subset = true;
  each_entry(so, [&](const Value& key, int64_t hash) { return subset = o->table.contains(key, hash, eq); });
  return subset;
}

bool is_superset(Interpreter& interp, const Value& so, const Value& other) {
  if (auto* o = other.as<Set>()) return is_subset(interp, *o, so);
  return is_superset(interp, so, Value(make_set(interp, false, &other)));
}

bool is_disjoint(Interpreter& interp, const Value& so_value, const Value& other) {
  Set& so = *so_value.as<Set>();
  if (other.is(so_value)) return so.table.size() == 0;
  auto eq = key_eq(interp);
  bool disjoint = true;
  if (auto* o = other.as<Set>()) {
    Set* big = &so;
    Set* small = o;
    if (small->table.size() > big->table.size()) std::swap(big, small);
    each_entry(*small, [&](const Value& key, int64_t hash) { return disjoint = !big->table.contains(key, hash, eq); });
    return disjoint;
  }
  interp.for_each(other,
                  [&](const Value& key) { return disjoint = !so.table.contains(key, key_hash(interp, key), eq); });
  return disjoint;
}

// `self` of a method, checked: `set.add(3, 4)` names the wrong object as Python does.
Set& self_of(Args& a, const char* method, bool frozen) {
  auto* s = a[0].as<Set>();
  if (!s || s->frozen != frozen) {
    raise(ExcKind::TypeError, fmt::format("descriptor '{}' for '{}' objects doesn't apply to a '{}' object", method,
                                          frozen ? "frozenset" : "set", Interpreter::type_name(a[0])));
  }
  return *s;
}

void install_methods(TypeObject& t, bool frozen) {
  // Methods both types have.
  t.def("copy", "self", [frozen](Interpreter& interp, Args& a) {
    Set& s = self_of(a, "copy", frozen);
    if (s.frozen) return a[0];  // an immutable copy is the object itself
    return Value(copy_of(interp, s));
  });
  t.def("union", "self, *others", [frozen](Interpreter& interp, Args& a) {
    SetRef result = copy_of(interp, self_of(a, "union", frozen));
    for (const Value& other : a.varargs()) {
      if (!other.is(a[0])) set_update(interp, *result, other);
    }
    return Value(result);
  });
  t.def("intersection", "self, *others", [frozen](Interpreter& interp, Args& a) {
    self_of(a, "intersection", frozen);
    return intersection_multi(interp, a[0], a.varargs());
  });
  t.def("difference", "self, *others", [frozen](Interpreter& interp, Args& a) {
    self_of(a, "difference", frozen);
    return difference_multi(interp, a[0], a.varargs());
  });
  t.def("symmetric_difference", "self, other", [frozen](Interpreter& interp, Args& a) {
    self_of(a, "symmetric_difference", frozen);
    return symmetric_difference(interp, a[0], a[1]);
  });
  t.def("issubset", "self, other", [frozen](Interpreter& interp, Args& a) {
    return Value::boolean(is_subset(interp, self_of(a, "issubset", frozen), a[1]));
  });
  t.def("issuperset", "self, other", [frozen](Interpreter& interp, Args& a) {
    self_of(a, "issuperset", frozen);
    return Value::boolean(is_superset(interp, a[0], a[1]));
  });
  t.def("isdisjoint", "self, other", [frozen](Interpreter& interp, Args& a) {
    self_of(a, "isdisjoint", frozen);
    return Value::boolean(is_disjoint(interp, a[0], a[1]));
  });
  if (frozen) return;

  // Mutating methods: set only.
  t.def("add", "self, elem", [](Interpreter& interp, Args& a) {
    set_add(interp, self_of(a, "add", false), a[1]);
    return Value();
  });
  t.def("remove", "self, elem", [](Interpreter& interp, Args& a) {
    Set& s = self_of(a, "remove", false);
    Value key = lookup_key(interp, a[1]);
    if (!s.table.discard(key, key_hash(interp, key), key_eq(interp))) raise_key_error(a[1]);
    return Value();
  });
  t.def("discard", "self, elem", [](Interpreter& interp, Args& a) {
    Set& s = self_of(a, "discard", false);
    Value key = lookup_key(interp, a[1]);
    s.table.discard(key, key_hash(interp, key), key_eq(interp));
    return Value();
  });
  t.def("pop", "self", [](Interpreter&, Args& a) {
    Set& s = self_of(a, "pop", false);
    if (s.table.size() == 0) raise(ExcKind::KeyError, "pop from an empty set");
    return s.table.pop();
  });
  t.def("clear", "self", [](Interpreter&, Args& a) {
    self_of(a, "clear", false).table.clear();
    return Value();
  });
  t.def("update", "self, *others", [](Interpreter& interp, Args& a) {
    Set& s = self_of(a, "update", false);
    for (const Value& other : a.varargs()) set_update(interp, s, other);
    return Value();
  });
  t.def("intersection_update", "self, *others", [](Interpreter& interp, Args& a) {
    Set& s = self_of(a, "intersection_update", false);
    Value result = intersection_multi(interp, a[0], a.varargs());
    s.table.swap_contents(result.as<Set>()->table);
    return Value();
  });
  t.def("difference_update", "self, *others", [](Interpreter& interp, Args& a) {
    self_of(a, "difference_update", false);
    for (const Value& other : a.varargs()) difference_update(interp, a[0], other);
    return Value();
  });
  t.def("symmetric_difference_update", "self, other", [](Interpreter& interp, Args& a) {
    self_of(a, "symmetric_difference_update", false);
    symmetric_difference_update(interp, a[0], a[1]);
    return Value();
  });
}

TypeRef create_type(bool frozen) {
  const char* name = frozen ? "frozenset" : "set";
  auto t = std::make_shared<TypeObject>(name, std::vector<TypeRef>{builtin_types().object});
  t->constructor = [frozen, name](Interpreter& interp, TypeObject*, CallArgs& call) {
    if (!call.keywords.empty()) raise(ExcKind::TypeError, fmt::format("{}() takes no keyword arguments", name));
    if (call.positional.size() > 1) {
      raise(ExcKind::TypeError, fmt::format("{} expected at most 1 argument, got {}", name, call.positional.size()));
    }
    if (call.positional.empty()) return Value(make_set(interp, frozen));
    const Value& iterable = call.positional[0];
    // frozenset(f) of a frozenset is f itself.
    if (auto* s = iterable.as<Set>(); frozen && s && s->frozen) return iterable;
    return Value(make_set(interp, frozen, &iterable));
  };
  install_methods(*t, frozen);
  return t;
}

class SetIterator : public Iterator {
 public:
  explicit SetIterator(SetRef s) : set_(std::move(s)), expected_size_(set_->table.size()) {}
  bool next(Interpreter&, Value& out) override {
    if (!set_) return false;
    // CPython checks the size only: adding one element and removing another goes unnoticed.
    if (set_->table.size() != expected_size_) {
      expected_size_ = SIZE_MAX;  // every later call fails too
      raise(ExcKind::RuntimeError, "Set changed size during iteration");
    }
    const SetTable& table = set_->table;
    while (pos_ < table.capacity() && !table.active(pos_)) ++pos_;
    if (pos_ >= table.capacity()) {
      set_.reset();
      return false;
    }
    out = table.slot(pos_++).key;
    return true;
  }
  const char* kind() const override { return "set_iterator"; }

 private:
  SetRef set_;
  size_t expected_size_;
  size_t pos_ = 0;
};

}  // namespace

TypeObject* Set::type() const { return frozen ? frozenset_type().get() : set_type().get(); }

const TypeRef& set_type() {
  static const TypeRef t = create_type(false);
  return t;
}

const TypeRef& frozenset_type() {
  static const TypeRef t = create_type(true);
  return t;
}

SetRef make_set(Interpreter& interp, bool frozen, const Value* iterable) {
  auto s = std::make_shared<Set>(frozen);
  if (iterable) set_update(interp, *s, *iterable);
  return s;
}

Value make_set_from_constants(Interpreter& interp, const std::vector<Value>& items) {
  auto constants = std::make_shared<Set>(true);
  for (const Value& item : items) set_add(interp, *constants, item);
  auto s = std::make_shared<Set>(false);
  s->table.merge(constants->table, key_eq(interp));
  return Value(s);
}

void set_add(Interpreter& interp, Set& s, const Value& key) { s.table.add(key, key_hash(interp, key), key_eq(interp)); }

void set_update(Interpreter& interp, Set& s, const Value& other) {
  auto eq = key_eq(interp);
  if (auto* o = other.as<Set>()) {
    s.table.merge(o->table, eq);
    return;
  }
  if (auto* d = other.as<Dict>()) {
    s.table.reserve_for(d->size());
    for (const auto& [key, value] : d->items()) s.table.add(key, key_hash(interp, key), eq);
    return;
  }
  interp.for_each(other, [&](const Value& key) {
    s.table.add(key, key_hash(interp, key), eq);
    return true;
  });
}

bool set_contains(Interpreter& interp, Set& s, const Value& key) {
  Value k = lookup_key(interp, key);
  return s.table.contains(k, key_hash(interp, k), key_eq(interp));
}

bool set_equal(Interpreter& interp, Set& a, Set& b) {
  if (a.table.size() != b.table.size()) return false;
  if (a.hash_cache != -1 && b.hash_cache != -1 && a.hash_cache != b.hash_cache) return false;
  return is_subset(interp, a, Value(b.shared_from_this()));
}

bool set_order(Interpreter& interp, ast::CmpOpKind op, Set& a, Set& b) {
  using K = ast::CmpOpKind;
  Value bv(b.shared_from_this());
  Value av(a.shared_from_this());
  switch (op) {
    case K::Lt:
      return a.table.size() < b.table.size() && is_subset(interp, a, bv);
    case K::LtE:
      return is_subset(interp, a, bv);
    case K::Gt:
      return a.table.size() > b.table.size() && is_superset(interp, av, bv);
    case K::GtE:
      return is_superset(interp, av, bv);
    default:
      return false;
  }
}

bool set_binary(Interpreter& interp, ast::BinOpKind op, const Value& a, const Value& b, Value& out) {
  using K = ast::BinOpKind;
  switch (op) {
    case K::BitOr: {
      SetRef result = copy_of(interp, *a.as<Set>());
      if (!b.is(a)) set_update(interp, *result, b);
      out = Value(result);
      return true;
    }
    case K::BitAnd:
      out = intersection(interp, a, b);
      return true;
    case K::Sub:
      out = difference(interp, a, b);
      return true;
    case K::BitXor:
      out = symmetric_difference(interp, a, b);
      return true;
    default:
      return false;
  }
}

bool set_inplace(Interpreter& interp, ast::BinOpKind op, const Value& a, const Value& b) {
  using K = ast::BinOpKind;
  Set& s = *a.as<Set>();
  switch (op) {
    case K::BitOr:
      set_update(interp, s, b);
      return true;
    case K::BitAnd: {
      Value result = intersection(interp, a, b);
      s.table.swap_contents(result.as<Set>()->table);
      return true;
    }
    case K::Sub:
      difference_update(interp, a, b);
      return true;
    case K::BitXor:
      symmetric_difference_update(interp, a, b);
      return true;
    default:
      return false;
  }
}

int64_t set_hash(Set& s) {
  if (!s.frozen) raise(ExcKind::TypeError, "unhashable type: 'set'");
  if (s.hash_cache == -1) s.hash_cache = s.table.frozenset_hash();
  return s.hash_cache;
}

std::string set_repr(Interpreter& interp, const Value& v) {
  auto* s = v.as<Set>();
  std::string name = s->frozen ? "frozenset" : "set";
  if (s->table.size() == 0) return name + "()";
  if (!interp.repr_enter(v)) return name + "(...)";
  std::vector<Value> keys;
  each_entry(*s, [&](const Value& key, int64_t) {
    keys.push_back(key);
    return true;
  });
  std::string inner;
  try {
    for (size_t i = 0; i < keys.size(); ++i) {
      if (i) inner += ", ";
      inner += interp.repr(keys[i]);
    }
  } catch (...) {
    interp.repr_leave();
    throw;
  }
  interp.repr_leave();
  return s->frozen ? "frozenset({" + inner + "})" : "{" + inner + "}";
}

std::shared_ptr<Iterator> set_iter(const SetRef& s) { return std::make_shared<SetIterator>(s); }

}  // namespace tsch::script
