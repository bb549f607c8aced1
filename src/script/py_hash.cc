#include "script/py_hash.h"

#include <cmath>

namespace tsch::script {

int64_t py_hash_int(int64_t v) {
  uint64_t magnitude = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  auto h = static_cast<int64_t>(magnitude % kPyHashModulus);
  return py_hash_fix(v < 0 ? -h : h);
}

int64_t py_hash_double(double v) {
  if (std::isinf(v)) return v > 0 ? kPyHashInf : -kPyHashInf;
  if (std::isnan(v)) return 0;
  int e = 0;
  double m = std::frexp(v, &e);
  int sign = 1;
  if (m < 0) {
    sign = -1;
    m = -m;
  }
  // Take the mantissa 28 bits at a time; multiplying by 2**k modulo 2**61 - 1 is a 61-bit
  // rotation, so the running value stays reduced.
  uint64_t x = 0;
  while (m != 0) {
    x = ((x << 28) & kPyHashModulus) | x >> (kPyHashBits - 28);
    m *= 268435456.0;  // 2**28
    e -= 28;
    auto y = static_cast<uint64_t>(m);
    m -= static_cast<double>(y);
    x += y;
    if (x >= kPyHashModulus) x -= kPyHashModulus;
  }
  e = e >= 0 ? e % kPyHashBits : kPyHashBits - 1 - ((-1 - e) % kPyHashBits);
  x = ((x << e) & kPyHashModulus) | x >> (kPyHashBits - e);
  x = x * static_cast<uint64_t>(static_cast<int64_t>(sign));
  return py_hash_fix(static_cast<int64_t>(x));
}

int64_t py_hash_pointer(const void* p) {
  auto y = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p));
  // Objects are aligned, so the low bits carry nothing: rotate them to the top.
  return py_hash_fix(static_cast<int64_t>((y >> 4) | (y << 60)));
}

void PyTupleHasher::add(int64_t item_hash) {
  constexpr uint64_t kPrime1 = 11400714785074694791ULL;
  constexpr uint64_t kPrime2 = 14029467366897019727ULL;
  acc_ += static_cast<uint64_t>(item_hash) * kPrime2;
  acc_ = (acc_ << 31) | (acc_ >> 33);
  acc_ *= kPrime1;
}

int64_t PyTupleHasher::finish(size_t length) const {
  // The length term is mangled so that hash(()) keeps its historical value.
  uint64_t acc = acc_ + (static_cast<uint64_t>(length) ^ (2870177450012600261ULL ^ 3527539ULL));
  if (acc == static_cast<uint64_t>(-1)) return 1546275796;
  return static_cast<int64_t>(acc);
}

}  // namespace tsch::script
