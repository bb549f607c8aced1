// The global function registry (TVM's `tvm.register_func` / `tvm.get_global_func`): names to
// PackedFuncs, shared by the whole process and safe to use from several threads. C++ code
// registers at start-up; scripts register with `@tvm.register_func("env.linear")`; the
// Relax VM looks up `call_dps_packed` targets here.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "runtime/packed_func.h"

namespace tsch::runtime {

// Registers `f` under `name`. A name already taken is a UserError (RuntimeError) unless
// `override` is set.
void register_global_func(const std::string& name, PackedFunc f, bool override = false);
// The function registered under `name`, or null.
PackedFunc find_global_func(const std::string& name);
// The function registered under `name`; a UserError (ValueError) when there is none.
PackedFunc get_global_func(const std::string& name);
// Removes `name`; false when it was not registered.
bool remove_global_func(const std::string& name);
// The registered names, sorted.
std::vector<std::string> list_global_func_names();

}  // namespace tsch::runtime
