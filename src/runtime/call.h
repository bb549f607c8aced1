// Calling a compiled function: arguments are checked against its signature (count, rank,
// shape, dtype), symbolic shape variables are bound from the arrays, and the entry point runs.
#pragma once

#include <vector>

#include "runtime/module.h"
#include "runtime/ndarray.h"
#include "runtime/packed_func.h"

namespace tsch::runtime {

struct CallArg {
  NDArray* array = nullptr;  // or a scalar:
  bool is_float = false;
  int64_t i = 0;
  double f = 0;
};

// Throws std::invalid_argument naming the parameter at fault.
void call_compiled(const FunctionSignature& sig, EntryPoint fn, const std::vector<CallArg>& args);

// The function `name` of `m` as a PackedFunc taking NDArrays and numbers (it keeps `m` alive);
// argument mistakes are UserErrors (TypeError for a wrong count, else ValueError). Null when
// `m` has no function of that name.
PackedFunc get_function(const CompiledModuleRef& m, const std::string& name);
// The same on a module handle; with `query_imports`, its imports are searched too (depth
// first, in import order), as TVM's Module.get_function(name, query_imports=True).
PackedFunc get_function(const Module& m, const std::string& name, bool query_imports);

}  // namespace tsch::runtime
