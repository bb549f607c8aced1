// A hand-written recursive-descent parser for the grammar in grammar/TschParser.g4, over the
// fast scanner's tokens. It builds the same AST as the ANTLR parser + AstBuilder (shared
// pieces in ast_common.h) in a fraction of the time: ANTLR's C++ runtime was most of the
// parse time of a large TVMScript function (issue #3's 2,000-statement target).
// It accepts only input that the grammar accepts and gives up (returns null) at anything
// else — a syntax error, a semantic error such as an invalid assignment target, or a form
// it does not handle — so that the ANTLR path produces the exact error message.
// tests/unit/test_fast_parser.cc checks that both produce identical ASTs on every golden
// script and on mutated variants.
#pragma once

#include <memory>
#include <vector>

#include "antlr4-runtime.h"
#include "syntax/ast.h"

namespace tsch {

// `tokens`: shaped tokens ending with EOF (fast_lex's output).
std::shared_ptr<ast::Module> fast_parse_module(const SourceFile* source,
                                               const std::vector<std::unique_ptr<antlr4::Token>>& tokens);
ast::ExprPtr fast_parse_expression(const SourceFile* source,
                                   const std::vector<std::unique_ptr<antlr4::Token>>& tokens);

}  // namespace tsch
