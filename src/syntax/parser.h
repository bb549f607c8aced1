// Entry points of the front end of the language: text in, AST out. Syntax errors are
// thrown as tsch::SyntaxError with the location of the offending token.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "support/diagnostics.h"
#include "syntax/ast.h"

namespace tsch {

// Parses a whole file or REPL input.
std::shared_ptr<ast::Module> parse_module(const SourceFile* source);

// Parses one expression (used for f-string fields); `source` may start with padding.
ast::ExprPtr parse_expression(const SourceFile* source);

// True when `text` is a statement that more lines could complete: an open bracket, a
// trailing backslash or a block header without its body. The REPL asks for another line.
bool is_incomplete_input(const std::string& text);

}  // namespace tsch

namespace tsch {

// The token stream of `text` as names ("NAME", "INDENT", "NEWLINE", "'('", ...), for tests
// and debugging. Throws SyntaxError on lexing errors.
std::vector<std::string> token_names(const std::string& text);

}  // namespace tsch
