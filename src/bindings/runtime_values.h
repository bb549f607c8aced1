// Script values of the runtime: devices (tvm.cpu(0)), compiled modules (tvm.build's result,
// tvm.runtime.Module) and their functions, and timing results (time_evaluator).
#pragma once

#include "runtime/module.h"
#include "script/interpreter.h"
#include "script/object.h"

namespace tsch::bindings {

using script::Interpreter;
using script::Value;

class DeviceValue : public script::Object {
 public:
  DeviceValue(std::string kind, int64_t id) : kind(std::move(kind)), id(id) {}
  script::TypeObject* type() const override;
  std::string repr_hook(Interpreter&) override { return kind + "(" + std::to_string(id) + ")"; }
  std::string kind;  // "cpu" or "cuda"
  int64_t id;
};

class RuntimeModuleValue : public script::Object {
 public:
  explicit RuntimeModuleValue(runtime::CompiledModuleRef m) : module(std::move(m)) {}
  script::TypeObject* type() const override;
  std::string repr_hook(Interpreter&) override;
  bool get_attr_hook(Interpreter& interp, Symbol name, Value& out) override;
  runtime::CompiledModuleRef module;
};

class PackedFuncValue : public script::Object {
 public:
  PackedFuncValue(runtime::CompiledModuleRef m, const runtime::FunctionSignature* sig, runtime::EntryPoint fn)
      : module(std::move(m)), signature(sig), entry(fn) {}
  script::TypeObject* type() const override;
  std::string repr_hook(Interpreter&) override { return "<tvm.runtime.PackedFunc " + signature->name + ">"; }
  void call(Interpreter& interp, const std::vector<Value>& args);
  runtime::CompiledModuleRef module;  // keeps the code alive
  const runtime::FunctionSignature* signature;
  runtime::EntryPoint entry;
};

Value wrap_module(runtime::CompiledModuleRef m);
// tvm.cpu, tvm.cuda, tvm.device into a namespace.
void install_runtime_devices(script::Namespace& ns);
// Registers tvm.nd, tvm.runtime, tvm.testing and the device constructors.
void register_tvm_runtime_modules();

}  // namespace tsch::bindings
