// tvm.tir.IndexMap values (index_map_values.cc).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ir/expr.h"
#include "script/object.h"
#include "script/value.h"

namespace tsch::bindings {

using script::Interpreter;
using script::Value;

class IndexMapValue : public script::Object {
 public:
  script::TypeObject* type() const override;
  std::string repr_hook(Interpreter& interp) override;

  std::vector<ir::Var> params;         // initial_indices
  std::vector<ir::PrimExpr> outputs;   // final_indices
  std::shared_ptr<IndexMapValue> inverse;  // inverse_index_map, when given
  Value function;                      // the function it was made from (None otherwise)
};

script::TypeRef index_map_type();
// `lambda i, j: (j, i)`, and the whole map as TVM prints it: `T.index_map(lambda ...)`.
std::string index_map_lambda(const IndexMapValue& m);
std::string index_map_text(const IndexMapValue& m);

}  // namespace tsch::bindings
