// storage_align: ask that a buffer's stride on `axis` be `factor * k + offset` (to avoid
// shared-memory bank conflicts). Recorded as the block annotation "buffer_dim_align", which
// lowering applies when it lays the buffer out (TVM's StorageAlign).
#include <fmt/format.h>

#include "ir/op.h"
#include "schedule/analysis.h"
#include "schedule/error.h"
#include "schedule/kind_registration.h"
#include "schedule/primitives.h"

namespace tsch::schedule {

using namespace ir;

namespace {

TSCH_SCHEDULE_ERROR_KIND(
    kStorageAlignAxisOutOfRangeError, "StorageAlignAxisOutOfRangeError",
    "The input `axis` is out of range. It is required to be in range [-ndim, ndim) where `ndim` is the number "
    "of dimensions of the buffer to set storage alignment.",
    "The input `axis` is out of range.");
TSCH_SCHEDULE_ERROR_KIND(kStorageAlignInvalidFactorError, "StorageAlignInvalidFactorError",
                         "The input `factor` of storage_align is expected to be a positive number.",
                         "The input `factor` of storage_align is expected to be a positive number.");
TSCH_SCHEDULE_ERROR_KIND(kStorageAlignInvalidOffsetError, "StorageAlignInvalidOffsetError",
                         "The input `offset` of storage_align is expected to be a non-negative number.",
                         "The input `offset` of storage_align is expected to be a non-negative number.");

}  // namespace

void storage_align(ScheduleState& s, BlockSid block_sid, int64_t buffer_index, int64_t axis, int64_t factor,
                   int64_t offset) {
  // Step 1. Check: a written buffer allocated by a block, a valid axis, a positive factor.
  const BlockNode* block = &s.block_at(block_sid);
  if (buffer_index < 0 || buffer_index >= static_cast<int64_t>(block->writes.size())) {
    fail_buffer_index_out_of_range(s, block_sid, buffer_index, true);
  }
  Buffer buffer = block->writes[static_cast<size_t>(buffer_index)].buffer;
  if (!allocated_in_function(s, s.info(block_sid)->func, buffer)) {
    fail(s, kNonAllocatedBufferError, {block_sid},
         "The input buffer " + buffer->name +
             " is not allocated by a block. This means the buffer is either a function parameter or defined in "
             "`match_buffer` of "
             "a block.");
  }
  int64_t ndim = static_cast<int64_t>(buffer->shape.size());
  if (axis < -ndim || axis >= ndim) {
    fail(s, kStorageAlignAxisOutOfRangeError, {block_sid},
         fmt::format("The buffer to set storage alignment of, {}, has {} dimension(s), so `axis` is required to be in "
                     "[{}, {}) for "
                     "storage_align. However, the input `axis` is {}, which is out of the expected range.",
                     buffer->name, ndim, -ndim, ndim, axis));
  }
  if (axis < 0) axis += ndim;
  if (factor <= 0) {
    fail(s, kStorageAlignInvalidFactorError, {block_sid},
         fmt::format("The input `factor` of storage_align is expected to be a positive number. However, the input "
                     "`factor` is {}, "
                     "which is out of the expected range.",
                     factor));
  }
  if (offset < 0) {
    fail(s, kStorageAlignInvalidOffsetError, {block_sid},
         fmt::format("The input `offset` of storage_align is expected to be a non-negative number. However, the input "
                     "`offset` is "
                     "{}, which is out of the expected range.",
                     offset));
  }

  // Step 2. Append [buffer_index, axis, factor, offset] to the block's "buffer_dim_align".
  auto copy = std::make_shared<BlockNode>(*block);
  AttrValue entry;
  entry.kind = AttrValue::Kind::Array;
  for (int64_t v : {buffer_index, axis, factor, offset}) entry.array.push_back(AttrValue::of_int(v));
  bool found = false;
  for (auto& [k, v] : copy->annotations) {
    if (k == "buffer_dim_align") {
      v.array.push_back(entry);
      found = true;
    }
  }
  if (!found) {
    AttrValue list;
    list.kind = AttrValue::Kind::Array;
    list.array.push_back(entry);
    copy->annotations.emplace_back("buffer_dim_align", list);
  }
  const BlockRealizeNode* r = s.info(block_sid)->realize;
  s.replace(block_sid, std::make_shared<BlockRealizeNode>(r->iter_values, r->predicate, copy));
}

}  // namespace tsch::schedule

// ---- instruction kind

namespace tsch::schedule {

void register_storage_align_kinds(KindList& kinds) {
  kinds.push_back(define_kind(
      "StorageAlign", "storage_align",
      {input("block", ParamType::Block), attr("buffer_index", ParamType::Int), attr("axis", ParamType::Int),
       attr("factor", ParamType::Int), attr("offset", ParamType::Int)},
      OutputForm::None,
      [](Schedule& sch, InstructionCall& c) {
        storage_align(sch.state(), sch.block_sid(c.inputs[0]), c.attrs[0].as_int(), c.attrs[1].as_int(),
                      c.attrs[2].as_int(), c.attrs[3].as_int());
      },
      "storage_align(block, buffer_index, axis, factor, offset): stride of axis = factor * k + offset.",
      "the buffer is written by the block and allocated in the function; axis is one of its dimensions",
      "storage_align(b, 0, axis=0, factor=128, offset=1)  ->  T.block_attr({\"buffer_dim_align\": ...})"));
}

}  // namespace tsch::schedule
