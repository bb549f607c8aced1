// tvm.arith (arith_module.cc): Analyzer, ConstIntBound, ModularSet, IntervalSet; and the
// tvm.ir.Range type it shares with tvm.ir.
#pragma once

#include "script/interpreter.h"

namespace tsch::bindings {

// tvm.ir.Range, for tvm.ir's namespace.
script::Value range_type_value();
// Registers the tvm.arith module with the module loader.
void register_arith_module();

}  // namespace tsch::bindings
