// A dtype used as a value: `T.float32` in TVMScript (an annotation, a literal / cast
// constructor, a variable factory). numpy's np.dtype is another class (bindings' ndarray_value.h).
#pragma once

#include <string>

#include "ir/dtype.h"
#include "script/object.h"

namespace tsch::bindings {

class TirDTypeValue : public script::Object {
 public:
  explicit TirDTypeValue(ir::DataType t) : dtype(t) {}
  script::TypeObject* type() const override;
  std::string repr_hook(script::Interpreter&) override { return "T." + dtype.to_string(); }
  ir::DataType dtype;
};

// The script type of T.float32 and the other dtypes of the T namespace ("DType").
script::TypeRef dtype_type();

}  // namespace tsch::bindings
