#include "syntax/fast_lexer.h"

#include <array>
#include <cstring>
#include <unordered_map>

#include "TschLexer.h"

namespace tsch {

using tsgen::TschLexer;

namespace {

// Keyword and operator spellings from the generated vocabulary ("'def'" -> DEF).
struct Spellings {
  std::unordered_map<std::string, size_t> keywords;
  std::vector<std::pair<std::string, size_t>> operators;  // longest first

  Spellings() {
    antlr4::ANTLRInputStream empty("");
    TschLexer lexer(&empty);
    const antlr4::dfa::Vocabulary& vocab = lexer.getVocabulary();  // a static table
    for (size_t type = 1; type <= vocab.getMaxTokenType(); ++type) {
      std::string literal = vocab.getLiteralName(type);
      if (literal.size() < 3 || literal.front() != '\'') continue;
      std::string text = literal.substr(1, literal.size() - 2);
      if (std::isalpha(static_cast<unsigned char>(text[0])) || text[0] == '_') {
        keywords.emplace(text, type);
      } else {
        operators.emplace_back(text, type);
      }
    }
    std::stable_sort(operators.begin(), operators.end(), [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
  }
};

const Spellings& spellings() {
  static const Spellings* s = new Spellings();
  return *s;
}

bool is_name_start(unsigned char c) { return std::isalpha(c) || c == '_'; }
bool is_name_char(unsigned char c) { return std::isalnum(c) || c == '_'; }
bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

struct GiveUp {};

class Scanner {
 public:
  Scanner(const std::string& text, TokenShaper& shaper, std::vector<std::unique_ptr<antlr4::Token>>& out)
      : s_(text), shaper_(shaper), out_(out) {}

  void run() {
    while (true) {
      skip_blanks();
      if (pos_ >= s_.size()) {
        emit(antlr4::Token::EOF, "<EOF>", line_, col_);
        return;
      }
      unsigned char c = static_cast<unsigned char>(s_[pos_]);
      size_t line = line_, col = col_, start = pos_;
      if (c == '\n' || c == '\r' || c == '\f') {
        newline(line, col, start);
      } else if (is_name_start(c)) {
        name_or_string(line, col, start);
      } else if (is_digit(c) || (c == '.' && pos_ + 1 < s_.size() && is_digit(static_cast<unsigned char>(s_[pos_ + 1])))) {
        number(line, col, start);
      } else if (c == '"' || c == '\'') {
        string_body(line, col, start);
      } else {
        op(line, col, start);
      }
    }
  }

 private:
  char peek(size_t k = 0) const { return pos_ + k < s_.size() ? s_[pos_ + k] : '\0'; }

  void advance(size_t n) {
    for (size_t i = 0; i < n; ++i) {
      char c = s_[pos_++];
      if (c == '\n') {
        ++line_;
        col_ = 0;
      } else if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) {
        ++col_;
      }
    }
  }

  void emit(size_t type, std::string text, size_t line, size_t col) {
    auto token = std::make_unique<antlr4::CommonToken>(type, text);
    token->setLine(line);
    token->setCharPositionInLine(col);
    size_t next = pos_ < s_.size() ? static_cast<unsigned char>(s_[pos_]) : antlr4::Token::EOF;
    shaper_.push(std::move(token), next);
    while (!shaper_.empty()) out_.push_back(shaper_.pop());
  }

  // Spaces, tabs, comments and backslash-newline continuations.
  void skip_blanks() {
    while (pos_ < s_.size()) {
      char c = s_[pos_];
      if (c == ' ' || c == '\t') {
        advance(1);
      } else if (c == '#') {
        while (pos_ < s_.size() && s_[pos_] != '\n' && s_[pos_] != '\r' && s_[pos_] != '\f') advance(1);
      } else if (c == '\\') {
        size_t k = pos_ + 1;
        while (k < s_.size() && (s_[k] == ' ' || s_[k] == '\t')) ++k;
        if (k < s_.size() && (s_[k] == '\n' || s_[k] == '\r' || s_[k] == '\f')) {
          size_t end = (s_[k] == '\r' && k + 1 < s_.size() && s_[k + 1] == '\n') ? k + 2 : k + 1;
          advance(end - pos_);
        } else {
          throw GiveUp{};
        }
      } else {
        return;
      }
    }
  }

  void newline(size_t line, size_t col, size_t start) {
    if (peek() == '\r' && peek(1) == '\n') advance(2);
    else advance(1);
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t')) advance(1);
    emit(TschLexer::NEWLINE, s_.substr(start, pos_ - start), line, col);
  }

  void name_or_string(size_t line, size_t col, size_t start) {
    // A string prefix (r, f, b, u, rf, fr, rb, br) directly followed by a quote.
    size_t k = pos_;
    while (k < s_.size() && k - pos_ < 2 && std::strchr("rRfFbBuU", s_[k])) ++k;
    if (k < s_.size() && (s_[k] == '"' || s_[k] == '\'') && valid_prefix(s_.substr(pos_, k - pos_))) {
      advance(k - pos_);
      string_body(line, col, start);
      return;
    }
    while (pos_ < s_.size() && is_name_char(static_cast<unsigned char>(s_[pos_]))) advance(1);
    if (pos_ < s_.size() && static_cast<unsigned char>(s_[pos_]) >= 0x80) throw GiveUp{};  // Unicode names
    std::string text = s_.substr(start, pos_ - start);
    auto it = spellings().keywords.find(text);
    emit(it != spellings().keywords.end() ? it->second : TschLexer::NAME, text, line, col);
  }

  static bool valid_prefix(const std::string& p) {
    if (p.size() == 1) return true;
    auto lower = [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); };
    char a = lower(p[0]), b = lower(p[1]);
    return (a == 'r' && (b == 'f' || b == 'b')) || ((a == 'f' || a == 'b') && b == 'r');
  }

  void string_body(size_t line, size_t col, size_t start) {
    char q = s_[pos_];
    bool triple = peek(1) == q && peek(2) == q;
    if (triple) {
      advance(3);
      while (true) {
        if (pos_ >= s_.size()) throw GiveUp{};
        if (s_[pos_] == '\\') {
          if (pos_ + 1 >= s_.size()) throw GiveUp{};
          advance(2);
        } else if (s_[pos_] == q && peek(1) == q && peek(2) == q) {
          advance(3);
          break;
        } else {
          advance(1);
        }
      }
    } else {
      advance(1);
      while (true) {
        if (pos_ >= s_.size()) throw GiveUp{};
        char c = s_[pos_];
        if (c == '\n' || c == '\r') throw GiveUp{};  // unterminated: ANTLR reports it
        if (c == '\\') {
          if (pos_ + 1 >= s_.size() || s_[pos_ + 1] == '\n' || s_[pos_ + 1] == '\r') throw GiveUp{};
          advance(2);
        } else if (c == q) {
          advance(1);
          break;
        } else {
          advance(1);
        }
      }
    }
    emit(TschLexer::STRING, s_.substr(start, pos_ - start), line, col);
  }

  void number(size_t line, size_t col, size_t start) {
    // Plain decimal integers and floats; prefixes, underscores and leading zeros go to ANTLR.
    if (peek() == '0' && (std::isalnum(static_cast<unsigned char>(peek(1))) || peek(1) == '_') && peek(1) != 'e' && peek(1) != 'E') {
      if (!(peek(1) == '.' )) throw GiveUp{};
    }
    auto digits = [&]() {
      size_t n = 0;
      while (pos_ < s_.size() && is_digit(static_cast<unsigned char>(s_[pos_]))) {
        advance(1);
        ++n;
      }
      if (peek() == '_') throw GiveUp{};
      return n;
    };
    size_t int_digits = digits();
    bool is_float = false;
    if (peek() == '.' && peek(1) == '.') throw GiveUp{};  // `1..`, `1...`: leave to ANTLR
    if (peek() == '.') {
      advance(1);
      digits();
      is_float = true;
    }
    if ((peek() == 'e' || peek() == 'E') &&
        (is_digit(static_cast<unsigned char>(peek(1))) || ((peek(1) == '+' || peek(1) == '-') && is_digit(static_cast<unsigned char>(peek(2)))))) {
      advance((peek(1) == '+' || peek(1) == '-') ? 2 : 1);
      digits();
      is_float = true;
    }
    if (!is_float && int_digits > 1 && s_[start] == '0') throw GiveUp{};
    if (pos_ < s_.size() && (is_name_char(static_cast<unsigned char>(s_[pos_])) || static_cast<unsigned char>(s_[pos_]) >= 0x80)) throw GiveUp{};
    emit(TschLexer::NUMBER, s_.substr(start, pos_ - start), line, col);
  }

  void op(size_t line, size_t col, size_t start) {
    for (const auto& [text, type] : spellings().operators) {
      if (s_.compare(pos_, text.size(), text) == 0) {
        advance(text.size());
        emit(type, text, line, col);
        return;
      }
    }
    throw GiveUp{};
  }

  const std::string& s_;
  TokenShaper& shaper_;
  std::vector<std::unique_ptr<antlr4::Token>>& out_;
  size_t pos_ = 0;
  size_t line_ = 1, col_ = 0;
};

}  // namespace

bool fast_lex(const std::string& text, bool expression_mode, std::vector<std::unique_ptr<antlr4::Token>>& out,
              TokenShaper& shaper) {
  shaper.reset();
  shaper.set_expression_mode(expression_mode);
  out.clear();
  try {
    Scanner(text, shaper, out).run();
  } catch (const GiveUp&) {
    return false;
  }
  return true;
}

}  // namespace tsch
