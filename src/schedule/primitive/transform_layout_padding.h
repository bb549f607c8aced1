// transform_layout's padding (TVM's TransformLayoutPlanner): the padded extents of a map that is
// bijective only over a larger index space, and how the padding gets its value — the producer
// rewritten over the new shape with `T.if_then_else(padding, pad_value, value)`, a padding block
// after the producer, or, for a buffer nothing writes (an input), a block of `T.assume`s.
// transform_layout.cc calls these; transform_layout_padding.cc defines them.
#pragma once

#include <optional>
#include <unordered_map>

#include "arith/iter_map.h"
#include "schedule/primitives.h"
#include "schedule/state.h"

namespace tsch::schedule {

// Extents at least the buffer's under which the map becomes bijective, or nothing.
std::optional<arith::LoopExtents> padded_extents(const std::vector<ir::Var>& params,
                                                 const std::vector<ir::PrimExpr>& outputs,
                                                 const arith::LoopExtents& extents,
                                                 const std::vector<ir::PrimExpr>& shape);

// Constant shifts of the map's indices: `(i + 1) // 8, (i + 1) % 8` is a map of q = i + 1,
// whose values below 1 are padding as well as those past the end.
using IndexOffsets = std::unordered_map<const ir::VarNode*, int64_t>;

// The positive shift `c` of each index that the outputs add it to (`i + c`).
IndexOffsets index_offsets(const std::vector<ir::Var>& params, const std::vector<ir::PrimExpr>& outputs);

// The outputs over the shifted indices: each index `p` replaced by `p - c`, simplified.
std::vector<ir::PrimExpr> shifted_by(const std::vector<ir::Var>& params, const std::vector<ir::PrimExpr>& outputs,
                                     const IndexOffsets& offsets);

// What the padding planner needs: the map `params -> outputs` (detected over the padded
// extents as `map`, over the indices shifted by `offsets`), the original extents, the old
// buffer and the new one, the pad value.
struct PaddingContext {
  const ir::Buffer& buffer;
  const ir::Buffer& changed;
  const arith::IterMapResult& map;
  const std::vector<ir::Var>& params;
  const arith::LoopExtents& extents;
  const IndexOffsets& offsets;
  const LayoutPadding& padding;
};

// The padding block (TVM's "buffer_<B>_padding", EpiloguePlan): a nest over the new shape
// writing the pad value where T.where(padding).
ir::Stmt padding_nest(ScheduleState& s, const PaddingContext& c);

// The assumption block (TVM's "buffer_<B>_assumptions", ProloguePlan) for a buffer nothing
// in the function writes: `T.assume(not padding or B[...] == pad_value)` over the new shape.
ir::Stmt assumption_nest(ScheduleState& s, const PaddingContext& c);

// TVM's ReplacementPlan: each loop nest (keyed by its outermost loop) whose stores to the
// buffer visit every index in order, rewritten as a nest over the new shape that stores
// `T.if_then_else(padding, pad_value, value)`, already reading and writing `c.changed`.
// Empty where no producer qualifies (then the padding block is used). `scope` is the body
// of the block that holds the buffer's accesses.
std::unordered_map<const ir::StmtNode*, ir::Stmt> if_then_else_producers(ScheduleState& s, const ir::Stmt& scope,
                                                                         const PaddingContext& c);

// Whether `scope` stores into the buffer anywhere (blocks or not).
bool writes_buffer(const ir::Stmt& scope, const ir::Buffer& buffer);

}  // namespace tsch::schedule
