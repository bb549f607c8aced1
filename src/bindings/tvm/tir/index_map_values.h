// tvm.tir.IndexMap values (index_map_values.cc).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "arith/index_map.h"
#include "ir/expr.h"
#include "script/object.h"
#include "script/value.h"

namespace tsch::bindings {

// What IndexMap.AXIS_SEPARATOR (and te.AXIS_SEPARATOR, the same object in TVM) is: a marker
// an index map's function returns between two outputs.
inline constexpr const char* kAxisSeparator = "axis_separator";

using script::Interpreter;
using script::Value;

// The map itself (params, outputs) and what is done with it are arith::IndexMap's.
class IndexMapValue : public script::Object, public arith::IndexMap {
 public:
  script::TypeObject* type() const override;
  std::string repr_hook(Interpreter& interp) override;

  std::shared_ptr<IndexMapValue> inverse;  // inverse_index_map, when given
  Value function;                          // the function it was made from (None otherwise)
};

script::TypeRef index_map_type();

// An index-mapping function called as TVM's IndexMap.from_func calls it: one variable per
// dimension (of the given types), passed as its positional parameters, then `*args` (named
// `<name>_0`, ...), then its keyword-only parameters by name; the variables in that order.
struct IndexFunctionCall {
  std::vector<ir::Var> params;
  std::vector<ir::PrimExpr> outputs;
  // Where the function returned IndexMap.AXIS_SEPARATOR: the number of outputs before each
  // (TVM's IndexMap.from_func_with_separators). Only transform_layout accepts them.
  std::vector<int64_t> axis_separators;
};
IndexFunctionCall call_index_function(Interpreter& interp, const Value& fn, const std::vector<ir::DataType>& dtypes);
// The number of indices the function takes (-1: any, it has *args).
int64_t index_function_arity(const Value& fn);
// `lambda i, j: (j, i)`, and the whole map as TVM prints it: `T.index_map(lambda ...)`.
using arith::index_map_lambda;
std::string index_map_text(const IndexMapValue& m);

}  // namespace tsch::bindings
