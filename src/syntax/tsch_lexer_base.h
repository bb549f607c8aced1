// Base class of the generated lexer: passes raw tokens through the TokenShaper (layout
// rules: NEWLINE/INDENT/DEDENT, brackets, bad characters).
#pragma once

#include <memory>

#include "antlr4-runtime.h"
#include "syntax/token_shaper.h"

namespace tsch {

class TschLexerBase : public antlr4::Lexer {
 public:
  explicit TschLexerBase(antlr4::CharStream* input) : antlr4::Lexer(input) {}

  std::unique_ptr<antlr4::Token> nextToken() override {
    while (shaper_.empty()) {
      std::unique_ptr<antlr4::Token> raw = antlr4::Lexer::nextToken();
      shaper_.push(std::move(raw), _input->LA(1));
    }
    return shaper_.pop();
  }
  void reset() override {
    shaper_.reset();
    antlr4::Lexer::reset();
  }

  TokenShaper& shaper() { return shaper_; }

 private:
  TokenShaper shaper_;
};

}  // namespace tsch

// The generated lexer lives in namespace tsgen and names its base class unqualified.
namespace tsgen {
using tsch::TschLexerBase;
}
