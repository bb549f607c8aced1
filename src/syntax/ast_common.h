// AST construction that both parsers share (the ANTLR parse-tree builder and the fast
// recursive-descent parser): literals, f-strings, assignment-target checks, operator kinds.
// Errors are thrown as SyntaxError at the offending place.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "syntax/ast.h"

namespace tsch::ast {

// Characters of a token's first line (its caret length).
int code_points(std::string_view text);

// The operator of a binary or augmented-assignment token type (TschLexer's numbering).
std::optional<BinOpKind> binop_of(size_t token_type);

// Refuses what cannot be assigned to or deleted (`what`: "assign to", "delete").
void check_target(const Expr* target, bool allow_star, const char* what);

// A NUMBER token.
ExprPtr number_literal(const std::string& token_text, SourceLoc at);

// Adjacent STRING tokens: one str/bytes constant, or an f-string.
struct StringPiece {
  std::string text;
  SourceLoc loc;
};
ExprPtr string_literal(const std::vector<StringPiece>& tokens, SourceLoc at);

}  // namespace tsch::ast
