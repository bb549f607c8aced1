// The PTX fragment layouts the CPU emulation of T.ptx_mma uses (transform/emulate_mma.h):
// each a one-to-one map of a matrix onto (lane, element); A and C agree with TVM's
// shared_16x16_to_ldmatrix_32x8_layout; and ldmatrix (as PTX defines it, fed with the row
// addresses TVM's ldmatrix intrinsics compute) followed by the two mma.sync of TVM's mma
// intrinsic and the mma_store layout computes a 16x16 tile of a matmul.
#include <catch2/catch.hpp>
#include <set>
#include <vector>

#include "transform/emulate_mma.h"

using namespace tsch::transform;

namespace {

// Every entry of a rows x cols matrix has its own (lane, element), all of 32 x (rows * cols / 32).
template <typename F>
void check_bijective(int64_t rows, int64_t cols, F slot) {
  std::set<std::pair<int64_t, int64_t>> seen;
  int64_t per_lane = rows * cols / 32;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      FragmentSlot s = slot(r, c);
      REQUIRE(s.lane >= 0);
      REQUIRE(s.lane < 32);
      REQUIRE(s.element >= 0);
      REQUIRE(s.element < per_lane);
      seen.insert({s.lane, s.element});
    }
  }
  REQUIRE(static_cast<int64_t>(seen.size()) == rows * cols);
}

// TVM's shared_16x16_to_ldmatrix_32x8_layout.
std::pair<int64_t, int64_t> tvm_16x16(int64_t i, int64_t j) {
  return {4 * (i % 8) + (j % 8) / 2, 4 * (j / 8) + (i / 8) * 2 + j % 2};
}

// ldmatrix.x4 of 8x8 matrices of `bytes`-byte elements (16-bit units moved): lane `8m + r`
// supplies row r of matrix m at `addr(8m + r)`; lane t gets one 32-bit register per matrix.
template <typename T, typename Addr>
std::vector<std::vector<T>> ldmatrix(const std::vector<T>& smem, Addr addr, bool trans) {
  int per = 4 / static_cast<int>(sizeof(T));  // elements in a register
  std::vector<std::vector<T>> regs(32, std::vector<T>(4 * per));
  for (int t = 0; t < 32; ++t) {
    for (int m = 0; m < 4; ++m) {
      for (int e = 0; e < per; ++e) {
        regs[t][m * per + e] =
            trans ? smem[addr(8 * m + 2 * (t % 4) + e) + t / 4] : smem[addr(8 * m + t / 4) + per * (t % 4) + e];
      }
    }
  }
  return regs;
}

// TVM's mma intrinsic: two m16n8 products, B's and C's second halves at element n/2.
template <typename T, typename Acc>
std::vector<std::vector<Acc>> mma_16x16(int64_t k_dim, const std::vector<std::vector<T>>& a,
                                        const std::vector<std::vector<T>>& b) {
  std::vector<std::vector<Acc>> c(32, std::vector<Acc>(8, 0));
  int64_t b_half = k_dim * 8 / 32;
  for (int half = 0; half < 2; ++half) {
    for (int64_t r = 0; r < 16; ++r) {
      for (int64_t col = 0; col < 8; ++col) {
        FragmentSlot sc = mma_c_slot(r, col);
        for (int64_t k = 0; k < k_dim; ++k) {
          FragmentSlot sa = mma_a_slot(k_dim, r, k), sb = mma_b_slot(k_dim, k, col);
          c[sc.lane][4 * half + sc.element] +=
              Acc(a[sa.lane][sa.element]) * Acc(b[sb.lane][half * b_half + sb.element]);
        }
      }
    }
  }
  return c;
}

// T.mma_store's layout: lane t's element x is row 8 * (x % 4 / 2) + t / 4, column 8 * (x / 4) + 2 * (t % 4) + x % 2.
template <typename Acc>
std::vector<Acc> store_16x16(const std::vector<std::vector<Acc>>& c) {
  std::vector<Acc> out(256);
  for (int t = 0; t < 32; ++t) {
    for (int x = 0; x < 8; ++x) out[(8 * (x % 4 / 2) + t / 4) * 16 + 8 * (x / 4) + 2 * (t % 4) + x % 2] = c[t][x];
  }
  return out;
}

}  // namespace

TEST_CASE("mma fragment layouts are one-to-one", "[mma]") {
  check_bijective(16, 16, [](int64_t r, int64_t c) { return mma_a_slot(16, r, c); });
  check_bijective(16, 8, [](int64_t r, int64_t c) { return mma_b_slot(16, r, c); });
  check_bijective(16, 32, [](int64_t r, int64_t c) { return mma_a_slot(32, r, c); });
  check_bijective(32, 8, [](int64_t r, int64_t c) { return mma_b_slot(32, r, c); });
  check_bijective(16, 8, [](int64_t r, int64_t c) { return mma_c_slot(r, c); });
}

TEST_CASE("mma A and C layouts are TVM's shared_16x16_to_ldmatrix_32x8_layout", "[mma]") {
  for (int64_t i = 0; i < 16; ++i) {
    for (int64_t j = 0; j < 16; ++j) {
      auto [lane, local] = tvm_16x16(i, j);
      FragmentSlot a = mma_a_slot(16, i, j);
      CHECK(a.lane == lane);
      CHECK(a.element == local);
      // C's right 8 columns are the second mma's, at element 4.
      FragmentSlot c = mma_c_slot(i, j % 8);
      CHECK(c.lane == lane);
      CHECK(c.element + 4 * (j / 8) == local);
    }
  }
}

TEST_CASE("ldmatrix + mma + mma_store compute a float16-style 16x16x16 tile", "[mma]") {
  // Small integers in 16-bit elements: exact.
  std::vector<int16_t> a(256), b(256);
  for (int i = 0; i < 256; ++i)
    a[i] = static_cast<int16_t>((i * 7) % 11 - 5), b[i] = static_cast<int16_t>((i * 5) % 13 - 6);
  // TVM's row addresses: A (not transposed) stride * (tx % 16) + 8 * (tx / 16); B [k, n] is
  // loaded transposed from the same addresses (mma_ldmatrix_f16_b).
  auto addr = [](int tx) { return 16 * (tx % 16) + 8 * (tx / 16); };
  auto ra = ldmatrix(a, addr, false), rb = ldmatrix(b, addr, true);
  auto c = store_16x16(mma_16x16<int16_t, int64_t>(16, ra, rb));
  for (int i = 0; i < 16; ++i) {
    for (int j = 0; j < 16; ++j) {
      int64_t want = 0;
      for (int k = 0; k < 16; ++k) want += int64_t(a[i * 16 + k]) * b[k * 16 + j];
      REQUIRE(c[i * 16 + j] == want);
    }
  }
}

TEST_CASE("ldmatrix + mma + mma_store compute an int8 16x16x32 tile", "[mma]") {
  std::vector<int8_t> a(16 * 32), b(32 * 16);
  for (int i = 0; i < 512; ++i)
    a[i] = static_cast<int8_t>((i * 37) % 255 - 127), b[i] = static_cast<int8_t>((i * 91) % 251 - 125);
  // A: stride * (tx % 16) + 16 * (tx / 16), stride 32 (mma_ldmatrix_i8_a).
  auto ra = ldmatrix(a, [](int tx) { return 32 * (tx % 16) + 16 * (tx / 16); }, false);
  // B [k, n], not transposed: TVM's copy loop (ldmatrix cannot transpose bytes), stride 16.
  std::vector<std::vector<int8_t>> rb(32, std::vector<int8_t>(16));
  for (int t = 0; t < 32; ++t) {
    for (int i = 0; i < 16; ++i)
      rb[t][i] = b[(i % 8) / 4 * 16 * 16 + (t % 4) * 4 * 16 + (i % 4) * 16 + t / 4 + (i / 8) * 8];
  }
  auto c = store_16x16(mma_16x16<int8_t, int64_t>(32, ra, rb));
  for (int i = 0; i < 16; ++i) {
    for (int j = 0; j < 16; ++j) {
      int64_t want = 0;
      for (int k = 0; k < 32; ++k) want += int64_t(a[i * 32 + k]) * b[k * 16 + j];
      REQUIRE(c[i * 16 + j] == want);
    }
  }
}
