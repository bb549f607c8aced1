// The region side of compute_at / reverse_compute_at (TVM's CalculateBlockVarDomain and the
// bounds ScopeReconstructor::MakeNewLoop guards): which values each iterator of the moved block
// must take under the loop so that it provides what the blocks there require, and the T.where
// terms that keep it inside its buffers, written and proved as TVM's analyzer does.
#pragma once

#include <optional>
#include <unordered_map>
#include <vector>

#include "arith/interval.h"
#include "ir/stmt.h"
#include "schedule/state.h"

namespace tsch::schedule::compute_at_detail {

// An iterator's values under the new loops (TVM's BlockVarDomainInfo): the loops cover
// `range`, what the consumers need; where that may pass the iterator's domain or the
// buffer's end, a T.where keeps the block inside `bound`.
struct IterRange {
  arith::Interval range;
  std::optional<arith::Interval> bound;
};

// The iterator ranges a block needs so that its `accesses` cover `needed` (per buffer, per
// dimension): the affine route, else dimension by dimension; iterators nothing constrains keep
// their whole domain. Refuses (UnboundedRegionError, not supported) what it cannot solve.
std::vector<IterRange> iter_ranges(
    const ScheduleState& s, BlockSid block_sid, const ir::BlockNode* block,
    const std::vector<ir::BufferRegion>& accesses,
    const std::unordered_map<const ir::BufferNode*, std::vector<arith::Interval>>& needed,
    const arith::VarDomain& loop_dom);

// reverse_compute_at: the block's new instances may read only what one iteration of the loop
// has produced (ConsumerRegionNotCoveredError otherwise).
void check_reads_produced(const ScheduleState& s, BlockSid block_sid, const ir::BlockNode* block,
                          const std::vector<IterRange>& ranges,
                          const std::unordered_map<const ir::BufferNode*, std::vector<arith::Interval>>& produced,
                          const arith::VarDomain& loop_dom);

// reverse_compute_at: every instance the block ran before still runs under the new loops —
// none reads the produced buffers outside the buffer (refused, not supported, otherwise).
void check_instances_kept(const ScheduleState& s, BlockSid block_sid, const ir::BlockNode* block,
                          const std::unordered_map<const ir::BufferNode*, std::vector<arith::Interval>>& produced);

// True when the comparison `t` holds under `dom`, symbolic bounds included (`k_0 * 32 + ax0 <
// n * 32` for k_0 < n; `x // n < 32` for x < n * 32).
bool prove_bound(const ir::PrimExpr& t, const arith::VarDomain& dom);

// `value >= limit` (lower) or `value < limit + 1` as TVM's simplifier writes it: `16 <= i`,
// `h_0 * 8 + ax0 < 225`.
ir::PrimExpr bound_term(const ir::PrimExpr& value, const ir::PrimExpr& limit, bool lower);

// A region bound `x // c` as TVM's simplifier leaves it under the loop ranges `dom`: the
// divisor's common factor with the coefficients cancelled, the coefficients' multiples of the
// divisor taken out, the rest folded where the ranges decide it (`(c_o * 360 + 359) // 16` is
// `c_o * 22 + 22` for c_o in [0, 1]). Other expressions are returned as they are.
ir::PrimExpr simplify_div_bound(const ir::PrimExpr& e, const arith::VarDomain& dom);

// `i * -1 + 9` as TVM's simplifier writes it: `9 - i`.
ir::PrimExpr reversed_form(const ir::PrimExpr& e);

}  // namespace tsch::schedule::compute_at_detail
