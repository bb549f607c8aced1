// Template definitions for ir_values.h.
#pragma once

#include "ir/op.h"
#include "script/exceptions.h"

namespace tsch::bindings {

template <typename F>
auto guard_ir(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const ir::IRError& e) {
    script::raise(e.kind == ir::IRError::Kind::Type ? script::ExcKind::TypeError : script::ExcKind::ValueError, e.what());
  }
}

}  // namespace tsch::bindings
