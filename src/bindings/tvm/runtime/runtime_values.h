// Script values of the runtime: compiled modules (tvm.build's result,
// tvm.runtime.Module) and their functions, and timing results (time_evaluator).
#pragma once

#include <functional>
#include <string>

#include "runtime/device.h"
#include "runtime/module.h"
#include "script/interpreter.h"
#include "script/object.h"
#include "values/device_value.h"

namespace tsch::bindings {

using script::Interpreter;
using script::Value;

class RuntimeModuleValue : public script::Object {
 public:
  explicit RuntimeModuleValue(runtime::Module m) : module(std::move(m)) {}
  script::TypeObject* type() const override;
  std::string repr_hook(Interpreter&) override;
  bool get_attr_hook(Interpreter& interp, Symbol name, Value& out) override;
  runtime::Module module;
};

Value wrap_module(runtime::CompiledModuleRef m);  // a new handle without imports
Value wrap_module(runtime::Module m);
// tvm.cpu, tvm.cuda, tvm.device into a namespace.
void install_runtime_devices(script::Namespace& ns);
// TVM's BenchmarkResult over per-repeat mean seconds (what time_evaluator returns).
Value make_benchmark_result(std::vector<double> seconds);
// tvm.runtime.load_module of a file written by an export_library above this package (relax.build's
// executable): `loader` gives the loaded value, or None when the file is not one (then it is
// loaded as a plain library). tvm.relax sets it when registered.
void set_exported_module_loader(std::function<Value(const std::string& path)> loader);
// tvm.testing (testing_module.cc).
void register_tvm_testing_module();
// Registers tvm.nd, tvm.runtime, tvm.testing and the device constructors.
void register_tvm_runtime_modules();

}  // namespace tsch::bindings
