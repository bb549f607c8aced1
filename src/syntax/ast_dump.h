// A complete text form of an AST (every node, field and location), for tests that compare
// the trees two parsers build.
#pragma once

#include <string>

#include "syntax/ast.h"

namespace tsch::ast {

std::string dump(const Module& module);
std::string dump(const Expr& expr);

}  // namespace tsch::ast
