// TVMScript front end for prim_funcs: walks a `@T.prim_func def` body (never executed as
// script code) and builds a PrimFunc. Expressions are evaluated by the script evaluator in
// a scope where IR names (buffers, loop and block variables) shadow the defining scope, so
// plain Python values from the enclosing script work inside (TVMScript meta-programming).
#pragma once

#include "frontend/tir_specs.h"
#include "ir/module.h"
#include "script/evaluator.h"

namespace tsch::frontend {

// Parses `def` into a PrimFunc; errors are ScriptErrors located in the TVMScript source.
// Unless `check_well_formed` is false, the result is verified (arith/verify_well_formed.h).
ir::PrimFunc parse_prim_func(script::Evaluator& defining, const ast::FunctionDef& def, bool is_private,
                             bool check_well_formed = true);

}  // namespace tsch::frontend
