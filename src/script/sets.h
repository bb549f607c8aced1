// set and frozenset: the Set object over CPython's table (set_table.h), the operations that
// the operators, displays and comprehensions use, and the two built-in types. The algorithms
// follow CPython's Objects/setobject.c step for step where the order of insertions decides
// the iteration order (copies, merges, the size tests of intersection and difference).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "script/object.h"
#include "script/set_table.h"

namespace tsch::script {

class Set : public Object {
 public:
  explicit Set(bool frozen) : frozen(frozen) {}
  TypeObject* type() const override;

  const bool frozen;
  SetTable table;
  int64_t hash_cache = -1;  // a frozenset's hash once computed (a hash is never -1)
};
using SetRef = std::shared_ptr<Set>;

const TypeRef& set_type();
const TypeRef& frozenset_type();

// set(iterable) / frozenset(iterable); no iterable: empty.
SetRef make_set(Interpreter& interp, bool frozen, const Value* iterable = nullptr);
// The set display `{a, b, c}` of three or more constants: CPython builds it at compile time as
// a frozenset and merges that into a new set, which can order it differently from adding the
// items one by one.
Value make_set_from_constants(Interpreter& interp, const std::vector<Value>& items);
void set_add(Interpreter& interp, Set& s, const Value& key);
// set.update(other) for one iterable (sets merge, dicts reserve room first).
void set_update(Interpreter& interp, Set& s, const Value& iterable);
// `key in s`; a set key is looked up as the frozenset with its elements.
bool set_contains(Interpreter& interp, Set& s, const Value& key);
bool set_equal(Interpreter& interp, Set& a, Set& b);
// a < b, a <= b, a > b, a >= b: subset order.
bool set_order(Interpreter& interp, ast::CmpOpKind op, Set& a, Set& b);
// a | b, a & b, a - b, a ^ b of two sets (the result has a's type); false for other operators.
bool set_binary(Interpreter& interp, ast::BinOpKind op, const Value& a, const Value& b, Value& out);
// a |= b ... of a set and a set, changing a; false for other operators.
bool set_inplace(Interpreter& interp, ast::BinOpKind op, const Value& a, const Value& b);
// frozenset's hash; TypeError for a set.
int64_t set_hash(Set& s);
std::string set_repr(Interpreter& interp, const Value& v);
std::shared_ptr<Iterator> set_iter(const SetRef& s);

}  // namespace tsch::script
