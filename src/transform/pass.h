// A lowering pass: a named function from PrimFunc to PrimFunc. Passes never mutate their
// input; they return a new function (or the same one when nothing changed).
#pragma once

#include <functional>
#include <string>

#include "ir/module.h"

namespace tsch::transform {

struct Pass {
  std::string name;  // TVM's name, e.g. "tir.LowerInitBlock"
  std::function<ir::PrimFunc(const ir::PrimFunc&)> run;
};

// A copy of `f` with a new body.
ir::PrimFunc with_body(const ir::PrimFunc& f, ir::Stmt body);

// The passes, one per file.
Pass lower_init_block();
Pass convert_blocks_to_opaque();
Pass lower_match_buffer();
Pass lower_opaque_block();
Pass plan_buffer_allocation();
Pass compact_buffer_allocation();
Pass flatten_buffer();
Pass storage_rewrite();
Pass simplify();
Pass vectorize_loop();
Pass unroll_loop();
Pass remove_no_op();

}  // namespace tsch::transform
