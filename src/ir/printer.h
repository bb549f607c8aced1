// TVMScript printer: IRModule / PrimFunc / fragments to the text TVM prints
// (TVM-REFERENCE.md §2.3), which the front end reads back.
#pragma once

#include <string>

#include <vector>

#include "ir/module.h"

namespace tsch::ir {

struct PrintOptions {
  // Print `global_symbol` even when it equals the function name, as TVM before 0.13 did
  // (seed note 001). Current TVM, which tsch follows by default, leaves it out (note 002).
  bool keep_global_symbol = false;
  // Loops and blocks to underline with ^^^ (schedule error reports), by node.
  std::vector<const StmtNode*> highlight;
};

std::string script(const IRModule& mod, const PrintOptions& options = {});
// A single function, printed with the `# from tvm.script import tir as T` header.
std::string script(const PrimFunc& func, const std::string& name, const PrintOptions& options = {});
// Expressions and statements on their own (free variables keep their names).
std::string script(const PrimExpr& expr);
std::string script(const Stmt& stmt);

}  // namespace tsch::ir
