// decompose_reduction: move a reduction block's T.init into its own block `X_init`, placed
// right before `loop`, under copies (`j_init`) of the loops between `loop` and the block that
// its spatial iterators use; the original block becomes `X_update` (TVM's DecomposeReduction).
#include <fmt/format.h>

#include <unordered_set>

#include "arith/block_access.h"
#include "arith/int_set.h"
#include "arith/simplify.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "schedule/error.h"
#include "schedule/primitives.h"
#include "schedule/utils.h"

namespace tsch::schedule {

using namespace ir;

uint64_t decompose_reduction(ScheduleState& s, uint64_t block_sid, uint64_t loop_sid) {
  // Step 1. Check: a reduction block under `loop`, with `loop` above every reduction loop.
  const BlockNode* block = s.block(block_sid);
  const BlockRealizeNode* realize = s.info(block_sid)->realize;
  if (!block->init) fail("decompose_reduction", {block_sid}, "Not a reduction block: block \"" + block->name + "\" has no T.init()");
  std::vector<uint64_t> loops = s.enclosing_loops(block_sid);
  auto pos = std::find(loops.begin(), loops.end(), loop_sid);
  if (pos == loops.end()) {
    fail("decompose_reduction", {block_sid, loop_sid},
         fmt::format("The loop \"{}\" is not an ancestor of block \"{}\"", s.loop(loop_sid)->loop_var->name, block->name));
  }
  std::vector<uint64_t> below(pos, loops.end());  // `loop` and the loops inside it
  std::vector<uint64_t> above(loops.begin(), pos);
  for (size_t i = 0; i < block->iter_vars.size(); ++i) {
    if (block->iter_vars[i].type != IterType::CommReduce) continue;
    for (uint64_t l : above) {
      const VarNode* v = s.loop(l)->loop_var.get();
      if (uses_var(realize->iter_values[i], [&](const VarNode* x) { return x == v; })) {
        fail("decompose_reduction", {loop_sid, l},
             fmt::format("decompose_reduction expect the loop to be higher than all the loops related to reduce block var: "
                         "loop \"{}\" binds reduction iterator {} but is outside loop \"{}\"",
                         s.loop(l)->loop_var->name, block->iter_vars[i].var->name, s.loop(loop_sid)->loop_var->name));
      }
    }
  }

  // Step 2. The init block: the spatial iterators, bound as before but through `_init` loops.
  std::unordered_map<const VarNode*, PrimExpr> loop_map;  // old loop var -> init loop var
  std::unordered_set<const VarNode*> dropped;              // loops the init nest leaves out
  std::vector<const ForNode*> init_loops;
  for (uint64_t l : below) {
    const ForNode* f = s.loop(l);
    bool used = false;
    for (size_t i = 0; i < block->iter_vars.size(); ++i) {
      if (block->iter_vars[i].type != IterType::DataPar) continue;
      used |= uses_var(realize->iter_values[i], [&](const VarNode* x) { return x == f->loop_var.get(); });
    }
    if (!used) {
      dropped.insert(f->loop_var.get());
      continue;
    }
    init_loops.push_back(f);
    loop_map[f->loop_var.get()] = make_var(f->loop_var->name + "_init", f->loop_var->dtype);
  }
  // A copied loop's range may name outer loops (compute_at clamps `ax0` to
  // `T.min(j_0 * 24 + 23, 63) - j_0 * 24 + 1`): those are copied too and renamed, but a
  // range naming a loop the init nest leaves out would use it outside its scope.
  for (const ForNode* f : init_loops) {
    for (const PrimExpr& e : {f->min, f->extent}) {
      if (uses_var(e, [&](const VarNode* x) { return dropped.count(x) > 0; }))
        fail("decompose_reduction", {loop_sid, block_sid},
             fmt::format("not supported yet: the range of loop \"{}\" depends on a loop the init block does not iterate over",
                         f->loop_var->name));
    }
  }
  auto init_block = std::make_shared<BlockNode>();
  init_block->name = block->name + "_init";
  init_block->sid = s.fresh_sid();
  std::unordered_map<const VarNode*, PrimExpr> iter_map;  // old iter var -> init iter var
  std::vector<PrimExpr> init_values;
  for (size_t i = 0; i < block->iter_vars.size(); ++i) {
    const IterVar& iv = block->iter_vars[i];
    if (iv.type != IterType::DataPar) continue;
    Var v = make_var(iv.var->name, iv.var->dtype);
    iter_map[iv.var.get()] = v;
    init_block->iter_vars.push_back(IterVar{v, iv.dom, IterType::DataPar});
    init_values.push_back(substitute(realize->iter_values[i], loop_map));
  }
  init_block->body = substitute(block->init, iter_map);
  arith::AccessRegions init_regions = arith::infer_access_regions(init_block->body, nullptr);
  init_block->reads = init_regions.reads;
  init_block->writes = init_regions.writes;
  PrimExpr init_pred = substitute(predicate_without(realize->predicate, dropped), loop_map);
  Stmt init_nest = std::make_shared<BlockRealizeNode>(init_values, init_pred, init_block);
  for (size_t k = init_loops.size(); k-- > 0;) {
    const ForNode* f = init_loops[k];
    auto copy = std::make_shared<ForNode>(*f);
    copy->loop_var = std::static_pointer_cast<const VarNode>(loop_map.at(f->loop_var.get()));
    copy->min = substitute(f->min, loop_map);
    copy->extent = substitute(f->extent, loop_map);
    copy->body = init_nest;
    copy->sid = s.fresh_sid();
    init_nest = copy;
  }

  // Step 3. The update block: no init, named X_update, reading what it writes.
  auto update = std::make_shared<BlockNode>(*block);
  update->name = block->name + "_update";
  update->init = nullptr;
  arith::AccessRegions regions = arith::infer_access_regions(update->body, nullptr);
  update->reads = regions.reads;
  // Keep written buffers first among the reads, as TVM's detector sees the store first.
  std::stable_sort(update->reads.begin(), update->reads.end(), [&](const BufferRegion& a, const BufferRegion& b) {
    auto written = [&](const BufferRegion& r) {
      for (const auto& w : update->writes) {
        if (w.buffer == r.buffer) return true;
      }
      return false;
    };
    return written(a) && !written(b);
  });
  Stmt new_realize = std::make_shared<BlockRealizeNode>(realize->iter_values, realize->predicate, update);
  s.replace(block_sid, new_realize);
  // Step 4. Put the init nest right before `loop`.
  const ForNode* target = s.loop(loop_sid);
  std::shared_ptr<const ForNode> keep(std::make_shared<ForNode>(*target));
  s.replace(loop_sid, make_seq({init_nest, keep}));
  return init_block->sid;
}

}  // namespace tsch::schedule
