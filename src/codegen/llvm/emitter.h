// Emission of lowered TensorIR functions into an LLVM module (internal to codegen/llvm).
#pragma once

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include "runtime/module.h"

namespace tsch::codegen {

using runtime::BuildError;
using runtime::CompiledModuleRef;
using runtime::FunctionSignature;

// Adds `name`'s implementation and its entry point `name(void** buffers, int64_t* scalars)`
// to `module`, and returns the signature the runtime binds arguments with. With
// `interrupt_checks`, outer loops return runtime::kStatusInterrupted after Ctrl-C.
// `poison_allocations`: every allocation is filled with 0xFF bytes when entered.
FunctionSignature emit_function(llvm::Module& module, const std::string& name, const ir::PrimFunc& f,
                                bool interrupt_checks, bool poison_allocations = false);

}  // namespace tsch::codegen
