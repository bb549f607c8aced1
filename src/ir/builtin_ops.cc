// TVM's builtin ops as tvm/tir/op.py builds them: parameters and result types.
#include "ir/builtin_ops.h"

#include "ir/op.h"

namespace tsch::ir {

const std::vector<BuiltinOp>& builtin_ops() {
  static const std::vector<BuiltinOp> list = {
      {"tvm_tuple", "*value", BuiltinResult::Fixed, DataType::handle()},
      {"tvm_struct_get", "arr, index, field, dtype", BuiltinResult::DtypeLast},
      {"tvm_struct_set", "arr, index, field, value", BuiltinResult::Fixed, DataType::int32()},
      {"lookup_param", "param_name, span=None", BuiltinResult::Fixed, DataType::handle()},
      {"undef", "", BuiltinResult::Fixed, DataType::int32()},
      {"tvm_thread_allreduce", "*freduce_args", BuiltinResult::Fixed, DataType::handle()},
      {"tvm_throw_last_error", "", BuiltinResult::Fixed, DataType::handle()},
      {"ptx_mma_sp", "dtype, *args", BuiltinResult::DtypeFirst},
      {"ptx_cp_async", "dtype, shared_ptr, shared_offset, global_ptr, global_offset, bytes", BuiltinResult::DtypeFirst},
      {"ptx_cp_async_bulk", "dtype, shared_ptr, shared_offset, global_ptr, global_offset, bytes, barrier_id",
       BuiltinResult::DtypeFirst},
      {"ptx_commit_group", "", BuiltinResult::Fixed},
      {"ptx_wait_group", "num", BuiltinResult::Fixed},
      {"ptx_cp_async_barrier", "barrier_id", BuiltinResult::Fixed},
      {"ptx_init_barrier_thread_count", "barrier_id, thread_count", BuiltinResult::Fixed},
      {"ptx_arrive_barrier", "barrier_id", BuiltinResult::Fixed},
      {"ptx_arrive_barrier_expect_tx", "barrier_id, byte_count", BuiltinResult::Fixed},
      {"ptx_wait_barrier", "barrier_id", BuiltinResult::Fixed},
      {"create_barriers", "barrier_count", BuiltinResult::Fixed},
      {"vectorcombine", "dtype, vec1, vec2", BuiltinResult::DtypeFirst},
      {"get_active_lane_mask", "dtype, base, limit", BuiltinResult::DtypeFirst},
      {"clz", "x", BuiltinResult::Fixed, DataType::int32()},
      {"isnullptr", "x, span=None", BuiltinResult::Fixed, DataType::bool_()},
      {"TVMBackendAllocWorkspace", "device_type, device_id, nbytes, dtype_code_hint, dtype_bits_hint",
       BuiltinResult::Fixed, DataType::handle()},
      {"TVMBackendFreeWorkspace", "device_type, device_id, ptr", BuiltinResult::Fixed, DataType::int32()},
      {"ldexp", "x1, x2", BuiltinResult::FirstOperand},
      {"hypot", "x1, x2", BuiltinResult::FirstOperand},
      {"nextafter", "x1, x2", BuiltinResult::FirstOperand},
      {"copysign", "x1, x2", BuiltinResult::FirstOperand},
      {"asinh", "x", BuiltinResult::FirstOperand},
      {"acosh", "x", BuiltinResult::FirstOperand},
      {"atanh", "x", BuiltinResult::FirstOperand},
      {"start_profile_intrinsic", "id", BuiltinResult::Fixed, DataType::handle()},
      {"end_profile_intrinsic", "id", BuiltinResult::Fixed, DataType::handle()},
      {"handle_add_byte_offset", "handle, offset", BuiltinResult::Fixed, DataType::handle()},
      {"tvm_stack_alloca", "dtype_str, num", BuiltinResult::Fixed, DataType::handle()},
  };
  return list;
}

PrimExpr builtin_call(const BuiltinOp& op, DataType dtype, std::vector<PrimExpr> operands) {
  DataType t = op.fixed;
  if (op.result == BuiltinResult::DtypeFirst || op.result == BuiltinResult::DtypeLast) t = dtype;
  if (op.result == BuiltinResult::FirstOperand) t = operands.at(0)->dtype;
  return call(t, op.name, std::move(operands));
}

}  // namespace tsch::ir
