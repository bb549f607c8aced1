// unsafe_set_dtype: give a buffer allocated in the function another element type (TVM's
// UnsafeSetDType). Every store into it casts the stored value to the new type and every load
// casts back to the old one, so the function's other code is unchanged; what precision is
// lost in between is the user's choice (hence "unsafe"). Buffers matched to a part of it
// (match_buffer) change type with it.
//
//   B = T.alloc_buffer((128, 128))  ->  B = T.alloc_buffer((128, 128), "float16")
//   B[vi, vj] = A[vi, vj] * 2.0     ->  B[vi, vj] = T.Cast("float16", A[vi, vj] * 2.0)
//   C[vi, vj] = B[vi, vj] + 1.0     ->  C[vi, vj] = T.Cast("float32", B[vi, vj]) + 1.0
#include "schedule/analysis.h"
#include "schedule/error.h"
#include "schedule/kind_registration.h"
#include "schedule/primitives.h"
#include "schedule/transform.h"

namespace tsch::schedule {

using namespace ir;

void unsafe_set_dtype(ScheduleState& s, BlockSid block_sid, int64_t buffer_index, const std::string& dtype_text) {
  const BlockNode* block = &s.block_at(block_sid);
  if (buffer_index < 0 || buffer_index >= static_cast<int64_t>(block->writes.size())) {
    fail_buffer_index_out_of_range(s, block_sid, buffer_index, true);
  }
  std::optional<DataType> dtype = DataType::parse(dtype_text);
  TSCH_USER_ASSERT_ARG(dtype.has_value(), ValueError, "dtype") << "unknown data type \"" << dtype_text << "\"";
  Buffer buffer = block->writes[static_cast<size_t>(buffer_index)].buffer;
  // Step 1. The same type: nothing to do.
  if (buffer->dtype == *dtype) return;
  // Step 2. Only a buffer the function allocates may change: a parameter's type is the caller's.
  if (!allocated_in_function(s, s.info(block_sid)->func, buffer)) {
    fail(s, kNonAllocatedBufferError, {block_sid},
         "The input buffer " + buffer->name +
             " is not allocated by a block. This means the buffer is either a function parameter or defined in "
             "`match_buffer` of "
             "a block.");
  }
  // Step 3. Rewrite the whole function body (the root block holds every use).
  BlockSid root = s.root_of(s.info(block_sid)->func);
  Stmt replaced = change_buffer(Stmt(std::make_shared<BlockNode>(s.block_at(root))), buffer,
                                BufferChange{*dtype, std::nullopt, std::nullopt});
  const BlockRealizeNode* r = s.info(root)->realize;
  s.replace(root, std::make_shared<BlockRealizeNode>(r->iter_values, r->predicate,
                                                     std::static_pointer_cast<const BlockNode>(replaced)));
}

void register_set_dtype_kinds(KindList& kinds) {
  kinds.push_back(define_kind(
      "UnsafeSetDType", "unsafe_set_dtype",
      {input("block", ParamType::Block), attr("buffer_index", ParamType::WriteIndex), attr("dtype", ParamType::Str)},
      OutputForm::None,
      [](Schedule& sch, InstructionCall& c) {
        unsafe_set_dtype(sch.state(), sch.block_sid(c.inputs[0]), c.attrs[0].as_int(), c.attrs[1].s);
      },
      "unsafe_set_dtype(block, buffer_index, dtype): store a buffer the block writes in another data type; stores cast "
      "to "
      "it, loads cast back.",
      "the buffer is allocated in the function (parameters keep their type); the precision lost is not checked",
      "B = T.alloc_buffer((128, 128))  ->  B = T.alloc_buffer((128, 128), \"float16\"), B[i] = T.Cast(\"float16\", "
      "v)"));
}

}  // namespace tsch::schedule
