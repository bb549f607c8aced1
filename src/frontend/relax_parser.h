// TVMScript front end for Relax: walks an `@R.function def` (never executed as script code)
// and builds a relax::Function. As for prim_funcs, expressions are evaluated by the script
// evaluator; the R.* functions build Relax expressions with their struct info inferred, and
// the statements (assignments, `with R.dataflow()`, `if`, `return`) become bindings, blocks
// and the function's result. Symbolic dimensions written as strings in the signature
// (`R.Tensor((1, "m"))`) and `m = T.int64()` declarations in the body are one variable.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "relax/expr.h"
#include "script/evaluator.h"

namespace tsch::frontend {

// The function being parsed: what R.* calls in its body record into.
struct RelaxFunctionFrame {
  // Symbolic variables by name, in order of creation.
  std::vector<std::pair<std::string, ir::Var>> symbolic;
  std::optional<ir::AttrMap> attrs;
  // Inside `with R.dataflow():`; R.output records its variables here.
  bool in_dataflow = false;
  bool output_seen = false;
  std::vector<relax::Var> outputs;

  ir::Var find_symbolic(const std::string& name) const;
  // The variable named `name`, created (int64) when the signature first mentions it.
  ir::Var symbolic_var(const std::string& name);
};

// The innermost function being parsed on this thread, or null.
RelaxFunctionFrame* current_relax_frame();

relax::Function parse_relax_function(script::Evaluator& defining, const ast::FunctionDef& def, bool pure,
                                     bool is_private);

// The signature (R.Callable) `def` declares, without parsing its body: for calls to a module
// function defined later in the class. An unannotated result is R.Object, as in TVM.
relax::StructInfo declare_relax_signature(script::Evaluator& defining, const ast::FunctionDef& def, bool pure);

}  // namespace tsch::frontend
