#include "repl/highlight.h"

#include <cctype>
#include <unordered_set>

namespace tsch::repl {

namespace {

const char* kKeyword = "\033[35m";  // magenta
const char* kBuiltin = "\033[36m";  // cyan
const char* kBlock = "\033[1;33m";  // bold yellow: block names
const char* kNumber = "\033[34m";   // blue
const char* kString = "\033[32m";   // green
const char* kComment = "\033[2m";   // dim
const char* kReset = "\033[0m";

bool is_keyword(const std::string& w) {
  static const std::unordered_set<std::string> words = {
      "def",  "class", "for",   "in",       "with", "if",     "elif",    "else", "return", "import",
      "from", "as",    "while", "lambda",   "and",  "or",     "not",     "is",   "True",   "False",
      "None", "pass",  "break", "continue", "try",  "except", "finally", "raise"};
  return words.count(w) > 0;
}

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

}  // namespace

std::string highlight_line(const std::string& line) {
  std::string out;
  size_t i = 0, n = line.size();
  bool block_name_next = false;  // the string after `T.block(` is a block name
  auto paint = [&](const char* colour, size_t from, size_t to) {
    out += colour + line.substr(from, to - from) + kReset;
  };
  while (i < n) {
    char c = line[i];
    if (c == '#') {
      paint(kComment, i, n);
      break;
    }
    if (c == '"' || c == '\'') {
      size_t j = i + 1;
      while (j < n && line[j] != c) j += line[j] == '\\' ? 2 : 1;
      j = std::min(n, j + 1);
      paint(block_name_next ? kBlock : kString, i, j);
      block_name_next = false;
      i = j;
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      size_t j = i;
      while (j < n && (ident_char(line[j]) || line[j] == '.')) ++j;
      paint(kNumber, i, j);
      i = j;
      continue;
    }
    if (ident_char(c)) {
      size_t j = i;
      while (j < n && ident_char(line[j])) ++j;
      std::string word = line.substr(i, j - i);
      if ((word == "T" || word == "R" || word == "I") && j + 1 < n && line[j] == '.' && ident_char(line[j + 1])) {
        size_t k = j + 1;
        while (k < n && ident_char(line[k])) ++k;
        std::string name = line.substr(j + 1, k - j - 1);
        while (k + 1 < n && line[k] == '.' && ident_char(line[k + 1])) {  // T.axis.spatial
          ++k;
          while (k < n && ident_char(line[k])) ++k;
        }
        block_name_next = name == "block" || name == "sblock";
        paint(kBuiltin, i, k);
        i = k;
        continue;
      }
      if (is_keyword(word))
        paint(kKeyword, i, j);
      else
        out += word;
      i = j;
      continue;
    }
    if (c == '@') {  // decorators read as builtins
      size_t j = i + 1;
      while (j < n && (ident_char(line[j]) || line[j] == '.')) ++j;
      paint(kBuiltin, i, j);
      i = j;
      continue;
    }
    out += c;
    ++i;
  }
  return out;
}

std::string highlight(const std::string& text) {
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    out += highlight_line(text.substr(start, end - start));
    if (end < text.size()) out += '\n';
    start = end + 1;
  }
  return out;
}

}  // namespace tsch::repl
