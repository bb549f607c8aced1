#include "codegen/llvm/packed_call.h"

#include "ir/op.h"
#include "runtime/module.h"
#include "runtime/packed_call.h"

namespace tsch::codegen {

using runtime::BuildError;

namespace {

const ir::CallNode* as_call(const ir::PrimExpr& e, const char* op) {
  auto* c = ir::as<ir::CallNode>(e);
  return c && c->op == op ? c : nullptr;
}

}  // namespace

PackedCallValues emit_packed_call(llvm::IRBuilder<>& b, llvm::Module& module, llvm::Function& fn,
                                  const ir::CallNode& call,
                                  const std::function<llvm::Value*(const ir::PrimExpr&)>& emit) {
  llvm::LLVMContext& ctx = module.getContext();
  auto* name = call.args.empty() ? nullptr : ir::as<ir::StringImmNode>(call.args[0]);
  if (!name) throw BuildError("T.call_packed: the first argument must be the function's name as a string");
  // Stack slots live in the entry block, so a loop around the call does not grow the stack.
  llvm::IRBuilder<> entry(&fn.getEntryBlock(), fn.getEntryBlock().begin());
  llvm::StructType* arg_type = llvm::StructType::get(ctx, {b.getInt32Ty(), b.getInt32Ty(), b.getInt64Ty()});
  llvm::StructType* array_type = llvm::StructType::get(
      ctx, {b.getPtrTy(), b.getPtrTy(), b.getInt32Ty(), b.getInt8Ty(), b.getInt8Ty(), b.getInt16Ty(), b.getInt64Ty()});
  size_t n = call.args.size() - 1;
  llvm::Value* args =
      entry.CreateAlloca(arg_type, b.getInt32(static_cast<uint32_t>(std::max<size_t>(n, 1))), "packed_args");
  for (size_t i = 0; i < n; ++i) {
    const ir::PrimExpr& a = call.args[i + 1];
    int32_t code;
    llvm::Value* value;
    if (const ir::CallNode* array = as_call(a, "tvm_stack_make_array")) {
      const ir::CallNode* shape = as_call(array->args[1], "tvm_stack_make_shape");
      int64_t strides = 0;
      if (!shape || !ir::as_const_int(array->args[2], &strides) || strides != 0)
        throw BuildError("not supported yet: T.tvm_stack_make_array with strides in T.call_packed");
      llvm::Value* dims = entry.CreateAlloca(
          b.getInt64Ty(), b.getInt32(static_cast<uint32_t>(std::max<size_t>(shape->args.size(), 1))));
      for (size_t d = 0; d < shape->args.size(); ++d)
        b.CreateStore(b.CreateIntCast(emit(shape->args[d]), b.getInt64Ty(), true),
                      b.CreateConstGEP1_64(b.getInt64Ty(), dims, d));
      llvm::Value* desc = entry.CreateAlloca(array_type);
      ir::DataType dtype = array->args[4]->dtype;
      llvm::Value* fields[] = {emit(array->args[0]),
                               dims,
                               b.getInt32(static_cast<uint32_t>(shape->args.size())),
                               b.getInt8(static_cast<uint8_t>(dtype.code)),
                               b.getInt8(static_cast<uint8_t>(dtype.bits)),
                               b.getInt16(static_cast<uint16_t>(dtype.lanes)),
                               b.CreateIntCast(emit(array->args[5]), b.getInt64Ty(), true)};
      for (unsigned f = 0; f < 7; ++f) b.CreateStore(fields[f], b.CreateStructGEP(array_type, desc, f));
      code = runtime::kPackedArray;
      value = b.CreatePtrToInt(desc, b.getInt64Ty());
    } else if (auto* s = ir::as<ir::StringImmNode>(a)) {
      code = runtime::kPackedStr;
      value = b.CreatePtrToInt(b.CreateGlobalString(s->value), b.getInt64Ty());
    } else if (a->dtype.lanes != 1) {
      throw BuildError("not supported yet: a vector argument to T.call_packed");
    } else if (a->dtype.is_float()) {
      code = runtime::kPackedFloat;
      value = b.CreateBitCast(b.CreateFPCast(emit(a), b.getDoubleTy()), b.getInt64Ty());
    } else if (a->dtype.is_handle()) {
      code = runtime::kPackedHandle;
      value = b.CreatePtrToInt(emit(a), b.getInt64Ty());
    } else {
      code = runtime::kPackedInt;
      value = b.CreateIntCast(emit(a), b.getInt64Ty(), !a->dtype.is_uint() && !a->dtype.is_bool());
    }
    llvm::Value* slot = b.CreateConstGEP1_64(arg_type, args, i);
    b.CreateStore(b.getInt32(static_cast<uint32_t>(code)), b.CreateStructGEP(arg_type, slot, 0));
    b.CreateStore(b.getInt32(0), b.CreateStructGEP(arg_type, slot, 1));
    b.CreateStore(value, b.CreateStructGEP(arg_type, slot, 2));
  }
  llvm::Value* result = entry.CreateAlloca(b.getInt64Ty(), nullptr, "packed_result");
  llvm::FunctionCallee callee = module.getOrInsertFunction("tsch_call_packed", b.getInt32Ty(), b.getPtrTy(),
                                                           b.getPtrTy(), b.getInt32Ty(), b.getPtrTy());
  llvm::Value* status =
      b.CreateCall(callee, {b.CreateGlobalString(name->value), args, b.getInt32(static_cast<uint32_t>(n)), result});
  return {status, b.CreateLoad(b.getInt64Ty(), result)};
}

}  // namespace tsch::codegen
