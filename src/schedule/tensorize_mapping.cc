#include "schedule/tensorize_mapping.h"

#include <unordered_map>
#include <unordered_set>

#include "arith/simplify.h"
#include "ir/functor.h"
#include "ir/op.h"

namespace tsch::schedule {

using namespace ir;

namespace {

// `bind` is `loop_var` plus terms of no loop in `loop_vars`.
bool binds_directly(const PrimExpr& bind, const Var& loop_var, const std::unordered_set<const VarNode*>& loop_vars) {
  PrimExpr residual = arith::simplify(sub(bind, cast(bind->dtype, loop_var)));
  return !uses_var(residual, [&](const VarNode* v) { return loop_vars.count(v) > 0; });
}

}  // namespace

std::optional<TensorizeLoopMapping> get_tensorize_loop_mapping(const ScheduleState& s, BlockSid block_sid,
                                                               const PrimFunc& desc, bool allow_padding) {
  // Step 1. The description's loops and its one block.
  auto* scope = as<BlockRealizeNode>(desc->body);
  if (!scope) return std::nullopt;
  TensorizeLoopMapping out;
  std::unordered_set<const VarNode*> desc_vars;
  const BlockRealizeNode* desc_block = nullptr;
  for (Stmt st = scope->block->body; st;) {
    if (auto* f = as<ForNode>(st)) {
      if (!is_zero(f->min)) return std::nullopt;
      out.desc_loops.push_back(f);
      desc_vars.insert(f->loop_var.get());
      st = f->body;
    } else {
      desc_block = as<BlockRealizeNode>(st);
      break;
    }
  }
  if (!desc_block) return std::nullopt;
  // Step 2. The block's loops: those directly around it, down to one holding a sequence.
  const BlockRealizeNode* realize = s.info(block_sid)->realize;
  std::vector<LoopSid> loops;
  std::unordered_set<const VarNode*> block_vars;
  std::vector<LoopSid> enclosing = s.enclosing_loops(block_sid);
  for (size_t k = enclosing.size(); k-- > 0;) {
    const ForNode* f = &s.loop_at(enclosing[k]);
    if (f->body->kind == StmtKind::SeqStmt) break;
    if (!is_zero(f->min)) return std::nullopt;
    loops.insert(loops.begin(), enclosing[k]);
    block_vars.insert(f->loop_var.get());
  }
  const BlockNode& block = *realize->block;
  size_t n_block = realize->iter_values.size(), n_desc = desc_block->iter_values.size();
  if (n_block < n_desc) return std::nullopt;
  // Step 3. From the innermost description iterator out, the next block iterator of its kind
  // and the block loop bound to it.
  std::unordered_map<size_t, int64_t> padding;
  std::unordered_set<LoopSid> mapped;
  int next = static_cast<int>(n_block) - 1;
  for (size_t d = n_desc; d-- > 0;) {
    const ForNode* desc_loop = nullptr;
    IterType kind = desc_block->block->iter_vars[d].type;
    for (size_t i = 0; i < out.desc_loops.size() && !desc_loop; ++i) {
      if (binds_directly(desc_block->iter_values[d], out.desc_loops[i]->loop_var, desc_vars)) {
        desc_loop = out.desc_loops[i];
        kind = desc_block->block->iter_vars[i < desc_block->block->iter_vars.size() ? i : d].type;
      }
    }
    int64_t desc_extent;
    if (!desc_loop || !as_const_int(desc_loop->extent, &desc_extent)) return std::nullopt;
    int current = next;
    for (; current >= 0 && block.iter_vars[static_cast<size_t>(current)].type != kind; --current) {
    }
    if (current < 0) return std::nullopt;
    next = current - 1;
    const PrimExpr& bind = realize->iter_values[static_cast<size_t>(current)];
    for (LoopSid loop_sid : loops) {
      if (mapped.count(loop_sid)) continue;
      const ForNode* loop = &s.loop_at(loop_sid);
      if (!binds_directly(bind, loop->loop_var, block_vars)) continue;
      // Padding only where the binding is the loop itself.
      if (allow_padding && !is_zero(arith::simplify(sub(bind, cast(bind->dtype, loop->loop_var)))))
        allow_padding = false;
      int64_t extent;
      if (!as_const_int(loop->extent, &extent)) return std::nullopt;
      if (extent % desc_extent != 0) {
        if (!allow_padding) return std::nullopt;
        padding[static_cast<size_t>(current)] = desc_extent;
      }
      out.loop_map.emplace_back(loop_sid, desc_loop);
      mapped.insert(loop_sid);
      break;
    }
  }
  if (!padding.empty()) {
    if (!allow_padding) return std::nullopt;
    for (size_t i = 0; i < block.iter_vars.size(); ++i)
      out.block_iter_paddings.push_back(padding.count(i) ? padding[i] : 1);
  }
  return out;
}

}  // namespace tsch::schedule
