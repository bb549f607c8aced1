// np.load's reader (runtime/npy_io.h) on malformed files: each defect is refused with an
// NpyError marked as a format error (ValueError in scripts) before anything is allocated for
// it, never a crash, a huge allocation or a wrong array.
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <string>

#include "runtime/npy_io.h"

using tsch::runtime::load_npy_bytes;
using tsch::runtime::NpyError;

namespace {

// A version-1 file (version 2 and 3: a 4-byte length) with `header` padded as NumPy pads it.
std::string npy(const std::string& header, const std::string& data = "", int version = 1) {
  std::string h = header;
  size_t len_bytes = version == 1 ? 2 : 4;
  size_t total = 8 + len_bytes + h.size() + 1;
  h += std::string((64 - total % 64) % 64, ' ') + "\n";
  std::string out = "\x93NUMPY";
  out += static_cast<char>(version);
  out += '\0';
  for (size_t i = 0; i < len_bytes; ++i) out += static_cast<char>((h.size() >> (8 * i)) & 0xff);
  return out + h + data;
}

std::string refusal(const std::string& bytes) {
  try {
    load_npy_bytes(bytes, "x.npy");
  } catch (const NpyError& e) {
    CHECK(e.format);
    return e.what();
  }
  FAIL("the file was loaded");
  return "";
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE(".npy: valid files of every version and order load", "[npy]") {
  std::string four(16, '\0');
  float one = 1.0f;
  std::memcpy(&four[4], &one, 4);
  auto a = load_npy_bytes(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }", four), "a.npy");
  CHECK(a->shape() == tsch::runtime::Shape{2, 2});
  CHECK(a->get_f(1) == 1.0);
  auto f = load_npy_bytes(npy("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", four, 2), "f.npy");
  CHECK(f->get_f(2) == 1.0);  // column-major: element [0, 1] is stored second
  auto s = load_npy_bytes(npy("{\"descr\": \"|b1\", \"fortran_order\": False, \"shape\": ()}", "\x01", 3), "s.npy");
  CHECK(s->shape().empty());
  auto v = load_npy_bytes(npy("{'shape': (3,), 'fortran_order': False, 'descr': '|u1'}", "abc"), "v.npy");
  CHECK(v->get_i(2) == 'c');
}

TEST_CASE(".npy: malformed headers are refused", "[npy]") {
  std::string data(64, '\0');
  // A length over NumPy's cap is refused before a byte of it is allocated or read.
  std::string huge = std::string("\x93NUMPY\x02\x00", 8) + "\xff\xff\xff\xff" + "{";
  CHECK(contains(refusal(huge), "Header info length (4294967295) is large"));
  CHECK(contains(refusal(npy("{'descr':    ")), "not a valid .npy header"));
  CHECK(contains(refusal(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (-3,), }", data)),
                 "expected a non-negative integer in the shape"));
  CHECK(contains(refusal(npy("{'descr': '<f4', 'fortran_order': False, 'shape': '3', }", data)), "expected '('"));
  CHECK(contains(refusal(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (3), }", data)), "is not a tuple"));
  CHECK(
      contains(refusal(npy("{'descr': '<f4', 'fortran_order': 0, 'shape': (3,), }", data)), "expected True or False"));
  CHECK(contains(refusal(npy("{'descr': '<f4', 'shape': (3,), }", data)), "needs the keys"));
  CHECK(contains(refusal(npy("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", data)),
                 "unknown or repeated"));
  CHECK(contains(refusal(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), } x", data)), "text follows"));
  CHECK(contains(refusal(npy("{'descr': '<f4x', 'fortran_order': False, 'shape': (3,), }", data)), "the dtype '<f4x'"));
  CHECK(contains(refusal(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }", data)),
                 "out of range"));
  std::string v9 = npy("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", data);
  v9[6] = 9;
  CHECK(contains(refusal(v9), "format version"));
  CHECK(contains(refusal("\x93NUMP"), "bad magic string"));
}

TEST_CASE(".npy: the data must be in the file before it is allocated", "[npy]") {
  // 2**40 float32 elements claimed by a 70-byte file: refused, nothing allocated.
  CHECK(contains(refusal(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1048576, 1048576), }", "abcd")),
                 "truncated .npy data"));
  CHECK(contains(refusal(npy("{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904, 4), }")),
                 "array is too big"));
  // Empty, but its strides would overflow: refused as NumPy refuses it, in either order.
  CHECK(contains(
      refusal(npy("{'descr': '<i8', 'fortran_order': True, 'shape': (5, 29999999991, 999991, 999999991, 0), }")),
      "array is too big"));
  CHECK(contains(refusal(npy("{'descr': '<i8', 'fortran_order': False, 'shape': (0, 4294967296, 4294967296), }")),
                 "array is too big"));
  CHECK(contains(refusal(npy("{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }", "abc")),
                 "truncated .npy data"));
}
