// TVM's random engine (support::LinearCongruentialEngine): std::minstd_rand's recurrence over
// a random state held elsewhere (a schedule's), usable as the generator of the std
// distributions. Schedules sample through it with libstdc++'s distributions, as TVM does, so a
// seed gives TVM's decisions bit for bit.
#pragma once

#include <cstdint>
#include <random>

#include "support/error.h"

namespace tsch::support {

class LinearCongruentialEngine {
 public:
  using TRandState = int64_t;
  using result_type = uint64_t;
  static constexpr TRandState multiplier = 48271;
  static constexpr TRandState increment = 0;
  static constexpr TRandState modulus = 2147483647;
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return modulus - 1; }

  explicit LinearCongruentialEngine(TRandState* rand_state) : rand_state_(rand_state) {}

  // The state stays in [1, modulus - 1], so the product fits in 64 bits.
  result_type operator()() {
    *rand_state_ = (*rand_state_ * multiplier + increment) % modulus;
    return static_cast<result_type>(*rand_state_);
  }

  // A seed as a valid state: -1 draws one from the device, others are taken modulo the
  // modulus, and 0 (a fixed point of the recurrence) becomes 1.
  static TRandState normalize_seed(TRandState seed) {
    if (seed == -1) {
      seed = static_cast<TRandState>(std::random_device()() % modulus);
    } else {
      seed %= modulus;
    }
    if (seed == 0) seed = 1;
    TSCH_USER_ASSERT(seed >= 0, ValueError) << "Random seed must be non-negative";
    return seed;
  }

  // A seed for another engine, drawn from this one with other primes so that the two
  // streams differ (TVM's ForkSeed).
  TRandState fork_seed() { return static_cast<TRandState>((*this)() * 32767) % 1999999973; }

 private:
  TRandState* rand_state_;
};

}  // namespace tsch::support
