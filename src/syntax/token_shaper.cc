#include "syntax/token_shaper.h"

#include "TschLexer.h"

namespace tsch {

using tsgen::TschLexer;

void TokenShaper::reset() {
  pending_.clear();
  indents_.assign(1, 0);
  alt_indents_.assign(1, 0);
  open_brackets_.clear();
  seen_statement_ = false;
  last_was_newline_ = true;
  last_ = {};
}

std::unique_ptr<antlr4::Token> TokenShaper::make(size_t type, const std::string& text, size_t line, size_t column) {
  auto token = std::make_unique<antlr4::CommonToken>(type, text);
  token->setLine(line);
  token->setCharPositionInLine(column);
  token->setTokenIndex(-1);
  return token;
}

void TokenShaper::fail(const antlr4::Token& at, std::string message, bool at_end) {
  throw LexError{at.getLine(), at.getCharPositionInLine(), std::move(message), at_end};
}

// Width of the indentation carried by a NEWLINE token (tabs advance to a multiple of 8,
// as Python does).
static int indentation_width(const std::string& text, int tab_size = 8) {
  int width = 0;
  for (char c : text) {
    if (c == ' ')
      ++width;
    else if (c == '\t')
      width = (width / tab_size + 1) * tab_size;
    else if (c == '\n' || c == '\r' || c == '\f')
      width = 0;
  }
  return width;
}

void TokenShaper::handle_newline(const antlr4::Token& newline, size_t next_char) {
  if (!open_brackets_.empty()) return;  // implicit line joining inside brackets
  bool blank = next_char == '\n' || next_char == '\r' || next_char == '\f' || next_char == '#' ||
               next_char == antlr4::Token::EOF;
  if (blank || !seen_statement_ || last_was_newline_) return;
  size_t line = newline.getLine();
  size_t column = newline.getCharPositionInLine();
  pending_.push_back(make(TschLexer::NEWLINE, "\n", line, column));
  last_was_newline_ = true;
  if (expression_mode_) return;
  // The indentation belongs to the next line.
  int width = indentation_width(newline.getText());
  // CPython's TabError: the indentation must compare the same way with tabs as 1 column as
  // with tabs to the next multiple of 8, or its meaning depends on the tab size.
  int alt_width = indentation_width(newline.getText(), 1);
  size_t next_line = line + 1;
  size_t next_col = static_cast<size_t>(width);
  auto tab_error = [&] {
    throw LexError{next_line, next_col, "inconsistent use of tabs and spaces in indentation", false};
  };
  if (width > indents_.back()) {
    if (alt_width <= alt_indents_.back()) tab_error();
    // CPython's limit; it also bounds how deep the parsers and the AST builder recurse
    // through nested blocks.
    if (indents_.size() > kMaxIndentDepth) throw LexError{next_line, next_col, "too many levels of indentation", false};
    indents_.push_back(width);
    alt_indents_.push_back(alt_width);
    pending_.push_back(make(TschLexer::INDENT, "<INDENT>", next_line, next_col));
    return;
  }
  while (width < indents_.back()) {
    indents_.pop_back();
    alt_indents_.pop_back();
    pending_.push_back(make(TschLexer::DEDENT, "<DEDENT>", next_line, next_col));
  }
  if (width != indents_.back()) {
    throw LexError{next_line, next_col, "unindent does not match any outer indentation level", false};
  }
  if (alt_width != alt_indents_.back()) tab_error();
}

void TokenShaper::handle_eof(std::unique_ptr<antlr4::Token> eof) {
  size_t line = eof->getLine();
  size_t column = eof->getCharPositionInLine();
  if (seen_statement_ && !last_was_newline_) {
    pending_.push_back(make(TschLexer::NEWLINE, "\n", line, column));
    last_was_newline_ = true;
  }
  while (indents_.size() > 1) {
    indents_.pop_back();
    alt_indents_.pop_back();
    pending_.push_back(make(TschLexer::DEDENT, "<DEDENT>", line, column));
  }
  pending_.push_back(std::move(eof));
}

void TokenShaper::push(std::unique_ptr<antlr4::Token> token, size_t next_char) {
  switch (token->getType()) {
    case TschLexer::NEWLINE:
      handle_newline(*token, next_char);
      return;
    case antlr4::Token::EOF:
      handle_eof(std::move(token));
      return;
    case TschLexer::ERROR_CHAR: {
      std::string text = token->getText();
      if (text == "\\") fail(*token, "unexpected character after line continuation '\\'");
      if (text == "\"" || text == "'") fail(*token, "unterminated triple-quoted string", true);
      fail(*token, "invalid character '" + text + "'");
    }
    case TschLexer::UNTERMINATED_STRING: {
      // `"""abc` scans as the empty string `""` followed by `"abc`: an unterminated
      // triple-quoted string, which more lines may still close (the REPL continues).
      std::string text = token->getText();
      bool after_empty = last_.type == TschLexer::STRING && last_.line == token->getLine() &&
                         last_.column + last_.text.size() == token->getCharPositionInLine() && last_.text.size() >= 2 &&
                         last_.text.compare(last_.text.size() - 2, 2, std::string(2, text[0])) == 0 &&
                         (text[0] == '"' || text[0] == '\'');
      if (after_empty)
        throw LexError{last_.line, last_.column + last_.text.size() - 2, "unterminated triple-quoted string literal",
                       true};
      fail(*token, "unterminated string literal");
    }
    case TschLexer::NAME:
      // The lexer takes any non-ASCII letter into names; a byte-order mark past the start of
      // the file (U+FEFF, invisible) is refused as Python does.
      if (token->getText().find("\xEF\xBB\xBF") != std::string::npos)
        fail(*token, "invalid non-printable character U+FEFF");
      break;
    case TschLexer::OPEN_PAREN:
    case TschLexer::OPEN_BRACK:
    case TschLexer::OPEN_BRACE:
      // CPython's limit; it also bounds how deep the parsers and the AST builder recurse.
      if (open_brackets_.size() >= kMaxBracketDepth) fail(*token, "too many nested parentheses");
      open_brackets_.push_back({token->getLine(), token->getCharPositionInLine(), token->getText()});
      break;
    case TschLexer::CLOSE_PAREN:
    case TschLexer::CLOSE_BRACK:
    case TschLexer::CLOSE_BRACE:
      if (!open_brackets_.empty()) open_brackets_.pop_back();
      break;
    default:
      break;
  }
  if (!seen_statement_ && !expression_mode_ && token->getCharPositionInLine() > 0) fail(*token, "unexpected indent");
  seen_statement_ = true;
  last_was_newline_ = false;
  last_.type = token->getType();
  last_.line = token->getLine();
  last_.column = token->getCharPositionInLine();
  if (last_.type == TschLexer::STRING) last_.text = token->getText();  // only strings are looked at
  pending_.push_back(std::move(token));
}

std::unique_ptr<antlr4::Token> TokenShaper::pop() {
  std::unique_ptr<antlr4::Token> token = std::move(pending_.front());
  pending_.pop_front();
  return token;
}

}  // namespace tsch
