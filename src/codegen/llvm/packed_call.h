// LLVM emission of T.call_packed(name, args...): the arguments packed into stack arrays in
// runtime/packed_call.h's layout (buffers as TschArrayArg with their declared shape) and a
// call to tsch_call_packed. The caller turns a nonzero status into a return.
#pragma once

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include <functional>

#include "ir/expr.h"

namespace tsch::codegen {

struct PackedCallValues {
  llvm::Value* status;  // i32: 0 or runtime::kStatusPackedCallFailed
  llvm::Value* result;  // i64: the function's int result, else 0
};

PackedCallValues emit_packed_call(llvm::IRBuilder<>& b, llvm::Module& module, llvm::Function& fn,
                                  const ir::CallNode& call,
                                  const std::function<llvm::Value*(const ir::PrimExpr&)>& emit);

}  // namespace tsch::codegen
