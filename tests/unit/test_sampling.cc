// TVM's random engine and the schedule's samplers over it: the engine is std::minstd_rand on
// an outside state, seeds are normalized as TVM's, and the samplers' results are tilings
// (perfect, under the innermost limit, partitioned) drawn reproducibly from a state.
#include <catch2/catch.hpp>
#include <map>
#include <random>

#include "schedule/primitives.h"
#include "support/error.h"
#include "support/random_engine.h"

using tsch::support::LinearCongruentialEngine;

namespace {

int64_t product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

}  // namespace

TEST_CASE("random engine: the recurrence of std::minstd_rand on the schedule's state", "[sampling]") {
  int64_t state = LinearCongruentialEngine::normalize_seed(0x23456789);
  LinearCongruentialEngine engine(&state);
  std::minstd_rand reference(0x23456789);
  for (int i = 0; i < 10000; ++i) {
    uint64_t x = engine();
    REQUIRE(x == reference());
    REQUIRE(static_cast<int64_t>(x) == state);
  }
}

TEST_CASE("random engine: seeds normalized as TVM's, fork_seed from the stream", "[sampling]") {
  CHECK(LinearCongruentialEngine::normalize_seed(0) == 1);
  CHECK(LinearCongruentialEngine::normalize_seed(2147483647) == 1);
  CHECK(LinearCongruentialEngine::normalize_seed(2147483648LL + 5) == 6);
  CHECK(LinearCongruentialEngine::normalize_seed(42) == 42);
  int64_t device = LinearCongruentialEngine::normalize_seed(-1);
  CHECK((device >= 1 && device < 2147483647));
  CHECK_THROWS_AS(LinearCongruentialEngine::normalize_seed(-5), tsch::UserError);
  int64_t state = 42;
  int64_t forked = LinearCongruentialEngine(&state).fork_seed();
  CHECK(state == 42 * 48271);
  CHECK(forked == (42LL * 48271 * 32767) % 1999999973);
}

TEST_CASE("sampling: perfect tiles multiply to the extent and respect the innermost limit", "[sampling]") {
  int64_t state = 7;
  for (int64_t extent : {1, 2, 17, 128, 257, 1470, 65537, 2147483647}) {
    for (int64_t n : {1, 2, 3, 4, 5}) {
      std::vector<int64_t> tile = tsch::schedule::sample_perfect_tile(extent, n, -1, state);
      REQUIRE(static_cast<int64_t>(tile.size()) == n);
      REQUIRE(product(tile) == extent);
      if (n >= 2) {
        std::vector<int64_t> limited = tsch::schedule::sample_perfect_tile(extent, n, 16, state);
        REQUIRE(product(limited) == extent);
        REQUIRE(limited.back() <= 16);
      }
    }
  }
  // A limit needs two parts at least, as in TVM.
  CHECK_THROWS_AS(tsch::schedule::sample_perfect_tile(128, 1, 16, state), tsch::UserError);
}

TEST_CASE("sampling: a state gives the same tiles again, and every 2-way tiling of 128 is drawn", "[sampling]") {
  int64_t a = 42, b = 42;
  std::map<int64_t, int> inner;
  for (int i = 0; i < 400; ++i) {
    std::vector<int64_t> x = tsch::schedule::sample_perfect_tile(128, 2, -1, a);
    REQUIRE(x == tsch::schedule::sample_perfect_tile(128, 2, -1, b));
    ++inner[x[1]];
  }
  CHECK(inner.size() == 8);  // 1, 2, 4, ..., 128
  CHECK(a == b);
}

TEST_CASE("sampling: partitioned tiles have an inner part that is a multiple of the factor", "[sampling]") {
  int64_t state = 3;
  for (int i = 0; i < 50; ++i) {
    std::vector<int64_t> tile = tsch::schedule::sample_partitioned_tile(96, 4, 2, 8, state);
    REQUIRE(product(tile) == 96);
    REQUIRE((tile[2] * tile[3]) % 8 == 0);
  }
}

TEST_CASE("sampling: categorical draws follow the weights and skip zero weights", "[sampling]") {
  int64_t state = 11;
  std::map<int64_t, int> counts;
  for (int i = 0; i < 2000; ++i) ++counts[tsch::schedule::sample_categorical({0.0, 1.0, 3.0}, state)];
  CHECK(counts[0] == 0);
  CHECK(counts[1] > 350);
  CHECK(counts[1] < 650);
}
