// Source files and locations: every AST node and every diagnostic points into a SourceFile.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tsch {

// The text of one script, REPL input or f-string fragment. Kept alive for the whole process
// (see SourceFile::make) so that locations stay valid in tracebacks and closures.
class SourceFile {
 public:
  // Creates and registers a source file; the returned pointer lives until exit.
  static const SourceFile* make(std::string name, std::string text, int first_line = 1,
                                const SourceFile* origin = nullptr);

  const std::string& name() const { return name_; }
  const std::string& text() const { return text_; }
  // Line numbers are 1-based and include first_line's offset (REPL inputs number on).
  int first_line() const { return first_line_; }
  // The text of line `line` (without its newline); empty when out of range. A fragment
  // (an f-string field parsed on its own) shows the line of the file it came from.
  std::string_view line_text(int line) const;

 private:
  SourceFile(std::string name, std::string text, int first_line, const SourceFile* origin);
  const SourceFile* origin_;
  std::string name_;
  std::string text_;
  int first_line_;
  std::vector<size_t> line_starts_;
};

// A point in a source file. `col` is 1-based and counts code points; `len` is the number of
// code points the caret underlines (at least 1).
struct SourceLoc {
  const SourceFile* file = nullptr;
  int line = 0;
  int col = 0;
  int len = 1;

  bool valid() const { return file != nullptr && line > 0; }
};

}  // namespace tsch
