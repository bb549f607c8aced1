// A hand-written scanner for the common case, producing exactly the tokens the ANTLR lexer
// (grammar/TschLexer.g4) produces. ANTLR 4.9's C++ lexer takes a lock per character and
// was a third of parse time; this scanner is several times faster. Keyword and operator
// spellings come from the generated lexer's vocabulary, so the grammar stays the one
// source of truth. For anything unusual (non-ASCII outside strings and comments, unusual
// numbers, unterminated strings, stray characters) it gives up and the caller lexes the
// text with ANTLR, which also produces the exact error. tests/unit/test_fast_lexer.cc checks
// that both agree on every golden script and on mutated variants.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "antlr4-runtime.h"
#include "syntax/token_shaper.h"

namespace tsch {

// Scans `text` completely. Returns false (and leaves `out` unspecified) when the text needs
// the ANTLR lexer. Tokens are shaped (NEWLINE/INDENT/DEDENT) and end with EOF.
bool fast_lex(const std::string& text, bool expression_mode, std::vector<std::unique_ptr<antlr4::Token>>& out,
              TokenShaper& shaper);

}  // namespace tsch
