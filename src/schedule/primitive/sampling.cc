// Sampling for tuning: perfect tilings and categorical choices, deterministic for a given
// random state (a 64-bit linear congruential generator, as TVM's schedules use one).
#include <algorithm>
#include <cmath>

#include "schedule/primitives.h"

namespace tsch::schedule {

namespace {

uint64_t next(uint64_t& state) {
  // Knuth's MMIX constants; the high bits are used.
  state = state * 6364136223846793005ULL + 1442695040888963407ULL;
  return state >> 33;
}

void tilings(int64_t extent, int64_t parts, int64_t max_innermost, std::vector<int64_t>& current,
             std::vector<std::vector<int64_t>>& out) {
  if (parts == 1) {
    if (max_innermost <= 0 || extent <= max_innermost) {
      current.push_back(extent);
      out.push_back(current);
      current.pop_back();
    }
    return;
  }
  for (int64_t d = 1; d <= extent; ++d) {
    if (extent % d != 0) continue;
    current.push_back(d);
    tilings(extent / d, parts - 1, max_innermost, current, out);
    current.pop_back();
  }
}

}  // namespace

// The prime factors of n, with multiplicity. Trial division stops at 10^6: a cofactor left
// then counts as one factor (it may be composite, which only leaves some tilings out).
std::vector<int64_t> prime_factors(int64_t n) {
  std::vector<int64_t> out;
  for (int64_t p = 2; p <= 1000000 && p * p <= n; ++p) {
    while (n % p == 0) {
      out.push_back(p);
      n /= p;
    }
  }
  if (n > 1) out.push_back(n);
  return out;
}

// How many tilings `tilings` would list, saturating at `cap`.
int64_t count_tilings(int64_t extent, int64_t parts, int64_t max_innermost, int64_t cap) {
  if (parts == 1) return max_innermost <= 0 || extent <= max_innermost ? 1 : 0;
  int64_t total = 0;
  for (int64_t d = 1; d <= extent && total < cap; ++d)
    if (extent % d == 0) total += count_tilings(extent / d, parts - 1, max_innermost, cap - total);
  return std::min(total, cap);
}

std::vector<int64_t> sample_perfect_tile(int64_t extent, int64_t n, int64_t max_innermost_factor, uint64_t& rand_state) {
  // Small spaces: every tiling listed, one drawn uniformly.
  constexpr int64_t kEnumerate = 100000;
  if (extent <= (int64_t{1} << 16) && count_tilings(extent, n, max_innermost_factor, kEnumerate + 1) <= kEnumerate) {
    std::vector<std::vector<int64_t>> all;
    std::vector<int64_t> current;
    tilings(extent, n, max_innermost_factor, current, all);
    if (all.empty()) {
      std::vector<int64_t> trivial(static_cast<size_t>(n), 1);
      trivial[0] = extent;
      return trivial;
    }
    return all[next(rand_state) % all.size()];
  }
  // Large spaces (many parts, or a long loop), as TVM samples: the innermost factor among
  // the divisors within the limit, then each remaining prime factor to a random outer part.
  std::vector<int64_t> factors(static_cast<size_t>(n), 1);
  std::vector<int64_t> primes = prime_factors(extent);
  std::vector<int64_t> divisors{1};
  for (size_t i = 0; i < primes.size();) {
    size_t j = i;
    while (j < primes.size() && primes[j] == primes[i]) ++j;
    size_t count = divisors.size();
    int64_t power = 1;
    for (size_t k = i; k < j; ++k) {
      power *= primes[i];
      for (size_t m = 0; m < count; ++m)
        if (max_innermost_factor <= 0 || divisors[m] <= max_innermost_factor / power) divisors.push_back(divisors[m] * power);
    }
    i = j;
  }
  int64_t inner = n == 1 ? extent : divisors[next(rand_state) % divisors.size()];
  factors.back() = inner;
  for (int64_t p : prime_factors(extent / inner)) factors[next(rand_state) % static_cast<uint64_t>(n - 1)] *= p;
  return factors;
}

int64_t sample_categorical(const std::vector<double>& probs, uint64_t& rand_state) {
  double total = 0;
  for (double p : probs) total += p;
  double r = static_cast<double>(next(rand_state) % 1000000007ULL) / 1000000007.0 * total;
  for (size_t i = 0; i < probs.size(); ++i) {
    if (r < probs[i]) return static_cast<int64_t>(i);
    r -= probs[i];
  }
  return static_cast<int64_t>(probs.size()) - 1;
}

}  // namespace tsch::schedule

namespace tsch::schedule {

std::vector<uint64_t> compute_location_candidates(const ScheduleState& s, uint64_t block) {
  std::vector<uint64_t> consumers = get_consumers(s, block);
  std::vector<uint64_t> out;
  if (consumers.empty()) return out;
  // Loops that enclose every consumer (and not the block itself).
  std::vector<uint64_t> own = s.enclosing_loops(block);
  for (uint64_t l : s.enclosing_loops(consumers[0])) {
    bool all = true;
    for (uint64_t c : consumers) {
      std::vector<uint64_t> loops = s.enclosing_loops(c);
      all &= std::find(loops.begin(), loops.end(), l) != loops.end();
    }
    if (all && std::find(own.begin(), own.end(), l) == own.end()) out.push_back(l);
  }
  return out;
}

}  // namespace tsch::schedule
