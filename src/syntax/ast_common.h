// What the parse-tree builder needs beyond walking the tree: literals, f-strings,
// assignment-target checks, operator kinds.
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

// `del a, b[1]`: an unparenthesized tuple deletes each element (targets checked).
StmtPtr make_delete(SourceLoc at, ExprPtr targets);

// A prefix + - ~ (token type) on `operand`; -<literal> folds into the literal, so that the
// minimum int64 is writable and constants stay constants.
ExprPtr make_unary(size_t token_type, SourceLoc op_loc, ExprPtr operand);

// `left and right` / `left or right`: a chain of the same operator flattens into one BoolOp
// (also when `left` was parenthesized, as the ANTLR tree nests it).
ExprPtr make_bool_op(bool is_and, SourceLoc op_loc, ExprPtr left, ExprPtr right);

// The comparison of a comp_op: its first token type and whether a second token follows
// (`not in`, `is not`).
CmpOpKind cmp_op_of(size_t first_token_type, bool two_tokens);

// A NUMBER token.
ExprPtr number_literal(const std::string& token_text, SourceLoc at);

// Adjacent STRING tokens: one str/bytes constant, or an f-string.
struct StringPiece {
  std::string text;
  SourceLoc loc;
};
ExprPtr string_literal(const std::vector<StringPiece>& tokens, SourceLoc at);

}  // namespace tsch::ast
