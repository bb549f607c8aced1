// The Python standard modules scripts import: sys, math, time, inspect, gc (the parts TVM's
// tutorials and tests use). Each registers itself with script::ModuleLoader.
#pragma once

namespace tsch::script {

void register_sys_module();
void register_math_module();
void register_time_module();
void register_inspect_module();
void register_gc_module();

}  // namespace tsch::script
