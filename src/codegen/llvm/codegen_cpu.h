// The CPU part of LLVM code generation (TVM's CodeGenCPU): the entry ABI
// (`status name(void** buffers, int64_t* scalars)` around a typed, noalias implementation),
// parallel loops outlined into tasks for the runtime's thread pool, allocations on the stack
// or from the workspace pool, the status return (out of memory, Ctrl-C, a failed packed
// call) and T.call_packed into the runtime.
#pragma once

#include "codegen/llvm/codegen_llvm.h"

namespace tsch::codegen {

using runtime::FunctionSignature;

class CodeGenCPU final : public CodeGenLLVM {
 public:
  CodeGenCPU(llvm::Module& m, bool interrupt_checks, bool poison_allocations = false)
      : CodeGenLLVM(m), interrupt_checks_(interrupt_checks), poison_allocations_(poison_allocations) {}

  // Adds `name`'s implementation and entry point to the module; returns its signature.
  FunctionSignature emit_function(const std::string& name, const ir::PrimFunc& f);

 private:
  // Buffers up to this size live on the stack; larger ones on the heap.
  static constexpr int64_t kMaxStackBytes = 256 * 1024;

  void emit_allocate(const ir::AllocateNode& n) override;
  void emit_parallel(const ir::ForNode& n) override;
  void at_loop_head(const Stmt& body, bool unroll) override;
  llvm::Value* target_call(const ir::CallNode& n) override;
  void return_if_interrupted();
  void return_if_failed(llvm::Value* failed, int32_t status = runtime::kStatusOutOfMemory);
  void return_if_failed(llvm::Value* failed, llvm::Value* status, const char* what);

  bool in_parallel_ = false;
  bool interrupt_checks_;
  bool poison_allocations_;
  std::vector<llvm::Value*> live_workspace_;  // heap buffers open at the insert point, outermost first
};

}  // namespace tsch::codegen
