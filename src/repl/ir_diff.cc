// Longest-common-subsequence line diff (hand-written: the printed modules are a few hundred
// lines at most, so the quadratic table is instant and needs no library).
#include "repl/ir_diff.h"

#include <sstream>
#include <vector>

#include "repl/highlight.h"

namespace tsch::repl {

namespace {

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

enum class Op { Keep, Add, Remove };

struct Edit {
  Op op;
  const std::string* line;
};

std::vector<Edit> diff_lines(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  size_t n = a.size(), m = b.size();
  // lcs[i][j]: common subsequence length of a[i:] and b[j:].
  std::vector<std::vector<int>> lcs(n + 1, std::vector<int>(m + 1, 0));
  for (size_t i = n; i-- > 0;) {
    for (size_t j = m; j-- > 0;) {
      lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  std::vector<Edit> edits;
  size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] == b[j]) {
      edits.push_back({Op::Keep, &b[j]});
      ++i, ++j;
    } else if (i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1])) {
      edits.push_back({Op::Remove, &a[i++]});
    } else {
      edits.push_back({Op::Add, &b[j++]});
    }
  }
  return edits;
}

}  // namespace

std::string render_diff(const std::string& before, const std::string& after, const DiffStyle& style) {
  if (before == after) return {};
  std::vector<std::string> a = split_lines(before), b = split_lines(after);
  std::vector<Edit> edits = diff_lines(a, b);
  // Which unchanged lines to show: all, or those within `context` of a change.
  std::vector<bool> show(edits.size(), !style.fold);
  for (size_t k = 0; k < edits.size(); ++k) {
    if (edits[k].op == Op::Keep) continue;
    size_t lo = k >= static_cast<size_t>(style.context) ? k - style.context : 0;
    size_t hi = std::min(edits.size() - 1, k + style.context);
    for (size_t x = lo; x <= hi; ++x) show[x] = true;
  }
  const char* green = style.color ? "\033[32m" : "";
  const char* red = style.color ? "\033[31m" : "";
  const char* reset = style.color ? "\033[0m" : "";
  std::string out;
  bool folded = false;
  for (size_t k = 0; k < edits.size(); ++k) {
    const Edit& e = edits[k];
    if (e.op == Op::Keep && !show[k]) {
      if (!folded) out += "  ...\n";
      folded = true;
      continue;
    }
    folded = false;
    if (e.op == Op::Keep) out += "  " + (style.color ? highlight_line(*e.line) : *e.line) + "\n";
    if (e.op == Op::Add) out += std::string(green) + "+ " + *e.line + reset + "\n";
    if (e.op == Op::Remove) out += std::string(red) + "- " + *e.line + reset + "\n";
  }
  return out;
}

}  // namespace tsch::repl
