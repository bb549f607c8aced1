#include "support/closest_name.h"

#include <algorithm>
#include <limits>
#include <string_view>

namespace tsch {

namespace {

constexpr size_t kMaxCandidates = 750;
constexpr size_t kMaxStringSize = 40;
constexpr size_t kMoveCost = 2;
constexpr size_t kCaseCost = 1;

size_t substitution_cost(char a, char b) {
  if (a == b) return 0;
  auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
  return lower(a) == lower(b) ? kCaseCost : kMoveCost;
}

// The edit distance of a and b, or max_cost + 1 once it is known to exceed max_cost.
size_t levenshtein(std::string_view a, std::string_view b, size_t max_cost) {
  if (a == b) return 0;
  while (!a.empty() && !b.empty() && a.front() == b.front()) a.remove_prefix(1), b.remove_prefix(1);
  while (!a.empty() && !b.empty() && a.back() == b.back()) a.remove_suffix(1), b.remove_suffix(1);
  if (a.empty() || b.empty()) return (a.size() + b.size()) * kMoveCost;
  if (a.size() > kMaxStringSize || b.size() > kMaxStringSize) return max_cost + 1;
  if (a.size() > b.size()) std::swap(a, b);  // a is the shorter
  if ((b.size() - a.size()) * kMoveCost > max_cost) return max_cost + 1;
  // row[i]: the distance between a's first i characters and b's first j (j advancing).
  std::vector<size_t> row(a.size());
  for (size_t i = 0; i < a.size(); ++i) row[i] = (i + 1) * kMoveCost;
  size_t result = 0;
  for (size_t j = 0; j < b.size(); ++j) {
    size_t distance = j * kMoveCost;  // the diagonal: a[0..i) against b[0..j)
    result = distance;
    size_t row_min = std::numeric_limits<size_t>::max();
    for (size_t i = 0; i < a.size(); ++i) {
      size_t substitute = distance + substitution_cost(a[i], b[j]);
      distance = row[i];
      size_t insert_delete = std::min(result, row[i]) + kMoveCost;
      result = std::min(insert_delete, substitute);
      row[i] = result;
      row_min = std::min(row_min, result);
    }
    if (row_min > max_cost) return max_cost + 1;
  }
  return result;
}

}  // namespace

std::string closest_name(const std::string& wrong, const std::vector<std::string>& candidates) {
  if (candidates.size() > kMaxCandidates) return "";
  std::string best;
  size_t best_distance = std::numeric_limits<size_t>::max();
  for (const std::string& item : candidates) {
    if (item == wrong) continue;
    // No more than a third of the characters involved changed; no match already beaten.
    size_t max_distance = (wrong.size() + item.size() + 3) * kMoveCost / 6;
    if (best_distance != std::numeric_limits<size_t>::max()) max_distance = std::min(max_distance, best_distance - 1);
    size_t distance = levenshtein(wrong, item, max_distance);
    if (distance > max_distance) continue;
    if (best.empty() || distance < best_distance) best = item, best_distance = distance;
  }
  return best;
}

}  // namespace tsch
