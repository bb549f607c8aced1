// The TVMScript decorators as values: `@T.prim_func` and `@R.function` (with their options),
// recognized by the decorator hooks that hand the def to the front end (tvm_module.cc,
// tvmscript_relax_module.cc).
#pragma once

#include "script/object.h"

namespace tsch::bindings {

// `T.prim_func` and `T.prim_func(private=True)`.
class PrimFuncDecorator : public script::Object {
 public:
  script::TypeObject* type() const override;
  bool is_private = false;
  bool check_well_formed = true;
};

// `@R.function`, `@R.function(pure=False, private=True)`.
class RelaxFunctionDecorator : public script::Object {
 public:
  script::TypeObject* type() const override;
  bool pure = true;
  bool is_private = false;
};

}  // namespace tsch::bindings
