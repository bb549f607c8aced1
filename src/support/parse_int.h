// Decimal digits to an integer without the exceptions of std::stoi (an out_of_range from a
// user's "float3277777777777" is a user error, not a crash): nullopt when the text is not all
// digits or the value exceeds `max`.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace tsch {

inline std::optional<int64_t> parse_decimal(std::string_view text, int64_t max = INT64_MAX) {
  if (text.empty()) return std::nullopt;
  int64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    if (value > (max - (c - '0')) / 10) return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return value;
}

}  // namespace tsch
