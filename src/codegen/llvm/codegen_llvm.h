// The LLVM code generator's base (TVM's CodeGenLLVM): types, expressions, memory with
// per-buffer alias tags, statements and loops, and the intrinsic table (intrinsics.cc).
// What depends on where the code runs — the entry ABI, parallel loops, allocations, thread
// bindings, calls into the runtime — is left to a target's subclass (codegen_cpu.h; a GPU
// one derives here too). Internal to codegen/llvm.
#pragma once

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Module.h>

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/module.h"
#include "runtime/module.h"

namespace tsch::codegen {

using runtime::BuildError;

class CodeGenLLVM {
 public:
  explicit CodeGenLLVM(llvm::Module& m) : mod_(m), ctx_(m.getContext()), b_(ctx_) {}
  virtual ~CodeGenLLVM() = default;

 protected:
  using DataType = ir::DataType;
  using ExprKind = ir::ExprKind;
  using PrimExpr = ir::PrimExpr;
  using Stmt = ir::Stmt;

  // ---- what a target decides ----
  virtual void emit_allocate(const ir::AllocateNode& n) = 0;
  virtual void emit_parallel(const ir::ForNode& n) = 0;
  // A loop bound to a GPU thread; the base refuses it.
  virtual void emit_thread_binding(const ir::ForNode& n);
  // Called at the head of every loop body (interrupt checks on the CPU).
  virtual void at_loop_head(const Stmt& body, bool unroll) {}
  // Calls the intrinsic table does not know (the runtime's, e.g. T.call_packed).
  virtual llvm::Value* target_call(const ir::CallNode& n);
  // Refuses (BuildError) a call the target's backend cannot lower (math without a library).
  virtual void check_call(const ir::CallNode& n) {}

  // ---- types ----
  llvm::Type* scalar_type(DataType t);
  llvm::Type* type_of(DataType t);
  llvm::Type* memory_type(DataType t);
  llvm::FastMathFlags contract();

  // ---- expressions, memory, statements (codegen_llvm.cc) ----
  llvm::Value* emit(const PrimExpr& e);
  llvm::Value* binary(ExprKind kind, const PrimExpr& pa, const PrimExpr& pb);
  llvm::Value* divide(ExprKind kind, llvm::Value* a, llvm::Value* b, bool sgn);
  llvm::Value* less(llvm::Value* a, llvm::Value* b, DataType t);
  llvm::Value* floor_of(llvm::Value* x);
  llvm::Value* cast(const PrimExpr& value, DataType to);
  // bfloat16 is computed in float32 (TVM's BF16ComputeLegalize): the CPU has no bfloat16
  // arithmetic, and LLVM would call a libgcc routine this toolchain lacks to round to it.
  llvm::Value* bf16_to_f32(llvm::Value* v);
  llvm::Value* f32_to_bf16(llvm::Value* v);  // round to nearest even, NaN kept NaN
  // float8 values are bytes, computed in float32 likewise (float8_llvm.cc).
  llvm::Value* float8_constant(double value, DataType t);
  llvm::Value* float8_to_f32(llvm::Value* v, DataType from);
  llvm::Value* float_to_float8(llvm::Value* v, DataType from, DataType to);  // from float32 or float64
  llvm::Value* cast_float8(llvm::Value* v, DataType from, DataType to);
  llvm::Value* data_of(const ir::Buffer& buf);
  llvm::Instruction* tag_access(llvm::Instruction* access, const ir::Buffer& buf);
  llvm::Value* address(const ir::Buffer& buf, llvm::Value* index);
  llvm::Value* load(const ir::BufferLoadNode& n);
  void store(const ir::BufferStoreNode& n);
  void emit(const Stmt& s);
  void loop(const ir::Var& var, llvm::Value* begin, llvm::Value* extent, const Stmt& body, bool unroll);

  // ---- intrinsics (intrinsics.cc) ----
  llvm::Value* call(const ir::CallNode& n);
  llvm::Value* libm_call(const std::string& op, const std::vector<PrimExpr>& args, DataType t);
  llvm::Value* if_then_else(const ir::CallNode& n);
  llvm::Value* llvm_intrinsic(const ir::CallNode& n);

  llvm::Module& mod_;
  llvm::LLVMContext& ctx_;
  llvm::IRBuilder<> b_;
  llvm::Function* fn_ = nullptr;
  std::unordered_map<const ir::VarNode*, llvm::Value*> vars_;
  llvm::MDNode* tbaa_root_ = nullptr;
  std::unordered_map<const ir::VarNode*, llvm::MDNode*> tbaa_tags_;
  std::unordered_set<const ir::VarNode*> derived_pointers_;  // let-bound handles: untagged
};

}  // namespace tsch::codegen
