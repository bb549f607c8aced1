// CPython's hash values for the built-in values whose hashes CPython does not randomize
// (int, bool, float, None, tuples of those), so sets iterate in CPython's order and
// `hash(x)` prints what CPython prints. Python/pyhash.c and Objects/tupleobject.c.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tsch::script {

// Hashes are reduced modulo the Mersenne prime 2**61 - 1 (sys.hash_info.modulus).
constexpr int kPyHashBits = 61;
constexpr uint64_t kPyHashModulus = (uint64_t{1} << kPyHashBits) - 1;
// hash(float('inf')); -inf hashes to its negation.
constexpr int64_t kPyHashInf = 314159;
// -1 is CPython's error code, so no hash is ever -1: it becomes -2.
inline int64_t py_hash_fix(int64_t h) { return h == -1 ? -2 : h; }

// The value modulo 2**61 - 1, with the value's sign.
int64_t py_hash_int(int64_t v);
// Integral floats hash as the int; others by their exact binary value modulo 2**61 - 1.
// CPython 3.10+ hashes NaN by the object's address; tsch floats have no identity, so NaN
// hashes to 0 (CPython 3.9's value).
int64_t py_hash_double(double v);
// The hash of an object without a value hash: its address rotated by 4 bits.
int64_t py_hash_pointer(const void* p);
// hash(None): CPython 3.11 hashes None by its address, which varies between runs; tsch uses
// the constant CPython 3.12 and later return.
constexpr int64_t kPyHashNone = 0xFCA86420;

// CPython 3.11's tuple hash (xxHash's mixing over the item hashes): add each item's hash
// in order, then finish with the length.
class PyTupleHasher {
 public:
  void add(int64_t item_hash);
  int64_t finish(size_t length) const;

 private:
  uint64_t acc_ = 2870177450012600261ULL;  // xxHash's PRIME64_5
};

}  // namespace tsch::script
