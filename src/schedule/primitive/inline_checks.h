// What the inlining primitives share (TVM keeps them together in compute_inline.cc): the
// complete-block and consumer-body conditions, and whether a block's subtree can be cut out.
// compute_inline.cc defines them; fuse_reduction_epilogue.cc asks them too.
#pragma once

#include <cstdint>

#include "schedule/error.h"

namespace tsch::schedule {

#define TSCH_COMPLETE_BLOCK_DEFINITION                                                                     \
  "Definition of a complete block:\n"                                                                      \
  "1) All block vars are data parallel\n"                                                                  \
  "2) Dominant: the block is the only writer of its output, dominating the reader of its output buffers\n" \
  "3) No overlap between the buffers the block reads and writes"

// {0}: a block that is not complete (TVM's IncompleteBlockError); the template names
// condition #2, fail_incomplete_block the one violated.
extern const ScheduleErrorKind& kIncompleteBlockError;
[[noreturn]] void fail_incomplete_block(const ScheduleState& s, BlockSid block, int condition);

// {0}: a consumer whose body is not `B[...] = g(..., A[f(...)], ...)` (TVM's BodyAnalysisError
// with is_reverse).
extern const ScheduleErrorKind& kReverseBodyAnalysisError;

// Whether the block's subtree (the block and the loops holding only it) can be cut out of
// the statement holding it: a sequence, in a loop or in the scope block.
bool removable_subtree(const ScheduleState& s, BlockSid block);

}  // namespace tsch::schedule
