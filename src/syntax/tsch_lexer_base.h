// Base class of the generated lexer: turns raw NEWLINE tokens into NEWLINE/INDENT/DEDENT,
// drops newlines inside brackets and blank lines, and reports bad characters.
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "antlr4-runtime.h"

namespace tsch {

// A lexing error with a 0-based column, raised out of nextToken(); parser.cc converts it
// into a SyntaxError with a source location.
struct LexError {
  size_t line;
  size_t column;
  std::string message;
  bool at_end_of_input;
};

class TschLexerBase : public antlr4::Lexer {
 public:
  explicit TschLexerBase(antlr4::CharStream* input) : antlr4::Lexer(input) {}

  std::unique_ptr<antlr4::Token> nextToken() override;
  void reset() override;

  // Set for f-string fields, which may start with spaces and have no statement structure.
  void set_expression_mode(bool on) { expression_mode_ = on; }
  // Bracket nesting at the point lexing stopped; the REPL uses it to ask for more lines.
  int bracket_depth() const { return bracket_depth_; }
  // The innermost bracket still open (0-based column), when bracket_depth() > 0.
  struct OpenBracket {
    size_t line, column;
    std::string text;
  };
  const std::vector<OpenBracket>& open_brackets() const { return open_brackets_; }

 private:
  std::unique_ptr<antlr4::Token> make_token(size_t type, const std::string& text, size_t line,
                                            size_t column);
  void handle_newline(std::unique_ptr<antlr4::Token> newline);
  void handle_eof(std::unique_ptr<antlr4::Token> eof);
  [[noreturn]] void fail(const antlr4::Token& at, std::string message, bool at_end = false);

  std::deque<std::unique_ptr<antlr4::Token>> pending_;
  std::vector<int> indents_{0};
  int bracket_depth_ = 0;
  std::vector<OpenBracket> open_brackets_;
  bool seen_statement_ = false;  // something other than NEWLINE was emitted
  bool last_was_newline_ = true;
  bool expression_mode_ = false;
};

}  // namespace tsch

// The generated lexer lives in namespace tsgen and names its base class unqualified.
namespace tsgen {
using tsch::TschLexerBase;
}
