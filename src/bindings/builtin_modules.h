// Registers every built-in module (sys, math, and later tvm, numpy) with the ModuleLoader.
#pragma once

namespace tsch::script {

// Idempotent; call before creating an Interpreter.
void register_builtin_modules();

// The names of TVM's and NumPy's APIs tsch does not have yet (not_supported_yet.cc).
void register_not_supported_names();

}  // namespace tsch::script
