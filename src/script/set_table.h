// The hash table behind set and frozenset, laid out and probed as CPython's
// Objects/setobject.c does (3.7 to 3.12 share it): open addressing over a power-of-two
// table of at least 8 slots, 9 linear probes then `perturb >>= 5; i = i * 5 + 1 + perturb`,
// removals leaving dummies, growth when 3/5 of the slots are used or dummies. With CPython's
// hash values (py_hash.h), walking the slots gives CPython's iteration order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "script/value.h"

namespace tsch::script {

class SetTable {
 public:
  // Whether a stored key equals a probe key of the same hash. It may run script code
  // (`__eq__`), which may change the table: probes then start over, as CPython's do.
  using KeyEq = std::function<bool(const Value& stored, const Value& key)>;

  enum class SlotState : uint8_t { Empty, Dummy, Active };
  struct Slot {
    Value key;
    int64_t hash = 0;
    SlotState state = SlotState::Empty;
  };

  static constexpr size_t kMinSize = 8;

  SetTable() : slots_(kMinSize) {}

  size_t size() const { return used_; }
  // Active and dummy slots.
  size_t fill() const { return fill_; }
  size_t capacity() const { return slots_.size(); }
  const Slot& slot(size_t i) const { return slots_[i]; }
  bool active(size_t i) const { return slots_[i].state == SlotState::Active; }

  bool contains(const Value& key, int64_t hash, const KeyEq& eq);
  // Returns false when an equal key was already there (the stored key stays).
  bool add(const Value& key, int64_t hash, const KeyEq& eq);
  // Leaves a dummy in the key's slot; returns false when the key was not there.
  bool discard(const Value& key, int64_t hash, const KeyEq& eq);
  // Removes and returns the first key at or after the finger the last pop left (wrapping).
  // Precondition: size() > 0.
  Value pop();
  void clear();
  // Adds every key of `other` (set_merge: one resize first, then a slot-for-slot copy when
  // this table is empty and the same size, else clean inserts or ordinary adds).
  void merge(const SetTable& other, const KeyEq& eq);
  // The one resize CPython does before adding `n` keys from a dict.
  void reserve_for(size_t n);
  // After removing many keys: rebuilds the table when over a quarter of it is dummies.
  void purge_dummies();
  // Exchanges contents; each table keeps its pop finger (set_swap_bodies).
  void swap_contents(SetTable& other);
  // frozenset's hash: independent of order, from the keys' hashes.
  int64_t frozenset_hash() const;

 private:
  static constexpr size_t kLinearProbes = 9;
  static constexpr int kPerturbShift = 5;
  static constexpr size_t kNotFound = SIZE_MAX;

  size_t mask() const { return slots_.size() - 1; }
  size_t find(const Value& key, int64_t hash, const KeyEq& eq);
  void resize(size_t min_used);
  static void insert_clean(std::vector<Slot>& slots, const Value& key, int64_t hash);

  std::vector<Slot> slots_;
  size_t fill_ = 0;
  size_t used_ = 0;
  size_t finger_ = 0;
  // Changes with every insertion and removal, so a comparison that changed the table is seen.
  uint64_t generation_ = 0;
};

}  // namespace tsch::script
