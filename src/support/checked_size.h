// Element counts and byte sizes computed from user-given shapes, with overflow checked: a
// shape like (2**62, 2**62) must be refused, not wrap to a small count and corrupt memory.
#pragma once

#include <cstdint>
#include <new>
#include <stdexcept>
#include <string>

namespace tsch {

// The count or size does not fit: NumPy's ValueError ("array is too big; ...").
struct SizeOverflow : std::length_error {
  using std::length_error::length_error;
};

// An allocation the system refused: MemoryError with this message.
class OutOfMemory : public std::bad_alloc {
 public:
  explicit OutOfMemory(std::string message) : message_(std::move(message)) {}
  const char* what() const noexcept override { return message_.c_str(); }

 private:
  std::string message_;
};

inline constexpr const char* kArrayTooBig =
    "array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum possible size.";

// a * b for non-negative a and b; throws SizeOverflow past INT64_MAX.
inline int64_t checked_mul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) throw SizeOverflow(kArrayTooBig);
  return r;
}

// The number of elements of `shape` (any container of int64_t); negative extents are refused.
// As in NumPy, the product of the nonzero extents must fit too: an empty array of shape
// (0, 2**40, 2**40) is refused, since its strides would overflow.
template <typename Shape>
int64_t checked_element_count(const Shape& shape) {
  int64_t nonzero = 1;
  bool empty = false;
  for (int64_t d : shape) {
    if (d < 0) throw SizeOverflow("negative dimensions are not allowed");
    if (d == 0)
      empty = true;
    else
      nonzero = checked_mul(nonzero, d);
  }
  return empty ? 0 : nonzero;
}

}  // namespace tsch
