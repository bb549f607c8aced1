// Registers every built-in module (sys, math, and later tvm, numpy) with the ModuleLoader.
#pragma once

namespace tsch::script {

// Idempotent; call before creating an Interpreter.
void register_builtin_modules();

}  // namespace tsch::script
