#include "script/set_table.h"

#include <utility>

namespace tsch::script {

size_t SetTable::find(const Value& key, int64_t hash, const KeyEq& eq) {
restart:
  size_t perturb = static_cast<size_t>(hash);
  size_t i = perturb & mask();
  while (true) {
    size_t last = i + kLinearProbes <= mask() ? i + kLinearProbes : i;
    for (size_t j = i; j <= last; ++j) {
      const Slot& s = slots_[j];
      if (s.state == SlotState::Empty) return kNotFound;
      if (s.state == SlotState::Active && s.hash == hash) {
        uint64_t before = generation_;
        Value stored = s.key;  // the comparison may remove it from the table
        bool equal = eq(stored, key);
        if (generation_ != before) goto restart;
        if (equal) return j;
      }
    }
    perturb >>= kPerturbShift;
    i = (i * 5 + 1 + perturb) & mask();
  }
}

bool SetTable::contains(const Value& key, int64_t hash, const KeyEq& eq) { return find(key, hash, eq) != kNotFound; }

bool SetTable::add(const Value& key, int64_t hash, const KeyEq& eq) {
restart:
  size_t perturb = static_cast<size_t>(hash);
  size_t i = perturb & mask();
  // The last dummy passed on the way (CPython reuses the last one it saw, not the first).
  size_t free_slot = kNotFound;
  while (true) {
    size_t last = i + kLinearProbes <= mask() ? i + kLinearProbes : i;
    for (size_t j = i; j <= last; ++j) {
      Slot& s = slots_[j];
      if (s.state == SlotState::Empty) {
        ++generation_;
        ++used_;
        if (free_slot != kNotFound) {
          slots_[free_slot] = Slot{key, hash, SlotState::Active};
          return true;
        }
        s = Slot{key, hash, SlotState::Active};
        ++fill_;
        if (fill_ * 5 >= mask() * 3) resize(used_ > 50000 ? used_ * 2 : used_ * 4);
        return true;
      }
      if (s.state == SlotState::Active && s.hash == hash) {
        uint64_t before = generation_;
        Value stored = s.key;
        bool equal = eq(stored, key);
        if (generation_ != before) goto restart;
        if (equal) return false;
      } else if (s.state == SlotState::Dummy) {
        free_slot = j;
      }
    }
    perturb >>= kPerturbShift;
    i = (i * 5 + 1 + perturb) & mask();
  }
}

bool SetTable::discard(const Value& key, int64_t hash, const KeyEq& eq) {
  size_t i = find(key, hash, eq);
  if (i == kNotFound) return false;
  slots_[i] = Slot{Value(), -1, SlotState::Dummy};
  --used_;
  ++generation_;
  return true;
}

Value SetTable::pop() {
  size_t i = finger_ & mask();
  while (slots_[i].state != SlotState::Active) {
    if (++i > mask()) i = 0;
  }
  Value key = std::move(slots_[i].key);
  slots_[i] = Slot{Value(), -1, SlotState::Dummy};
  --used_;
  ++generation_;
  finger_ = i + 1;
  return key;
}

void SetTable::clear() {
  slots_.assign(kMinSize, Slot{});
  fill_ = used_ = 0;
  ++generation_;
}

// Placement into a table known to hold neither the key nor dummies: the first empty slot
// of the probe sequence, no comparisons.
void SetTable::insert_clean(std::vector<Slot>& slots, const Value& key, int64_t hash) {
  size_t mask = slots.size() - 1;
  size_t perturb = static_cast<size_t>(hash);
  size_t i = perturb & mask;
  while (true) {
    size_t last = i + kLinearProbes <= mask ? i + kLinearProbes : i;
    for (size_t j = i; j <= last; ++j) {
      if (slots[j].state == SlotState::Empty) {
        slots[j] = Slot{key, hash, SlotState::Active};
        return;
      }
    }
    perturb >>= kPerturbShift;
    i = (i * 5 + 1 + perturb) & mask;
  }
}

void SetTable::resize(size_t min_used) {
  size_t new_size = kMinSize;
  while (new_size <= min_used) new_size <<= 1;
  // A minimum-size table without dummies is left as it is (CPython's small table).
  if (new_size == kMinSize && slots_.size() == kMinSize && fill_ == used_) return;
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(new_size, Slot{});
  for (const Slot& s : old) {
    if (s.state == SlotState::Active) insert_clean(slots_, s.key, s.hash);
  }
  fill_ = used_;
  ++generation_;
}

void SetTable::merge(const SetTable& other, const KeyEq& eq) {
  if (&other == this || other.used_ == 0) return;
  if ((fill_ + other.used_) * 5 >= mask() * 3) resize((used_ + other.used_) * 2);
  ++generation_;
  if (fill_ == 0 && slots_.size() == other.slots_.size() && other.fill_ == other.used_) {
    slots_ = other.slots_;
    fill_ = other.fill_;
    used_ = other.used_;
    return;
  }
  if (fill_ == 0) {
    for (const Slot& s : other.slots_) {
      if (s.state == SlotState::Active) insert_clean(slots_, s.key, s.hash);
    }
    fill_ = used_ = other.used_;
    return;
  }
  // Indexes, not iterators: a key's __eq__ may change `other` meanwhile.
  for (size_t i = 0; i < other.slots_.size(); ++i) {
    if (other.slots_[i].state != SlotState::Active) continue;
    Slot s = other.slots_[i];
    add(s.key, s.hash, eq);
  }
}

void SetTable::reserve_for(size_t n) {
  if ((fill_ + n) * 5 >= mask() * 3) resize((used_ + n) * 2);
}

void SetTable::purge_dummies() {
  if (fill_ - used_ <= mask() / 4) return;
  resize(used_ > 50000 ? used_ * 2 : used_ * 4);
}

void SetTable::swap_contents(SetTable& other) {
  std::swap(slots_, other.slots_);
  std::swap(fill_, other.fill_);
  std::swap(used_, other.used_);
  ++generation_;
  ++other.generation_;
}

int64_t SetTable::frozenset_hash() const {
  // Each key's hash is spread by a shuffle before the xor, so that sets of nearby hashes
  // (small ints) do not cancel out; the size and a final mix follow.
  auto shuffle = [](uint64_t h) { return ((h ^ 89869747ULL) ^ (h << 16)) * 3644798167ULL; };
  uint64_t hash = 0;
  for (const Slot& s : slots_) {
    if (s.state == SlotState::Active) hash ^= shuffle(static_cast<uint64_t>(s.hash));
  }
  hash ^= (static_cast<uint64_t>(used_) + 1) * 1927868237ULL;
  hash ^= (hash >> 11) ^ (hash >> 25);
  hash = hash * 69069U + 907133923ULL;
  if (hash == static_cast<uint64_t>(-1)) hash = 590923713ULL;
  return static_cast<int64_t>(hash);
}

}  // namespace tsch::script
