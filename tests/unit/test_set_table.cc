// The set table against CPython 3.11: iteration orders, growth, dummies and pop's finger
// (the expected orders were printed by python3.11 for the same insertions), and the hash
// values the orders depend on.
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "script/py_hash.h"
#include "script/set_table.h"

using namespace tsch::script;

namespace {

// Ints compared by value, hashed as CPython hashes them.
const SetTable::KeyEq kIntEq = [](const Value& a, const Value& b) { return a.as_int() == b.as_int(); };

void add(SetTable& t, int64_t v) { t.add(Value::integer(v), py_hash_int(v), kIntEq); }
bool discard(SetTable& t, int64_t v) { return t.discard(Value::integer(v), py_hash_int(v), kIntEq); }

SetTable table_of(const std::vector<int64_t>& values) {
  SetTable t;
  for (int64_t v : values) add(t, v);
  return t;
}

std::vector<int64_t> order(const SetTable& t) {
  std::vector<int64_t> out;
  for (size_t i = 0; i < t.capacity(); ++i) {
    if (t.active(i)) out.push_back(t.slot(i).key.as_int());
  }
  return out;
}

using V = std::vector<int64_t>;

}  // namespace

TEST_CASE("set table: CPython's iteration order", "[set]") {
  CHECK(order(table_of({3, 1, 2})) == V{1, 2, 3});
  CHECK(order(table_of({10, 2, 33, 100, 5})) == V{33, 2, 100, 5, 10});
  // All four start at slot 0 of 8: no linear probes fit, perturbation spreads them.
  CHECK(order(table_of({0, 8, 16, 24})) == V{0, 8, 16, 24});
  CHECK(order(table_of({0, 7, 14, 21, 28, 35, 42, 49, 56})) == V{0, 35, 7, 42, 14, 49, 21, 56, 28});
  CHECK(order(table_of({-1, -5, int64_t{1} << 62, 7})) == V{int64_t{1} << 62, -5, -1, 7});
}

TEST_CASE("set table: growth at 3/5 full", "[set]") {
  SetTable t;
  for (int64_t v = 0; v < 4; ++v) add(t, v);
  CHECK(t.capacity() == 8);
  add(t, 4);  // fill 5: 5 * 5 >= 7 * 3, resize to > 4 * used
  CHECK(t.capacity() == 32);
  for (int64_t v = 5; v < 18; ++v) add(t, v);
  CHECK(t.capacity() == 32);
  add(t, 18);
  CHECK(t.capacity() == 128);
  CHECK(t.size() == 19);
  // Adding an element already there changes nothing.
  add(t, 3);
  CHECK(t.size() == 19);
}

TEST_CASE("set table: dummies", "[set]") {
  SetTable t = table_of({1, 2, 3, 4});
  CHECK(discard(t, 2));
  CHECK_FALSE(discard(t, 2));
  CHECK(t.size() == 3);
  CHECK(t.fill() == 4);  // the dummy still counts towards growth
  // 10 probes slot 2 (a dummy), then on to an empty slot: it takes the dummy's place.
  add(t, 10);
  CHECK(order(t) == V{1, 10, 3, 4});
  CHECK(t.fill() == 4);
  // Removals then adds, as CPython orders them.
  SetTable u;
  for (int64_t v = 0; v < 20; ++v) add(u, v);
  for (int64_t v = 0; v < 20; v += 2) discard(u, v);
  add(u, 100);
  add(u, 2);
  CHECK(order(u) == V{1, 3, 5, 7, 9, 11, 13, 15, 17, 2, 19, 100});
  // purge_dummies (after difference_update) rebuilds a table over a quarter dummies...
  SetTable w;
  for (int64_t v = 0; v < 40; ++v) add(w, v);
  CHECK(w.capacity() == 128);
  for (int64_t v = 0; v < 35; ++v) discard(w, v);
  w.purge_dummies();
  CHECK(w.capacity() == 32);
  CHECK(w.fill() == w.size());
  CHECK(order(w) == V{35, 36, 37, 38, 39});
  // ... and leaves a lightly used one alone.
  size_t fill = u.fill();
  u.purge_dummies();
  CHECK(u.fill() == fill);
  CHECK(u.capacity() == 128);
}

TEST_CASE("set table: pop walks from its finger", "[set]") {
  SetTable t = table_of({5, 3, 17, 33, 9});
  V popped;
  while (t.size() > 0) popped.push_back(t.pop().as_int());
  CHECK(popped == V{33, 3, 5, 9, 17});
}

TEST_CASE("set table: merge", "[set]") {
  SetTable src = table_of({0, 8, 16, 24});
  SetTable dst = table_of({7});
  dst.merge(src, kIntEq);
  CHECK(order(dst) == V{0, 16, 7, 8, 24});
  SetTable empty;
  empty.merge(src, kIntEq);
  CHECK(order(empty) == order(src));
}

TEST_CASE("CPython hash values", "[set]") {
  CHECK(py_hash_int(-1) == -2);
  CHECK(py_hash_int(int64_t{1} << 61) == 1);
  CHECK(py_hash_int((int64_t{1} << 61) - 1) == 0);
  CHECK(py_hash_int(INT64_MAX) == 3);
  CHECK(py_hash_int(INT64_MIN) == -4);
  CHECK(py_hash_double(1.0) == 1);
  CHECK(py_hash_double(1.5) == 1152921504606846977);
  CHECK(py_hash_double(-0.5) == -1152921504606846976);
  CHECK(py_hash_double(0.1) == 230584300921369408);
  CHECK(py_hash_double(1e300) == 1224995262755759164);
  CHECK(py_hash_double(INFINITY) == 314159);
  PyTupleHasher empty;
  CHECK(empty.finish(0) == 5740354900026072187);
  PyTupleHasher pair;
  pair.add(1);
  pair.add(2);
  CHECK(pair.finish(2) == -3550055125485641917);
  CHECK(table_of({1, 2, 3}).frozenset_hash() == -272375401224217160);
  CHECK(SetTable().frozenset_hash() == 133146708735736);
}
