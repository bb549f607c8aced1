// Template definitions for ir_values.h.
#pragma once

#include "ir/op.h"
#include "script/exceptions.h"
#include "support/error.h"
#include "values/tvm_errors.h"

namespace tsch::bindings {

template <typename F>
auto guard_ir(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const ir::IRError& e) {
    // TVM refuses these in ICHECKs: tvm.error.InternalError.
    raise_internal_error(e.what());
  }
}

template <typename F>
auto guard_core(F&& f) -> decltype(f()) {
  try {
    return guard_ir(std::forward<F>(f));
  } catch (const UserError& e) {
    script::raise(script::exception_kind_of(e.kind), e.what());
  }
}

}  // namespace tsch::bindings
