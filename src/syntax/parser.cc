// Runs the ANTLR lexer and parser, two-stage (TOOLCHAIN.md): SLL prediction, which takes
// any valid input, then — only when SLL reports an error — full LL, which decides whether the
// input really is invalid and turns the first syntax error into a SyntaxError with a
// Python-like message.
#include "syntax/parser.h"

#include "TschLexer.h"
#include "TschParser.h"
#include "antlr4-runtime.h"
#include "syntax/ast_builder.h"
#include "syntax/parse_guard.h"

namespace tsch {
namespace {

using tsgen::TschLexer;
using tsgen::TschParser;

// Thrown from the error listener to stop at the first error.
struct FirstSyntaxError {
  SourceLoc loc;
  std::string message;
  bool at_end;
};

std::string describe_token(antlr4::Token* token) {
  switch (token->getType()) {
    case antlr4::Token::EOF:
      return "end of input";
    case TschLexer::NEWLINE:
      return "end of line";
    case TschLexer::INDENT:
      return "indent";
    case TschLexer::DEDENT:
      return "dedent";
    default:
      return "'" + token->getText() + "'";
  }
}

class ErrorListener : public antlr4::BaseErrorListener {
 public:
  explicit ErrorListener(const SourceFile* source) : source_(source) {}

  void syntaxError(antlr4::Recognizer* recognizer, antlr4::Token* offending, size_t line, size_t column,
                   const std::string& msg, std::exception_ptr) override {
    SourceLoc at{source_, static_cast<int>(line), static_cast<int>(column) + 1, 1};
    auto* parser = dynamic_cast<antlr4::Parser*>(recognizer);
    if (parser == nullptr || offending == nullptr) throw FirstSyntaxError{at, msg, false};
    std::string text = offending->getText();
    if (offending->getType() != antlr4::Token::EOF && offending->getType() != TschLexer::NEWLINE &&
        offending->getType() != TschLexer::INDENT && offending->getType() != TschLexer::DEDENT) {
      at.len = std::max<int>(1, static_cast<int>(text.size()));
    }
    bool at_end = offending->getType() == antlr4::Token::EOF ||
                  (offending->getType() == TschLexer::NEWLINE &&
                   offending->getTokenIndex() + 2 >= parser->getTokenStream()->size());
    antlr4::misc::IntervalSet expected = parser->getExpectedTokens();
    std::string message;
    if (offending->getType() == TschLexer::INDENT) {
      message = "unexpected indent";
    } else if (expected.contains(static_cast<size_t>(TschLexer::INDENT))) {
      message = "expected an indented block";
    } else if (expected.size() == 1 && expected.getMinElement() == TschLexer::COLON &&
               dynamic_cast<TschParser::Dict_itemContext*>(parser->getContext()) != nullptr) {
      // `{1: 2, 3}`: Python's message, under the key that lacks its value.
      antlr4::Token* key = parser->getContext()->getStart();
      at = SourceLoc{source_, static_cast<int>(key->getLine()), static_cast<int>(key->getCharPositionInLine()) + 1,
                     std::max<int>(1, static_cast<int>(key->getText().size()))};
      message = "':' expected after dictionary key";
    } else if (expected.size() == 1 && expected.getMinElement() != TschLexer::NAME &&
               expected.getMinElement() != TschLexer::NEWLINE) {
      std::string want = parser->getVocabulary().getLiteralName(expected.getMinElement());
      if (want.empty()) want = parser->getVocabulary().getDisplayName(expected.getMinElement());
      message = "invalid syntax: expected " + want + ", found " + describe_token(offending);
    } else if (offending->getType() == TschLexer::DEDENT) {
      message = "invalid syntax: unexpected end of block";
    } else {
      message = "invalid syntax: unexpected " + describe_token(offending);
    }
    // An error at EOF inside an open construct means more input could complete it.
    if (offending->getType() == TschLexer::DEDENT &&
        offending->getTokenIndex() + 2 >= parser->getTokenStream()->size()) {
      at_end = true;
    }
    throw FirstSyntaxError{at, message, at_end};
  }

 private:
  const SourceFile* source_;
};

// What Python refuses in source text before tokenizing: NUL bytes, malformed UTF-8 (ANTLR's
// input stream would throw its own C++ error; overlong forms and surrogates included), and
// (a byte-order mark outside strings is the token shaper's to refuse).
void check_source_text(const SourceFile* source) {
  const std::string& text = source->text();
  int line = source->first_line(), col = 1;
  auto fail = [&](const std::string& message) { throw SyntaxError(SourceLoc{source, line, col, 1}, message); };
  auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  for (size_t i = 0; i < text.size();) {
    unsigned char c = byte(i);
    if (c == 0) fail("source code cannot contain null bytes");
    size_t width = c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 : (c >> 4) == 0xE ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    bool ok = width > 0 && i + width <= text.size();
    for (size_t k = 1; ok && k < width; ++k) ok = (byte(i + k) & 0xC0) == 0x80;
    // The second byte's range rules out overlong forms, surrogates and code points past U+10FFFF.
    if (ok && width == 3) ok = !(c == 0xE0 && byte(i + 1) < 0xA0) && !(c == 0xED && byte(i + 1) >= 0xA0);
    if (ok && width == 4) ok = !(c == 0xF0 && byte(i + 1) < 0x90) && !(c == 0xF4 && byte(i + 1) >= 0x90);
    if (!ok) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02x", c);
      fail(std::string("(unicode error) 'utf-8' codec can't decode byte ") + hex + ": invalid UTF-8 in source");
    }
    if (c == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
    i += width;
  }
}

template <typename Result, typename Entry>
Result run_parser(const SourceFile* source, bool expression_mode, Entry entry) {
  check_source_text(source);
  int line_offset = source->first_line() - 1;
  auto shift = [&](SourceLoc at) {
    at.line += line_offset;
    return at;
  };
  antlr4::ANTLRInputStream input(source->text());
  TschLexer lexer(&input);
  lexer.shaper().set_expression_mode(expression_mode);
  lexer.removeErrorListeners();
  const TokenShaper& shaper = lexer.shaper();
  antlr4::CommonTokenStream tokens(&lexer);
  TschParser parser(&tokens);
  parser.removeErrorListeners();
  try {
    try {
      tokens.fill();
    } catch (const LexError& e) {
      SourceLoc at{source, static_cast<int>(e.line), static_cast<int>(e.column) + 1, 1};
      bool more = e.at_end_of_input || shaper.bracket_depth() > 0;
      throw SyntaxError(shift(at), e.message, more);
    }
    // Stage 1: SLL prediction, bail on the first error.
    parser.getInterpreter<antlr4::atn::ParserATNSimulator>()->setPredictionMode(antlr4::atn::PredictionMode::SLL);
    parser.setErrorHandler(std::make_shared<antlr4::BailErrorStrategy>());
    try {
      AstBuilder builder(source);
      return entry(parser, builder);
    } catch (const antlr4::ParseCancellationException&) {
    }
    // Stage 2: full LL with error reporting.
    tokens.seek(0);
    parser.reset();
    parser.getInterpreter<antlr4::atn::ParserATNSimulator>()->setPredictionMode(antlr4::atn::PredictionMode::LL);
    parser.setErrorHandler(std::make_shared<antlr4::DefaultErrorStrategy>());
    ErrorListener listener(source);
    parser.addErrorListener(&listener);
    AstBuilder builder(source);
    return entry(parser, builder);
  } catch (const NestingTooDeep& e) {
    SourceLoc at{source, static_cast<int>(e.line), static_cast<int>(e.column) + 1, 1};
    throw SyntaxError(shift(at), "too deeply nested expression");
  } catch (const FirstSyntaxError& e) {
    if (e.at_end && !shaper.open_brackets().empty()) {
      const auto& open = shaper.open_brackets().back();
      SourceLoc at{source, static_cast<int>(open.line), static_cast<int>(open.column) + 1, 1};
      throw SyntaxError(shift(at), "'" + open.text + "' was never closed", true);
    }
    bool more = e.at_end || shaper.bracket_depth() > 0;
    throw SyntaxError(shift(e.loc), e.message, more);
  }
}

}  // namespace

std::shared_ptr<ast::Module> parse_module(const SourceFile* source) {
  return run_parser<std::shared_ptr<ast::Module>>(
      source, false, [](TschParser& parser, AstBuilder& builder) { return builder.build_file(parser.file_input()); });
}

ast::ExprPtr parse_expression(const SourceFile* source) {
  return run_parser<ast::ExprPtr>(
      source, true, [](TschParser& parser, AstBuilder& builder) { return builder.build_eval(parser.eval_input()); });
}

bool is_incomplete_input(const std::string& text) {
  // A trailing backslash continues the line.
  size_t last = text.find_last_not_of(" \t\r\n");
  if (last != std::string::npos && text[last] == '\\') return true;
  const SourceFile* source = SourceFile::make("<input>", text);
  try {
    parse_module(source);
  } catch (const SyntaxError& e) {
    if (e.at_end_of_input) return true;
  }
  // A block header with its body still open: Python's REPL waits for a blank line.
  size_t first_nl = text.find('\n');
  std::string first = text.substr(0, first_nl);
  size_t end = first.find_last_not_of(" \t\r");
  bool opens_block = end != std::string::npos && first[end] == ':';
  bool ends_blank = text.size() >= 1 && text.back() == '\n' && (text.size() >= 2 && text[text.size() - 2] == '\n');
  bool starts_decorator = !first.empty() && first[0] == '@';
  if ((opens_block || starts_decorator) && !ends_blank) return true;
  return false;
}

}  // namespace tsch

namespace tsch {

std::vector<std::string> token_names(const std::string& text) {
  antlr4::ANTLRInputStream input(text);
  tsgen::TschLexer lexer(&input);
  lexer.removeErrorListeners();
  std::vector<std::string> names;
  try {
    for (auto token = lexer.nextToken(); token->getType() != antlr4::Token::EOF; token = lexer.nextToken()) {
      std::string name = lexer.getVocabulary().getSymbolicName(token->getType());
      names.push_back(name);
    }
  } catch (const LexError& e) {
    const SourceFile* source = SourceFile::make("<tokens>", text);
    throw SyntaxError(SourceLoc{source, static_cast<int>(e.line), static_cast<int>(e.column) + 1, 1}, e.message);
  }
  return names;
}

}  // namespace tsch
