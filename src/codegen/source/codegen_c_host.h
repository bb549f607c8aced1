// C for the CPU (TVM's CodeGenCHost, target "c"): each function becomes `NAME_compute` with
// typed restrict parameters and the entry point `int32_t NAME(void** buffers, int64_t*
// scalars)` the runtime calls; allocations come from malloc (a null return gives
// runtime::kStatusOutOfMemory, releasing what the function holds) or the stack when small
// and constant; with interrupt checks, outer loops poll the runtime's Ctrl-C flag, which the
// loader binds through `tsch_bind_interrupt_flag`, and return runtime::kStatusInterrupted;
// parallel loops run serially (the C target has no thread pool).
#pragma once

#include <string>
#include <vector>

#include "codegen/source/codegen_c.h"

namespace tsch::codegen {

// The function a C library defines for the loader to hand it the runtime's Ctrl-C flag.
constexpr const char* kBindInterruptFlag = "tsch_bind_interrupt_flag";
// ... and the runtime's tsch_call_packed (T.call_packed of scalars and strings; the bound
// checks of data-dependent indices report through it).
constexpr const char* kBindCallPacked = "tsch_bind_call_packed";
// ... and the runtime's workspace allocator (runtime/workspace.h), which C kernels allocate
// their heap buffers from, as LLVM ones do: a size the machine cannot hold is refused there
// (MemoryError), where libc's malloc — jemalloc's, in tsch's process — may reserve terabytes
// the kernel then touches.
constexpr const char* kBindWorkspace = "tsch_bind_workspace";

class CodeGenCHost : public CodeGenC {
 public:
  explicit CodeGenCHost(bool interrupt_checks, bool poison_allocations = false)
      : interrupt_checks_(interrupt_checks), poison_allocations_(poison_allocations) {}
  // Appends `name`'s C code; returns the signature the runtime binds arguments with.
  runtime::FunctionSignature add_function(const std::string& name, const ir::PrimFunc& f);
  // The whole translation unit: the prelude, then the functions.
  std::string source() const { return prelude() + functions_; }

 protected:
  void emit_allocate(const ir::AllocateNode& n) override;
  bool guards_integer_division() const override { return true; }
  void emit_parallel(const ir::ForNode& n) override;
  void at_loop_head(const ir::Stmt& body) override;
  bool emit_call_stmt(const ir::CallNode& n) override;

 private:
  // Frees what the function holds and returns `status`.
  void return_status(int32_t status);
  bool interrupt_checks_;
  bool poison_allocations_;
  static constexpr int64_t kMaxStackBytes = 64 * 1024;
  std::vector<std::string> live_heap_;  // heap buffers to release on an early return
  void use_workspace_helpers();
  std::string functions_;
};

}  // namespace tsch::codegen
