// The R.* calls of Relax operators (tvmscript_relax_ops.cc): the ops printed modules show after
// lowering, written `R.<group>.<name>(...)`, and what the R namespace shares to build op calls.
#pragma once

#include <string>
#include <vector>

#include "relax/expr.h"
#include "script/interpreter.h"
#include "script/object.h"

namespace tsch::bindings {

// R.builtin.*, R.memory.*, R.vm.*, R.shape_of, R.null_value into `ns` (R's namespace).
void def_lowered_ops(script::Namespace& ns);
// A call of the Relax operator `op` as a script value, its struct info inferred.
script::Value call_op(const std::string& op, std::vector<relax::Expr> args,
                      std::vector<relax::StructInfo> sinfo_args = {});
// sinfo_args=: None, one struct info or a list of them.
std::vector<relax::StructInfo> sinfo_args_arg(script::Interpreter& interp, const script::Value& v);

}  // namespace tsch::bindings
