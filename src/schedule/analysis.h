// What the primitives ask about blocks and buffers (TVM's schedule analysis): who reads and
// writes a buffer in a block's scope, producers and consumers, output and complete or
// reduction blocks, where buffers are allocated, and access regions relaxed up to a loop.
// Each question is answered here once; the primitives and (later) schedule rules ask.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "arith/interval.h"
#include "ir/stmt.h"
#include "schedule/state.h"

namespace tsch::schedule {

// ---- dataflow within a block scope

bool reads_buffer(const ir::BlockNode* block, const ir::Buffer& buffer);
bool writes_buffer(const ir::BlockNode* block, const ir::Buffer& buffer);

// The blocks of `block`'s scope that write what it reads (producers) or read what it writes
// (consumers), in program order. (primitives.h declares them: they are also instructions.)
std::vector<BlockSid> get_producers(const ScheduleState& s, BlockSid block);
std::vector<BlockSid> get_consumers(const ScheduleState& s, BlockSid block);

// Another block of `block`'s scope that writes `buffer`, or 0. A block that is the only
// writer of its outputs is "dominant", one condition of TVM's complete block: after
// decompose_reduction, for one, the init and the update block both write the output.
BlockSid other_writer(const ScheduleState& s, BlockSid block, const ir::Buffer& buffer);

// ---- allocation and output blocks

// Whether the block `scope` allocates `buffer` (T.alloc_buffer in it).
bool allocated_in_scope(const ScheduleState& s, BlockSid scope, const ir::Buffer& buffer);
// Whether some block of function `func` (its root included) allocates `buffer`; false for
// parameters and match_buffer views.
bool allocated_in_function(const ScheduleState& s, const std::string& func, const ir::Buffer& buffer);
// TVM's output block: one that writes a buffer its scope does not allocate (a parameter).
bool is_output_block(const ScheduleState& s, BlockSid block);

// Whether `e` is quasi-affine in the variables `is_iter` accepts (TVM's affine bindings, the
// iterators' mixed-radix structure left aside): sums of iterators times constants, floordiv
// and floormod of such a sum by a positive constant; anything free of iterators is a symbol.
bool is_quasi_affine(const ir::PrimExpr& e, const std::function<bool(const ir::VarNode*)>& is_iter);

// ---- block kinds

// Refuses a block that is neither complete (data-parallel iterators only, the only writer
// of its outputs, reading none of them) nor a reduction (a T.init, the only writer of its
// outputs): moving such a block can repeat or reorder its updates (TVM's
// CheckCompleteOrReductionBlock, as compute_at and reverse_compute_at ask for).
void check_complete_or_reduction(const ScheduleState& s, BlockSid block);

// Refuses a block that is not a reduction (TVM's CheckReductionBlock, NotReductionBlockError
// with the condition it violates): 1) a T.init, 2) quasi-affine bindings, 3) data-parallel and
// reduction iterators only, 4) the only writer of its outputs in its scope, 5) no reduction
// iterator in the indices it writes.
void check_reduction_block(const ScheduleState& s, BlockSid block);

// Refuses a block that is not complete (TVM's CheckCompleteBlock, IncompleteBlockError):
// 1) data-parallel iterators only, 2) the only writer of its outputs in its scope, 3) reading
// none of the buffers it writes.
void check_complete_block(const ScheduleState& s, BlockSid block);

// The statement that holds `block` with the loops that hold nothing else, and whether it
// is a top-level statement of the block's scope (what inlining can remove).
const ir::StmtNode* block_subtree(const ScheduleState& s, BlockSid block, bool& top_level);

// ---- regions

// The bounds of `e` over `dom`, with no variable of `dom` left in them: a loop whose extent
// names an outer relaxed loop (compute_at's clamped `ax0`) gives bounds in that loop's
// variable, which are relaxed in turn. Unbounded (no min) when that does not settle.
arith::Interval relax_bounds(const ir::PrimExpr& e, const arith::VarDomain& dom);

// The region of `region` (of `block`, whose realize binds its iterators) when the loops
// strictly inside `loop` are relaxed; outer loops and `loop` itself stay symbolic (`loop` 0:
// every loop around the block is relaxed).
// `gapped`, when given, is set where the relaxed interval is provably larger than the
// points it stands for (`j_0 * 16 + j_1` over j_0 in [0, 8) is 8 points spread over 113).
// With `relax_threads_by_scope` (compute_at), thread-bound loops at or above `loop` are
// relaxed too where the buffer's storage scope is shared by their threads (TVM's
// CanRelaxStorageUnderThread): a "shared" buffer is filled for the whole thread block.
// The block's T.where narrows the region where a term bounds a part of an index (`j_1 < 2`
// for `j_0 * 2 + j_1`); `predicate_unused`, when given, is set where a term over the relaxed
// loops narrowed nothing (the region may then be larger than what the block touches).
std::vector<arith::Interval> relaxed_region(const ScheduleState& s, BlockSid block, LoopSid loop,
                                            const ir::BufferRegion& region, bool* gapped = nullptr,
                                            bool relax_threads_by_scope = false, bool* predicate_unused = nullptr);

}  // namespace tsch::schedule
