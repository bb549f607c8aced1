// tvm.tir, tvm.tir.expr, tvm.tir.analysis, tvm.tir.stmt_functor and tvm.tir.function
// (tir_module.cc), registered by register_tvm_modules (bindings/tvm_module.cc).
#pragma once

namespace tsch::bindings {

void register_tvm_tir_modules();

}  // namespace tsch::bindings
