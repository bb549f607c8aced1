// Compiled code as the runtime sees it (built by src/codegen): entry points with a uniform calling convention and
// the signature each needs to check and bind its arguments. No LLVM types appear here.
#pragma once

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "ir/module.h"
#include "runtime/device.h"

namespace tsch::runtime {

// A failure to build (unsupported construct, bad target). The message is for the user.
struct BuildError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct BufferParam {
  std::string name;
  ir::DataType dtype;
  std::vector<ir::PrimExpr> shape;  // IntImm or Var (bound from the argument) or other exprs
};

struct FunctionSignature {
  std::string name;
  std::vector<std::string> param_names;
  // Per parameter: the buffer it binds, or none for a scalar parameter.
  std::vector<std::optional<BufferParam>> buffers;
  std::vector<ir::Var> scalar_params;  // per parameter (null for buffers)
  // Variables the code reads from the scalar array, in slot order.
  std::vector<ir::Var> scalar_slots;
};

// Every compiled function: fn(buffer data pointers, scalar slots as int64/double bits);
// returns 0, kStatusOutOfMemory when a workspace allocation failed, or kStatusInterrupted
// when it stopped for Ctrl-C (support/interrupt.h).
using EntryPoint = int32_t (*)(void** buffers, int64_t* scalars);
constexpr int32_t kStatusOutOfMemory = 1;
constexpr int32_t kStatusInterrupted = 2;
// A packed function called by the kernel (T.call_packed) failed; runtime/packed_call.h holds
// its exception.
constexpr int32_t kStatusPackedCallFailed = 3;

class KernelLauncher;

// How a function runs with its arrays on one device: its entry point, and the launcher its
// host code's kernel launches go to (null for CPU code).
struct DeviceEntry {
  EntryPoint entry = nullptr;
  std::shared_ptr<const KernelLauncher> launcher;
};

class CompiledModule {
 public:
  virtual ~CompiledModule() = default;
  // Null when the module has no such function.
  virtual EntryPoint entry(const std::string& name) const = 0;
  virtual const std::vector<FunctionSignature>& functions() const = 0;
  // The module's source: "ll" (LLVM IR, the default for LLVM), "asm" (assembly), "c" (C,
  // the default for C); BuildError for a format the module does not have.
  virtual std::string source(const std::string& format) const = 0;
  virtual void export_library(const std::string& path) const = 0;
  virtual std::string target_text() const = 0;
  // TVM's type key of the module kind: "llvm" (host code), "c", "cuda" (device code).
  virtual std::string type_key() const = 0;
  // The device modules a host module launches kernels from (its imported_modules).
  virtual std::vector<std::shared_ptr<CompiledModule>> device_modules() const { return {}; }
  // Non-empty: why this module's functions cannot run here (calling one raises it).
  virtual std::string unavailable() const { return {}; }
  // The entry of `name` for arrays on `dev`. CPU code runs on cpu arrays only; a CUDA build's
  // host module runs on cpu arrays (the CPU emulation) and on cuda arrays (the GPU). A
  // UserError (ValueError) when the module cannot run on `dev`.
  virtual DeviceEntry entry_on(const std::string& name, Device dev) const;
};
using CompiledModuleRef = std::shared_ptr<CompiledModule>;

// A module as users hold it (TVM's runtime.Module): compiled code, which the build cache may
// share between handles, and this handle's own imported modules (a host module imports the
// device modules its kernels launch; scripts may import more with import_module).
struct ModuleNode {
  explicit ModuleNode(CompiledModuleRef code) : code(std::move(code)) {}
  CompiledModuleRef code;
  std::vector<std::shared_ptr<ModuleNode>> imports;
};
using Module = std::shared_ptr<ModuleNode>;

inline Module make_module(CompiledModuleRef code) { return std::make_shared<ModuleNode>(std::move(code)); }

}  // namespace tsch::runtime
