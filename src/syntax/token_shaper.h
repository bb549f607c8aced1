// Python's layout rules over a raw token stream: NEWLINE tokens carrying the next line's
// indentation become NEWLINE/INDENT/DEDENT, newlines inside brackets and blank lines are
// dropped, and bad characters are reported. The ANTLR lexer's base (TschLexerBase) runs
// every raw token through it.
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "antlr4-runtime.h"

namespace tsch {

// A lexing error with a 0-based column; parser.cc turns it into a SyntaxError.
struct LexError {
  size_t line;
  size_t column;
  std::string message;
  bool at_end_of_input;
};

class TokenShaper {
 public:
  struct OpenBracket {
    size_t line, column;
    std::string text;
  };

  void reset();
  // Set for f-string fields, which may start with spaces and have no statement structure.
  void set_expression_mode(bool on) { expression_mode_ = on; }

  // Feeds one raw token; `next_char` is the input character right after it (for telling
  // blank and comment-only lines). May throw LexError.
  void push(std::unique_ptr<antlr4::Token> raw, size_t next_char);
  bool empty() const { return pending_.empty(); }
  std::unique_ptr<antlr4::Token> pop();

  int bracket_depth() const { return static_cast<int>(open_brackets_.size()); }
  const std::vector<OpenBracket>& open_brackets() const { return open_brackets_; }

 private:
  std::unique_ptr<antlr4::Token> make(size_t type, const std::string& text, size_t line, size_t column);
  void handle_newline(const antlr4::Token& newline, size_t next_char);
  void handle_eof(std::unique_ptr<antlr4::Token> eof);
  [[noreturn]] void fail(const antlr4::Token& at, std::string message, bool at_end = false);

  std::deque<std::unique_ptr<antlr4::Token>> pending_;
  std::vector<int> indents_{0};
  std::vector<int> alt_indents_{0};  // the same indentation with tabs as one column (TabError)
  std::vector<OpenBracket> open_brackets_;
  static constexpr size_t kMaxBracketDepth = 200;
  static constexpr size_t kMaxIndentDepth = 100;
  struct LastToken {
    size_t type = 0, line = 0, column = 0;
    std::string text;
  } last_;                       // the previous token passed on
  bool seen_statement_ = false;  // something other than NEWLINE was emitted
  bool last_was_newline_ = true;
  bool expression_mode_ = false;
};

}  // namespace tsch
