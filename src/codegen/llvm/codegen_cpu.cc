#include "codegen/llvm/codegen_cpu.h"

#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Verifier.h>

#include <unordered_set>

#include "codegen/interrupt_chunks.h"
#include "codegen/llvm/packed_call.h"
#include "codegen/loop_facts.h"
#include "codegen/signature.h"
#include "ir/functor.h"
#include "ir/op.h"

namespace tsch::codegen {

using runtime::BufferParam;

FunctionSignature CodeGenCPU::emit_function(const std::string& name, const ir::PrimFunc& f) {
  FunctionSignature sig = collect_signature(name, f);
  // The implementation takes typed, noalias parameters; the entry point unpacks arrays.
  std::vector<llvm::Type*> params;
  std::vector<const ir::VarNode*> bound;
  for (size_t i = 0; i < f->params.size(); ++i) {
    if (sig.buffers[i]) {
      params.push_back(b_.getPtrTy());
      bound.push_back(f->buffer_of(f->params[i])->data.get());
    }
  }
  for (const auto& v : sig.scalar_slots) {
    params.push_back(type_of(v->dtype));
    bound.push_back(v.get());
  }
  // Every generated function returns a status: 0, or runtime::kStatusOutOfMemory.
  auto* impl_type = llvm::FunctionType::get(b_.getInt32Ty(), params, false);
  fn_ = llvm::Function::Create(impl_type, llvm::Function::InternalLinkage, name + "_compute", mod_);
  fn_->addFnAttr(llvm::Attribute::NoUnwind);
  size_t n_buffers = 0;
  for (size_t i = 0; i < params.size(); ++i) {
    llvm::Argument* arg = fn_->getArg(static_cast<unsigned>(i));
    vars_[bound[i]] = arg;
    if (params[i]->isPointerTy()) {
      ++n_buffers;
      // Parameters never alias (TVM's tir.noalias): the key to vectorized loops.
      arg->addAttr(llvm::Attribute::NoAlias);
      arg->addAttr(llvm::Attribute::getWithAlignment(ctx_, llvm::Align(64)));
    }
  }
  auto* entry = llvm::BasicBlock::Create(ctx_, "entry", fn_);
  b_.SetInsertPoint(entry);
  emit(interrupt_checks_ ? chunk_for_interrupts(f->body) : f->body);
  b_.CreateRet(b_.getInt32(0));

  // Entry point: status fn(void** buffers, int64_t* scalars).
  auto* entry_type = llvm::FunctionType::get(b_.getInt32Ty(), {b_.getPtrTy(), b_.getPtrTy()}, false);
  auto* wrapper = llvm::Function::Create(entry_type, llvm::Function::ExternalLinkage, name, mod_);
  b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", wrapper));
  std::vector<llvm::Value*> args;
  for (size_t i = 0; i < n_buffers; ++i) {
    llvm::Value* slot = b_.CreateConstGEP1_64(b_.getPtrTy(), wrapper->getArg(0), i);
    args.push_back(b_.CreateLoad(b_.getPtrTy(), slot));
  }
  for (size_t i = 0; i < sig.scalar_slots.size(); ++i) {
    llvm::Value* slot = b_.CreateConstGEP1_64(b_.getInt64Ty(), wrapper->getArg(1), i);
    DataType t = sig.scalar_slots[i]->dtype;
    llvm::Value* raw = b_.CreateLoad(b_.getInt64Ty(), slot);
    if (t.is_float())
      raw = b_.CreateFPCast(b_.CreateBitCast(raw, b_.getDoubleTy()), type_of(t));
    else
      raw = b_.CreateIntCast(raw, type_of(t), true);
    args.push_back(raw);
  }
  b_.CreateRet(b_.CreateCall(fn_, args));
  return sig;
}

void CodeGenCPU::emit_allocate(const ir::AllocateNode& n) {
  const ir::Buffer& buf = n.buffer;
  llvm::Type* elem = memory_type(buf->dtype);
  // The element count and byte size, overflow-checked at build time for constant shapes
  // and at run time otherwise: an overflowing size asks the runtime for -1 bytes, which it
  // refuses, instead of wrapping to a small buffer that the kernel then overruns.
  auto elem_bytes = static_cast<int64_t>(mod_.getDataLayout().getTypeAllocSize(elem));
  int64_t count = 1;
  bool constant = true, overflow = false;
  llvm::Value* size = llvm::ConstantInt::get(b_.getInt64Ty(), 1);
  llvm::Value* size_overflow = b_.getFalse();
  llvm::Function* smul = llvm::Intrinsic::getDeclaration(&mod_, llvm::Intrinsic::smul_with_overflow, {b_.getInt64Ty()});
  auto multiply = [&](llvm::Value* factor) {
    llvm::Value* r = b_.CreateCall(smul, {size, factor});
    size = b_.CreateExtractValue(r, 0);
    size_overflow = b_.CreateOr(size_overflow, b_.CreateExtractValue(r, 1));
  };
  for (const auto& d : buf->shape) {
    int64_t c;
    if (ir::as_const_int(d, &c))
      overflow |= c < 0 || __builtin_mul_overflow(count, c, &count);
    else
      constant = false;
    multiply(b_.CreateIntCast(emit(d), b_.getInt64Ty(), true));
  }
  int64_t bytes = 0;
  overflow |= __builtin_mul_overflow(count, elem_bytes, &bytes);
  if (overflow) constant = false;
  if (constant && bytes <= kMaxStackBytes) {
    // At the function's entry, so a loop around the allocation does not grow the stack.
    llvm::IRBuilder<> entry(&fn_->getEntryBlock(), fn_->getEntryBlock().begin());
    llvm::AllocaInst* a = entry.CreateAlloca(elem, llvm::ConstantInt::get(b_.getInt64Ty(), count), buf->name);
    a->setAlignment(llvm::Align(64));
    if (poison_allocations_) b_.CreateMemSet(a, b_.getInt8(0xFF), b_.getInt64(bytes), llvm::MaybeAlign(64));
    vars_[buf->data.get()] = a;
    emit(n.body);
    vars_.erase(buf->data.get());
    return;
  }
  multiply(b_.getInt64(elem_bytes));
  llvm::Value* nbytes = b_.CreateSelect(size_overflow, b_.getInt64(-1), size);
  // From the runtime's workspace pool (runtime/workspace.h): memory stays warm across calls.
  llvm::FunctionCallee alloc = mod_.getOrInsertFunction("tsch_workspace_alloc", b_.getPtrTy(), b_.getInt64Ty());
  llvm::FunctionCallee release = mod_.getOrInsertFunction("tsch_workspace_free", b_.getVoidTy(), b_.getPtrTy());
  llvm::CallInst* p = b_.CreateCall(alloc, {nbytes});
  p->addRetAttr(llvm::Attribute::NoAlias);  // fresh memory, as malloc's
  return_if_failed(b_.CreateIsNull(p));
  if (poison_allocations_) b_.CreateMemSet(p, b_.getInt8(0xFF), nbytes, llvm::MaybeAlign(1));
  vars_[buf->data.get()] = p;
  live_workspace_.push_back(p);
  emit(n.body);
  live_workspace_.pop_back();
  b_.CreateCall(release, {p});
  vars_.erase(buf->data.get());
}

// Returns kStatusInterrupted (releasing the workspace held) once Ctrl-C set the flag.
void CodeGenCPU::return_if_interrupted() {
  llvm::GlobalVariable* flag = mod_.getNamedGlobal("tsch_interrupt_pending");
  if (!flag) {
    flag = new llvm::GlobalVariable(mod_, b_.getInt32Ty(), false, llvm::GlobalValue::ExternalLinkage, nullptr,
                                    "tsch_interrupt_pending");
  }
  llvm::LoadInst* pending = b_.CreateLoad(b_.getInt32Ty(), flag, "interrupt_pending");
  pending->setVolatile(true);
  return_if_failed(b_.CreateICmpNE(pending, b_.getInt32(0)), runtime::kStatusInterrupted);
}

// When `failed` holds, the current function releases the workspace it holds and returns
// `status` (a parallel task returns it to tsch_parallel_for, which hands it to the
// function that started the loop, and so on up to the caller, which raises).
void CodeGenCPU::return_if_failed(llvm::Value* failed, int32_t status) {
  return_if_failed(failed, b_.getInt32(status),
                   status == runtime::kStatusInterrupted ? "interrupted" : "out_of_memory");
}

void CodeGenCPU::return_if_failed(llvm::Value* failed, llvm::Value* status, const char* what) {
  auto* fail = llvm::BasicBlock::Create(ctx_, what, fn_);
  auto* go_on = llvm::BasicBlock::Create(ctx_, "go_on", fn_);
  b_.CreateCondBr(failed, fail, go_on, llvm::MDBuilder(ctx_).createBranchWeights(1, 1 << 20));
  b_.SetInsertPoint(fail);
  llvm::FunctionCallee release = mod_.getOrInsertFunction("tsch_workspace_free", b_.getVoidTy(), b_.getPtrTy());
  for (auto it = live_workspace_.rbegin(); it != live_workspace_.rend(); ++it) b_.CreateCall(release, {*it});
  b_.CreateRet(status);
  b_.SetInsertPoint(go_on);
}

// A parallel loop: its body becomes a function run by the runtime's thread pool on chunks
// of the iteration space; the variables it reads are passed in a closure struct.
void CodeGenCPU::emit_parallel(const ir::ForNode& n) {
  if (in_parallel_) {  // a parallel loop inside a task runs serially in that task
    loop(n.loop_var, emit(n.min), emit(n.extent), n.body, false);
    return;
  }
  std::vector<const ir::VarNode*> captured = free_vars(n, [&](const ir::VarNode* v) { return vars_.count(v) > 0; });
  std::vector<llvm::Type*> field_types;
  for (auto* v : captured) field_types.push_back(vars_.at(v)->getType());
  llvm::StructType* closure_type = llvm::StructType::get(ctx_, field_types);
  llvm::IRBuilder<> entry(&fn_->getEntryBlock(), fn_->getEntryBlock().begin());
  llvm::Value* closure = entry.CreateAlloca(closure_type);
  for (size_t i = 0; i < captured.size(); ++i)
    b_.CreateStore(vars_.at(captured[i]), b_.CreateStructGEP(closure_type, closure, static_cast<unsigned>(i)));
  llvm::Value* begin = b_.CreateIntCast(emit(n.min), b_.getInt64Ty(), true);
  llvm::Value* extent = b_.CreateIntCast(emit(n.extent), b_.getInt64Ty(), true);
  // The task function: (task, num_tasks, closure, begin, extent).
  auto* task_type = llvm::FunctionType::get(
      b_.getInt32Ty(), {b_.getInt64Ty(), b_.getInt64Ty(), b_.getPtrTy(), b_.getInt64Ty(), b_.getInt64Ty()}, false);
  auto* task_fn = llvm::Function::Create(task_type, llvm::Function::InternalLinkage,
                                         fn_->getName() + "_parallel_" + n.loop_var->name, mod_);
  task_fn->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::FunctionCallee parallel_for = mod_.getOrInsertFunction("tsch_parallel_for", b_.getInt32Ty(), b_.getPtrTy(),
                                                               b_.getPtrTy(), b_.getInt64Ty(), b_.getInt64Ty());
  llvm::Value* status = b_.CreateCall(parallel_for, {task_fn, closure, begin, extent});
  // A failed task's own status (out of memory, interrupted, a failed packed call) goes up.
  return_if_failed(b_.CreateICmpNE(status, b_.getInt32(0)), status, "task_failed");

  // Emit the task function's body with its own variable scope.
  llvm::Function* saved_fn = fn_;
  llvm::IRBuilderBase::InsertPoint saved_ip = b_.saveIP();
  auto saved_vars = vars_;
  auto saved_workspace = std::move(live_workspace_);
  live_workspace_.clear();  // the task releases only what it allocates itself
  fn_ = task_fn;
  in_parallel_ = true;
  b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", task_fn));
  llvm::Value* arg_closure = task_fn->getArg(2);
  for (size_t i = 0; i < captured.size(); ++i) {
    llvm::Value* v =
        b_.CreateLoad(field_types[i], b_.CreateStructGEP(closure_type, arg_closure, static_cast<unsigned>(i)));
    vars_[captured[i]] = v;
  }
  // This task's chunk: [begin + task * per, min(begin + extent, that + per)).
  llvm::Value* task = task_fn->getArg(0);
  llvm::Value* ntasks = task_fn->getArg(1);
  llvm::Value* tbegin = task_fn->getArg(3);
  llvm::Value* textent = task_fn->getArg(4);
  llvm::Value* per = b_.CreateSDiv(b_.CreateSub(b_.CreateAdd(textent, ntasks), b_.getInt64(1)), ntasks);
  llvm::Value* lo = b_.CreateAdd(tbegin, b_.CreateMul(task, per));
  llvm::Value* stop = b_.CreateAdd(tbegin, textent);
  llvm::Value* hi = b_.CreateSelect(b_.CreateICmpSLT(b_.CreateAdd(lo, per), stop), b_.CreateAdd(lo, per), stop);
  llvm::Value* count = b_.CreateSelect(b_.CreateICmpSLT(lo, hi), b_.CreateSub(hi, lo), b_.getInt64(0));
  llvm::Type* var_type = type_of(n.loop_var->dtype);
  loop(n.loop_var, b_.CreateIntCast(lo, var_type, true), b_.CreateIntCast(count, var_type, true), n.body, false);
  b_.CreateRet(b_.getInt32(0));
  fn_ = saved_fn;
  in_parallel_ = false;
  vars_ = std::move(saved_vars);
  live_workspace_ = std::move(saved_workspace);
  b_.restoreIP(saved_ip);
}

void CodeGenCPU::at_loop_head(const Stmt& body, bool unroll) {
  if (interrupt_checks_ && !unroll && holds_heavy_loop(body)) return_if_interrupted();
}

llvm::Value* CodeGenCPU::target_call(const ir::CallNode& n) {
  // CUDA's asynchronous copies, run by the CPU emulation of a kernel: a plain copy, complete
  // at once (so committing and waiting do nothing).
  if (n.op == "ptx_cp_async" && n.args.size() == 5) {
    int64_t bytes = 0;
    if (!ir::as_const_int(n.args[4], &bytes)) throw BuildError("T.ptx_cp_async: the byte count must be a constant");
    llvm::Value* elem = b_.getInt64(n.dtype.bits / 8);
    auto address = [&](const ir::PrimExpr& data, const ir::PrimExpr& offset) {
      llvm::Value* i = b_.CreateMul(b_.CreateIntCast(emit(offset), b_.getInt64Ty(), true), elem);
      return b_.CreateGEP(b_.getInt8Ty(), emit(data), i);
    };
    b_.CreateMemCpy(address(n.args[0], n.args[1]), llvm::MaybeAlign(1), address(n.args[2], n.args[3]),
                    llvm::MaybeAlign(1), static_cast<uint64_t>(bytes));
    return b_.getInt32(0);
  }
  if (n.op == "ptx_commit_group" || n.op == "ptx_wait_group") return b_.getInt32(0);
  if (n.op != "call_packed") return CodeGenLLVM::target_call(n);
  PackedCallValues pc = emit_packed_call(b_, mod_, *fn_, n, [this](const PrimExpr& e) { return emit(e); });
  return_if_failed(b_.CreateICmpNE(pc.status, b_.getInt32(0)), pc.status, "packed_call_failed");
  return b_.CreateIntCast(pc.result, type_of(n.dtype), true);
}

FunctionSignature emit_function(llvm::Module& module, const std::string& name, const ir::PrimFunc& f,
                                bool interrupt_checks, bool poison_allocations) {
  return CodeGenCPU(module, interrupt_checks, poison_allocations).emit_function(name, f);
}

}  // namespace tsch::codegen
