// rolling_buffer: keep only a window of an intermediate buffer along one axis (TVM's
// RollingBuffer). When a producer is computed at a tile loop of its consumer and adjacent
// tiles need overlapping parts of the buffer, the buffer is cut down to one tile's extent on
// the outermost such axis, accessed modulo that extent, and the producer skips the elements
// the previous tile already computed.
//
//   B = T.alloc_buffer((4, 10))                      B = T.alloc_buffer((4, 6))
//   for c, i_0 in T.grid(4, 2):                      for c, i_0 in T.grid(4, 2):
//     for ax0, ax1 in T.grid(6, 3):                    for ax0, ax1 in T.grid(6, 3):
//       with T.block("B"):                 ->            with T.block("B"):
//                                                          T.where(i_0 < 1 or ax0 >= 2)
//         vi = T.axis.spatial(10, i_0*4 + ax0)             vi = T.axis.opaque(10, i_0*4 + ax0)
//         B[cc, vi] = ...                                  B[cc, vi % 6] = ...
//     ... C reads B[cc, vi + vk]                       ... C reads B[cc, (vi + vk) % 6]
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "arith/block_access.h"
#include "arith/simplify.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "ir/printer.h"
#include "schedule/analysis.h"
#include "schedule/error.h"
#include "schedule/kind_registration.h"
#include "schedule/primitives.h"

namespace tsch::schedule {

using namespace ir;

namespace {

TSCH_SCHEDULE_ERROR_KIND(kRollingBufferDependencyError, "RollingBufferDependencyError",
                         "The target block is required to have only RAW dependencies",
                         "The target block {0} is required to have only RAW dependencies");
// TVM's strings, typo and missing space included.
TSCH_SCHEDULE_ERROR_KIND(
    kRollingBufferMatchError, "RollingBufferMatchError",
    "rolling_buffer expect the buffer region to have at least one dimentionmatching the rolling pattern such "
    "as: hh.outer * stride + hh.inner",
    "The target buffer should have at least one dimension range that matches a rolling pattern such as "
    "hh.outer * stride + hh.inner. ");
TSCH_SCHEDULE_ERROR_KIND(
    kRollingBufferInsertionError, "RollingBufferInsertionError",
    "rolling_buffer injection is invalid, the lca of the access location of the target buffer is not a for "
    "loop. ",
    "rolling_buffer injection is invalid. The block {0} should be tiled so that the lca of the access location "
    "of the target buffer is a for loop. ");

// What the relaxed write region says about each buffer dimension.
struct RollingInfo {
  Buffer old_buffer, new_buffer;
  size_t axis = 0;
  PrimExpr extent;
  std::vector<int64_t> overlaps;  // per dimension: extent - stride (0 where no loop rolls it)
  std::vector<PrimExpr> vars;     // per dimension: the loop variable rolling it, or null
};

// TVM's BlockScope dependencies restricted to `block`: with each other block of the scope
// (in program order), a buffer both write is WAW, a buffer the earlier reads and the later
// writes is WAR. Only RAW (the later reads what the earlier writes) is allowed.
bool has_only_raw_dependencies(const ScheduleState& s, BlockSid block_sid) {
  const BlockNode* block = &s.block_at(block_sid);
  bool before = true;
  for (BlockSid other_sid : s.child_blocks(s.scope_block(block_sid))) {
    if (other_sid == block_sid) {
      before = false;
      continue;
    }
    const BlockNode* other = &s.block_at(other_sid);
    const BlockNode* earlier = before ? other : block;
    const BlockNode* later = before ? block : other;
    for (const auto& w : arith::effective_access_regions(*later).writes) {
      if (writes_buffer(earlier, w.buffer) || reads_buffer(earlier, w.buffer)) return false;
    }
  }
  return true;
}

// The lowest loop or block holding all of `sids`.
StmtSid lowest_common_ancestor(const ScheduleState& s, const std::vector<BlockSid>& sids) {
  auto chain = [&](StmtSid sid) {
    std::vector<StmtSid> out;
    for (StmtSid x = sid; x; x = s.info(x)->parent) out.push_back(x);
    return out;
  };
  std::vector<StmtSid> common = chain(sids.front());
  for (size_t k = 1; k < sids.size(); ++k) {
    std::vector<StmtSid> other = chain(sids[k]);
    std::vector<StmtSid> kept;
    for (StmtSid x : common) {
      if (std::find(other.begin(), other.end(), x) != other.end()) kept.push_back(x);
    }
    common = kept;
  }
  return common.empty() ? StmtSid() : common.front();
}

// TVM's rolling pattern on the start of a relaxed range: floordiv(var * stride, divisor),
// var * stride, var, or a constant. Sets `var` and `stride` (var null for a constant);
// false for anything else.
bool match_rolling_start(const PrimExpr& start, PrimExpr& var, int64_t& stride) {
  auto var_times_const = [&](const PrimExpr& e, int64_t& k) {
    auto* m = as<MulNode>(e);
    if (!m || !as<VarNode>(m->a) || !as<IntImmNode>(m->b)) return false;
    var = m->a;
    k = as<IntImmNode>(m->b)->value;
    return true;
  };
  int64_t k = 0;
  if (auto* d = as<FloorDivNode>(start); d && as<IntImmNode>(d->b) && var_times_const(d->a, k)) {
    // A fractional stride (an upscale): floordiv(hh.outer * 5, 2) moves by ceil(5 / 2).
    int64_t divisor = as<IntImmNode>(d->b)->value;
    stride = static_cast<int64_t>(std::ceil(static_cast<float>(k) / static_cast<float>(divisor)));
    return true;
  }
  if (var_times_const(start, k)) {
    stride = k;
    return true;
  }
  if (as<VarNode>(start)) {
    var = start;
    stride = 1;
    return true;
  }
  var = nullptr;
  return as<IntImmNode>(start) != nullptr;
}

// Rewrites the scope: the buffer shrunk on the rolling axis and indexed modulo its extent,
// that iterator opaque in every block, the blocks' regions of the buffer re-inferred, and
// the storing block predicated so that it skips what the previous tile computed.
class RollingRewriter : public IRMutator {
 public:
  RollingRewriter(const ScheduleState& s, const RollingInfo& info, const BlockNode* scope)
      : s_(s), info_(info), scope_(scope) {}

  using IRMutator::mutate;

 protected:
  PrimExpr mutate_BufferLoad(const BufferLoadNode& n, const PrimExpr& self) override {
    PrimExpr out = IRMutator::mutate_BufferLoad(n, self);
    auto* load = as<BufferLoadNode>(out);
    if (load->buffer != info_.old_buffer) return out;
    return std::make_shared<BufferLoadNode>(load->dtype, info_.new_buffer, rolled(load->indices));
  }
  Stmt mutate_BlockRealize(const BlockRealizeNode& r, const Stmt& self) override { return mutate_realize(&r, self); }
  Stmt mutate_BufferStore(const BufferStoreNode& n, const Stmt& self) override {
    Stmt out = IRMutator::mutate_BufferStore(n, self);
    auto* store = as<BufferStoreNode>(out);
    if (store->buffer != info_.old_buffer) return out;
    stored_ = true;
    return std::make_shared<BufferStoreNode>(info_.new_buffer, store->value, rolled(store->indices));
  }
  Stmt mutate_Block(const BlockNode& b, const Stmt& self) override {
    return mutate_block(as<BlockNode>(IRMutator::mutate_Block(b, self)));
  }

 private:
  std::vector<PrimExpr> rolled(std::vector<PrimExpr> indices) const {
    indices[info_.axis] = floormod(indices[info_.axis], info_.extent);
    return indices;
  }

  Stmt mutate_block(const BlockNode* block) {
    auto copy = std::make_shared<BlockNode>(*block);
    if (block->sid == scope_->sid) {
      for (auto& b : copy->alloc_buffers) {
        if (b == info_.old_buffer) b = info_.new_buffer;
      }
      return copy;
    }
    // Every iteration of the rolling axis depends on all earlier ones: opaque, so that
    // lowering does not compact the inner loops' range.
    if (info_.axis < copy->iter_vars.size()) copy->iter_vars[info_.axis].type = IterType::Opaque;
    arith::AccessRegions inferred =
        arith::infer_access_regions(copy->body, copy->init, copy->alloc_buffers, copy->match_buffers);
    auto rewrite = [&](std::vector<BufferRegion>& regions, const std::vector<BufferRegion>& found) {
      for (auto& r : regions) {
        if (r.buffer != info_.old_buffer) continue;
        r.buffer = info_.new_buffer;
        for (const auto& f : found) {
          if (f.buffer == info_.new_buffer) r = f;
        }
      }
    };
    rewrite(copy->reads, inferred.reads);
    rewrite(copy->writes, inferred.writes);
    return copy;
  }

  Stmt mutate_realize(const BlockRealizeNode* realize, const Stmt& original) {
    bool outer_stored = stored_;
    stored_ = false;
    Stmt out = IRMutator::mutate_BlockRealize(*realize, original);
    bool stores = stored_;
    stored_ = outer_stored;
    if (!stores) return out;
    // The block writes the buffer: for each rolled dimension, compute an element only in
    // the first tile or beyond the overlap with the previous one.
    auto* r = as<BlockRealizeNode>(out);
    PrimExpr condition = r->predicate;
    for (size_t i = 0; i < info_.vars.size(); ++i) {
      if (!info_.vars[i] || info_.overlaps[i] <= 0) continue;
      // The element's index in dimension i, with the producer's own loop at 0: its offset in
      // the tile. (TVM takes the i-th binding, which is that index when the block's iterators
      // follow the buffer's dimensions, as a compute_at producer's do.)
      const BufferRegion* written = nullptr;
      for (const auto& w : realize->block->writes) {
        if (w.buffer == info_.old_buffer) written = &w;
      }
      if (!written || !is_one(arith::simplify(written->region[i].extent))) {
        fail_not_supported(
            s_, {sid_of(*realize->block)},
            fmt::format("rolling_buffer where block {{0}} writes more than one element of {} per iteration in "
                        "dimension {}",
                        info_.old_buffer->name, i));
      }
      std::unordered_map<const VarNode*, PrimExpr> bind;
      for (size_t k = 0; k < realize->block->iter_vars.size(); ++k)
        bind[realize->block->iter_vars[k].var.get()] = realize->iter_values[k];
      const PrimExpr& var = info_.vars[i];
      PrimExpr offset = arith::simplify(
          substitute(substitute(written->region[i].min, bind), {{as<VarNode>(var), make_int(0, var->dtype)}}));
      PrimExpr beyond =
          make_binary(ExprKind::LE, make_int(info_.overlaps[i], offset->dtype), offset);  // TVM: `2 <= ax0`
      PrimExpr term = make_binary(ExprKind::Or, make_binary(ExprKind::LT, var, make_int(1, var->dtype)), beyond);
      condition = !condition || is_one(condition) ? term : make_binary(ExprKind::And, condition, term);
    }
    return std::make_shared<BlockRealizeNode>(r->iter_values, condition, r->block);
  }

  const ScheduleState& s_;
  const RollingInfo& info_;
  const BlockNode* scope_;
  bool stored_ = false;
};

// Step 1: a written buffer, the block not an output block, only RAW dependencies. Returns
// the region written.
const BufferRegion& check_rolling_target(const ScheduleState& s, BlockSid block_sid, int64_t write_buffer_index) {
  const BlockNode* block = &s.block_at(block_sid);
  if (write_buffer_index < 0 || write_buffer_index >= static_cast<int64_t>(block->writes.size())) {
    fail_buffer_index_out_of_range(s, block_sid, write_buffer_index, true);
  }
  if (is_output_block(s, block_sid)) fail(s, kNotOutputBlockError, {block_sid});
  if (!has_only_raw_dependencies(s, block_sid)) fail(s, kRollingBufferDependencyError, {block_sid});
  return block->writes[static_cast<size_t>(write_buffer_index)];
}

// Step 2: the block and its consumers meet at a loop (TVM's RollingBufferInsertionError).
// Returns it.
LoopSid check_users_meet_at_loop(const ScheduleState& s, BlockSid block_sid, const Buffer& buffer) {
  std::vector<BlockSid> users = get_consumers(s, block_sid);
  users.push_back(block_sid);
  StmtSid lca = lowest_common_ancestor(s, users);
  if (!s.loop(lca)) {
    fail(s, kRollingBufferInsertionError, {block_sid},
         "rolling_buffer injection is invalid. The block {0} should be tiled so that the lca of the access location of "
         "the target "
         "buffer " +
             buffer->name + " is a for loop. ");
  }
  return s.as_loop(lca);
}

// The region the block writes within one iteration of loop `lca`, the loops below relaxed.
std::vector<Range> write_window(const ScheduleState& s, BlockSid block_sid, LoopSid lca, const BufferRegion& region) {
  const Buffer& buffer = region.buffer;
  std::vector<arith::Interval> relaxed = relaxed_region(s, block_sid, lca, region);
  std::vector<Range> window;
  for (size_t d = 0; d < relaxed.size(); ++d) {
    if (!relaxed[d].min) {
      window.push_back(
          Range{make_int(0, buffer->shape[d]->dtype), buffer->shape[d]});  // unbounded: the whole dimension
    } else {
      PrimExpr extent = arith::simplify(add(sub(relaxed[d].max, relaxed[d].min), make_int(1, relaxed[d].min->dtype)));
      window.push_back(Range{relaxed[d].min, extent});
    }
  }
  // A loop of one iteration has no next tile to overlap. TVM's compute_at has already folded
  // such loops into their value (its analyzer binds them); tsch's keeps them in the
  // bindings, so they are folded here, or `i1_0 * 8` over i1_0 in [0, 1) would be rolled.
  std::unordered_map<const VarNode*, PrimExpr> unit_loops;
  for (LoopSid loop : s.enclosing_loops(block_sid)) {
    const ForNode& f = s.loop_at(loop);
    if (is_one(f.extent)) unit_loops[f.loop_var.get()] = f.min;
  }
  for (Range& r : window) r.min = arith::simplify(substitute(r.min, unit_loops));
  return window;
}

// Per dimension of the window, the loop variable rolling it and the overlap with the next
// iteration's window; false where a dimension matches no rolling pattern.
bool match_window(const std::vector<Range>& window, RollingInfo& info) {
  for (const Range& r : window) {
    PrimExpr var;
    int64_t stride = 0, overlap = 0, extent = 0;
    if (!match_rolling_start(r.min, var, stride)) return false;
    if (var) {
      if (!as_const_int(r.extent, &extent)) return false;
      overlap = extent - stride;
      // A window that does not overlap the next one needs no rolling (compaction shrinks it).
      if (overlap <= 0) var = nullptr;
    }
    info.vars.push_back(var);
    info.overlaps.push_back(overlap);
  }
  return true;
}

// Step 3: a dimension whose window starts at a multiple of a loop variable and overlaps the
// next iteration's; the outermost such loop picks the rolling axis (TVM's
// RollingBufferMatchError otherwise).
RollingInfo match_rolling_axis(const ScheduleState& s, BlockSid block_sid, const Buffer& buffer,
                               const std::vector<Range>& window) {
  RollingInfo info;
  info.old_buffer = buffer;
  bool found = false;
  if (match_window(window, info)) {
    for (LoopSid loop : s.enclosing_loops(block_sid)) {
      const VarNode* loop_var = s.loop_at(loop).loop_var.get();
      auto it =
          std::find_if(info.vars.begin(), info.vars.end(), [&](const PrimExpr& v) { return v.get() == loop_var; });
      if (it != info.vars.end()) {
        info.axis = static_cast<size_t>(it - info.vars.begin());
        found = true;
        break;
      }
    }
  }
  if (!found) {
    std::string ranges;
    for (const Range& r : window)
      ranges += (ranges.empty() ? "" : ", ") + script(r.min) + ":" + script(arith::simplify(add(r.min, r.extent)));
    fail(s, kRollingBufferMatchError, {block_sid},
         fmt::format("The target buffer {} with region [{}] should have at least one dimension range that matches a "
                     "rolling pattern "
                     "such as hh.outer * stride + hh.inner. ",
                     buffer->name, ranges));
  }
  return info;
}

// Skipping what the previous tile computed needs the tiles in order: each loop that carries
// an overlap must be a serial loop around the block.
void check_rolling_loops_serial(const ScheduleState& s, BlockSid block_sid, const RollingInfo& info) {
  std::vector<LoopSid> loops = s.enclosing_loops(block_sid);
  for (size_t d = 0; d < info.vars.size(); ++d) {
    if (!info.vars[d] || info.overlaps[d] <= 0) continue;
    auto it = std::find_if(loops.begin(), loops.end(),
                           [&](LoopSid l) { return s.loop_at(l).loop_var.get() == info.vars[d].get(); });
    if (it == loops.end()) {
      fail_not_supported(s, {block_sid},
                         "rolling_buffer over " + script(info.vars[d]) + ", which is not a loop around block {0}");
    }
    if (s.loop_at(*it).for_kind != ForKind::Serial && s.loop_at(*it).for_kind != ForKind::Unrolled) {
      fail_not_supported(s, {*it, block_sid}, "rolling_buffer over {0}, which is not a serial loop");
    }
  }
}

}  // namespace

void rolling_buffer(ScheduleState& s, BlockSid block_sid, int64_t write_buffer_index) {
  // Step 1. Check: a written buffer, the block not an output block, only RAW dependencies.
  const BufferRegion& region = check_rolling_target(s, block_sid, write_buffer_index);
  const Buffer& buffer = region.buffer;
  BlockSid scope_sid = s.scope_block(block_sid);
  // Step 2. Check: the block and its consumers meet at a loop; the region the block writes
  // within one iteration of it, the loops below relaxed.
  LoopSid lca = check_users_meet_at_loop(s, block_sid, buffer);
  std::vector<Range> window = write_window(s, block_sid, lca, region);
  // Step 3. Check: the rolling axis, over serial loops.
  RollingInfo info = match_rolling_axis(s, block_sid, buffer, window);
  check_rolling_loops_serial(s, block_sid, info);
  if (!buffer->strides.empty()) fail_not_supported(s, {block_sid}, "rolling_buffer of a buffer with explicit strides");
  info.extent = window[info.axis].extent;
  auto shrunk = std::make_shared<BufferNode>(*buffer);
  shrunk->shape[info.axis] = info.extent;
  info.new_buffer = shrunk;
  // Step 4. Rewrite the scope. The rewrite is built aside: a case it refuses leaves the
  // state untouched.
  const BlockRealizeNode* scope_realize = s.info(scope_sid)->realize;
  Stmt scope_stmt(std::shared_ptr<const StmtNode>{}, scope_realize);
  RollingRewriter rewriter(s, info, &s.block_at(scope_sid));
  Stmt rewritten = rewriter.mutate(scope_stmt);
  s.replace(scope_sid, rewritten);
}

}  // namespace tsch::schedule

// ---- instruction kind

namespace tsch::schedule {

void register_rolling_buffer_kinds(KindList& kinds) {
  kinds.push_back(define_kind(
      "RollingBuffer", "rolling_buffer", {input("block", ParamType::Block), attr("write_buffer_index", ParamType::Int)},
      OutputForm::None,
      [](Schedule& sch, InstructionCall& c) {
        rolling_buffer(sch.state(), sch.block_sid(c.inputs[0]), c.attrs[0].as_int());
      },
      "rolling_buffer(block, write_buffer_index): keep a rolling window of the written intermediate buffer along the "
      "outermost "
      "loop whose tiles overlap; the producer skips what the previous tile computed.",
      "the block is not an output block and has only RAW dependencies; it and its consumers meet at a loop; a "
      "dimension of the "
      "region it writes per iteration of that loop starts at loop * stride and overlaps the next one",
      "B = T.alloc_buffer((4, 10)); B[cc, vi] with vi = i_0 * 4 + ax0 (6 per tile)  ->  B = T.alloc_buffer((4, 6)); "
      "T.where(i_0 < 1 or ax0 >= 2); B[cc, vi % 6]"));
}

}  // namespace tsch::schedule
