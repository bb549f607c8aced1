// The code generators by target kind (TVM's "target.build.<kind>" functions): each backend
// says how a module is lowered for it and how its code is generated. driver::build looks the
// target's kind up here. A new backend is a code generator in codegen/ and one
// register_backend line in backends.cc.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "driver/build.h"
#include "ir/module.h"
#include "runtime/module.h"
#include "target/target.h"

namespace tsch::driver {

// What code generation takes; the build cache compares it to share compiled modules.
struct LoweredModule {
  ir::IRModule mod;
  // A GPU build: what its CPU emulation runs (the kernels before SplitHostDevice; with the
  // mma builtins, lowered apart so their warp buffers stay whole, transform/emulate_mma.h).
  ir::IRModule emulation;
  // The emulation may be refused (NotImplementedError) while the GPU build stands.
  bool emulation_optional = false;
};

struct Backend {
  // Vectorized loops stay vector code (false: C source, which the C compiler vectorizes).
  bool vectorizes = true;
  std::function<LoweredModule(const ir::IRModule&, const target::Target&, const BuildOptions&)> lower;
  std::function<runtime::CompiledModuleRef(const LoweredModule&, const target::Target&, const BuildOptions&)> generate;
};

// Registered once at start-up, from register_builtin_backends (backends.cc).
void register_backend(const std::string& kind, Backend backend);
// Null for a kind without a code generator.
const Backend* find_backend(const std::string& kind);
std::vector<std::string> backend_kinds();

}  // namespace tsch::driver
