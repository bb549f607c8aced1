#include "support/diagnostics.h"

#include <fmt/format.h>

namespace tsch {
namespace {

// Number of bytes taken by the first `count` code points of `text`.
size_t utf8_prefix_bytes(std::string_view text, int count) {
  size_t i = 0;
  while (i < text.size() && count > 0) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    size_t width = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : 4;
    i += width;
    --count;
  }
  return std::min(i, text.size());
}

}  // namespace

std::string render_diagnostic(const SourceLoc& loc, const std::string& severity, const std::string& message,
                              bool color) {
  const char* bold = color ? "\033[1m" : "";
  const char* red = color ? "\033[1;31m" : "";
  const char* green = color ? "\033[1;32m" : "";
  const char* reset = color ? "\033[0m" : "";
  std::string out;
  if (loc.valid()) {
    out = fmt::format("{}{}:{}:{}: {}{}: {}{}{}\n", bold, loc.file->name(), loc.line, loc.col, red, severity, reset,
                      message, reset);
    std::string_view line = loc.file->line_text(loc.line);
    if (!line.empty() || loc.col == 1) {
      out += fmt::format("    {}\n", line);
      // Keep tabs so the caret lines up under tab-indented source.
      std::string pad;
      std::string_view prefix = line.substr(0, utf8_prefix_bytes(line, loc.col - 1));
      for (char c : prefix) {
        if (c == '\t')
          pad += '\t';
        else if ((static_cast<unsigned char>(c) & 0xC0) != 0x80)
          pad += ' ';
      }
      int tilde = std::max(0, loc.len - 1);
      out += fmt::format("    {}{}^{}{}\n", pad, green, std::string(tilde, '~'), reset);
    }
  } else {
    out = fmt::format("{}{}: {}{}\n", red, severity, reset, message);
  }
  return out;
}

void internal_fail(const char* file, int line, const std::string& message) {
  throw InternalError(fmt::format("internal error (a bug in tsch) at {}:{}: {}", file, line, message));
}

}  // namespace tsch
