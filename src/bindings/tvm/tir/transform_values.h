// tvm.transform (also tvm.ir.transform) and tvm.tir.transform in scripts: Pass values over
// transform::Pass, Sequential, PassContext (a `with` scope), PrintIR, the module_pass and
// prim_func_pass decorators for passes written in the script, and each lowering pass by its
// TVM name (tvm.tir.transform.LowerInitBlock() ...).
#pragma once

#include "script/value.h"
#include "transform/pass.h"

namespace tsch::bindings {

void register_tvm_transform_modules();
// A pass as a script value (tvm.transform.Pass): callable on a module, usable in Sequential.
script::Value wrap_transform_pass(transform::Pass p);

}  // namespace tsch::bindings
