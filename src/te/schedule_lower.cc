// The stage schedule replayed as tir.Schedule primitives on create_prim_func's output:
//   1. the cache and rfactor steps, in the order they were made;
//   2. the stages, consumers before producers: compute_inline, or compute_at the consumer's
//      loop (preserve_unit_loops, so there is a loop per axis), then the stage's own splits,
//      fuses and reorders on its loops — which carry the stage's variable names (i_outer ...);
//   3. reductions: the init moved before the first reduction loop (decompose_reduction),
//      where TVM's legacy lowering puts it;
//   4. storage_align on the stages' outputs; the loop annotations (vectorize, parallel,
//      unroll, bind, pragma), on the init's copies of the loops too.
// Each primitive checks what it is given, so a stage schedule the tir primitives refuse is
// refused — never lowered to a different computation.
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <unordered_map>

#include "ir/expr_equal.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "ir/printer.h"
#include "schedule/schedule.h"
#include "schedule/transform.h"
#include "support/error.h"
#include "te/schedule.h"

namespace tsch::te {
namespace {

using schedule::RV;

class StageLowering {
 public:
  StageLowering(const Schedule& s) : s_(s) {}

  ir::PrimFunc run(const std::vector<FuncArg>& args, const std::string& name) {
    std::unordered_map<const OperationNode*, std::string> names;
    ir::PrimFunc f = create_prim_func(args, &names);
    sch_.emplace(ir::module_of("main", f), 0);
    sch_->state().rfactor_init_decomposed_later = true;  // decompose() below moves every rf init out
    sch_->state().compute_at_covered_outputs = true;     // TVM's TE lowering lets outputs move too
    for (const auto& st : s_.stages()) {
      if (st.origin != Stage::Origin::Op || st.is_placeholder()) continue;
      auto it = names.find(st.origin_op.get());
      if (it == names.end()) continue;
      block_of_[st.id] = sch_->get_block(it->second);
      // A compute of several values: blocks B.v0, B.v1, ... (the first named in `names`).
      if (st.origin_op->bodies.size() > 1) {
        size_t at = it->second.rfind(".v0");
        for (size_t i = 1; at != std::string::npos && i < st.origin_op->bodies.size(); ++i) {
          std::string name = it->second.substr(0, at) + ".v" + std::to_string(i) + it->second.substr(at + 3);
          siblings_[st.id].push_back(sch_->get_block(name));
        }
      }
    }
    for (int id : s_.step_order()) replay_step(s_.stage(id));
    const auto& stages = s_.stages();
    for (auto it = stages.rbegin(); it != stages.rend(); ++it) {
      if (!it->is_placeholder() && block_of_.count(it->id)) place(*it);
    }
    for (const auto& st : stages) {
      if (!st.is_placeholder() && block_of_.count(st.id) && st.attach != AttachKind::Inline && st.op->reduce)
        decompose(st);
    }
    confirm_rfactor_inits();
    for (const auto& st : stages) {
      if (st.is_placeholder() || !block_of_.count(st.id) || st.attach == AttachKind::Inline) continue;
      for (const auto& al : st.aligns) sch_->storage_align(block_of_.at(st.id), 0, al.dim, al.factor, al.offset);
      annotate(st);
    }
    for (const auto& st : stages) {
      if (!st.is_placeholder() && block_of_.count(st.id) && st.attach == AttachKind::At) infer_storage_scope(st);
    }
    auto out = std::make_shared<ir::PrimFuncNode>(*sch_->mod()->prim_func("main"));
    // The legacy path names each tensor's handle after the tensor, as TVM's schedule_to_primfunc
    // does (create_prim_func's are "var_" + name).
    for (auto& [param, buffer] : out->buffer_map) {
      ir::Var renamed = ir::make_var(buffer->name, param->dtype);
      std::replace(out->params.begin(), out->params.end(), param, renamed);
      param = renamed;
    }
    ir::AttrMap attrs{{"from_legacy_te_schedule", ir::AttrValue::of_bool(true)},
                      {"global_symbol", ir::AttrValue::of_str(name)}};
    for (const auto& [key, value] : out->attrs) {
      if (key != "global_symbol") attrs.emplace_back(key, value);
    }
    out->attrs = attrs;
    return out;
  }

 private:
  void replay_step(const Stage& st) {
    if (st.origin == Stage::Origin::Rfactor) {
      replay_rfactor(st);
    } else if (st.origin == Stage::Origin::CacheRead) {
      int source_reader = st.readers.front();
      TSCH_USER_ASSERT(block_of_.count(source_reader), ValueError)
          << "cache_read: " << s_.stage(source_reader).op->name << " is not computed by the function being lowered";
      RV reader = block_of_.at(source_reader);
      const ir::BlockNode& block = sch_->block(reader->block_sid());
      int64_t index = -1;
      for (size_t i = 0; i < block.reads.size(); ++i) {
        if (block.reads[i].buffer == st.cached->buffer) index = static_cast<int64_t>(i);
      }
      TSCH_INTERNAL_ASSERT(index >= 0) << "the reader of a cache does not read " << st.cached->name;
      // te's cache_read redirects only the readers it names.
      std::vector<RV> readers;
      for (int r : st.readers) {
        if (block_of_.count(r)) readers.push_back(block_of_.at(r));
      }
      block_of_[st.id] = sch_->cache_read(reader, index, st.scope, readers);
    } else {
      // Each output gets its cache; the original stage copies them out (a block each).
      RV writer = block_of_.at(st.cache_write_of);
      const Stage& original = s_.stage(st.cache_write_of);
      std::vector<RV> copies;
      for (const auto& out : original.op->outputs) {
        const ir::BlockNode& block = sch_->block(writer->block_sid());
        int64_t index = -1;
        for (size_t i = 0; i < block.writes.size(); ++i) {
          if (block.writes[i].buffer == out) index = static_cast<int64_t>(i);
        }
        TSCH_INTERNAL_ASSERT(index >= 0) << "cache_write: the block does not write " << out->name;
        copies.push_back(sch_->cache_write(writer, index, st.scope));
      }
      block_of_[st.cache_write_of] = copies[0];
      for (size_t i = 1; i < copies.size(); ++i) {
        if (!merge_into(copies[0], copies[i], 0)) siblings_[st.cache_write_of].push_back(copies[i]);
      }
      block_of_[st.id] = writer;
    }
  }

  // The reduction's loops as they were when rfactor was called (its splits), then tir's
  // rfactor, then the factored block's loops in TVM's order for B.rf (its axes with the
  // factored one at factor_axis, then its reduce axes).
  void replay_rfactor(const Stage& st) {
    TSCH_USER_ASSERT(block_of_.count(st.rfactor_of), ValueError)
        << "rfactor: " << s_.stage(st.rfactor_of).origin_op->name << " is not computed by the function being lowered";
    RV block = block_of_.at(st.rfactor_of);
    std::string name = sch_->block(block->block_sid()).name;
    std::vector<RV> loops = sch_->get_loops(block);
    TSCH_INTERNAL_ASSERT(loops.size() == st.rfactor_root.size())
        << "rfactor: the reduction has " << loops.size() << " loops";
    for (size_t i = 0; i < loops.size(); ++i) bind_loop(st.rfactor_root[i], loops[i]);
    apply_relations(st.rfactor_relations);
    // An rf block over an imperfect split is right only once its init leaves the reduction
    // loops: then the steps from here to decompose() are checked together.
    bool waiting = before_rfactor_init_.has_value();
    if (!waiting) {
      before_rfactor_init_.emplace(sch_->state());
      sch_->suspend_change_check();
    }
    block_of_[st.id] = sch_->rfactor(loop_of_.at(st.rfactor_var.get()), st.factor_axis);
    if (!waiting && sch_->state().rfactor_blocks_to_decompose.empty()) {
      sch_->resume_change_check(*before_rfactor_init_);
      before_rfactor_init_.reset();
    }
    block_of_[st.rfactor_of] = sch_->get_block(name);
    std::vector<RV> order;
    for (const auto& v : st.root) order.push_back(loop_of_.at(v.get()));
    std::vector<RV> now = sch_->get_loops(block_of_.at(st.id));
    bool same = now.size() == order.size();
    for (size_t i = 0; same && i < now.size(); ++i) same = now[i]->sid == order[i]->sid;
    if (!same) sch_->reorder(order);
  }

  void apply_relations(const std::vector<IterRelation>& relations) {
    for (const auto& rel : relations) {
      switch (rel.kind) {
        case IterRelation::Kind::Split: {
          std::vector<std::optional<int64_t>> factors =
              rel.factor ? std::vector<std::optional<int64_t>>{std::nullopt, rel.factor}
                         : std::vector<std::optional<int64_t>>{rel.nparts, std::nullopt};
          std::vector<RV> parts = sch_->split(loop_of_.at(rel.vars[0].get()), factors);
          bind_loop(rel.vars[1], parts[0]);
          bind_loop(rel.vars[2], parts[1]);
          break;
        }
        case IterRelation::Kind::Fuse:
          bind_loop(rel.vars[2], sch_->fuse({loop_of_.at(rel.vars[0].get()), loop_of_.at(rel.vars[1].get())}));
          break;
        case IterRelation::Kind::Reorder: {
          std::vector<RV> order;
          for (const auto& v : rel.vars) order.push_back(loop_of_.at(v.get()));
          sch_->reorder(order);
          break;
        }
      }
    }
  }

  // Gives the loop the stage variable's name and remembers it as that variable's loop.
  void bind_loop(const ir::Var& var, const RV& loop) {
    const ir::ForNode& f = sch_->loop(loop->loop_sid());
    if (f.loop_var->name != var->name) {
      auto renamed = std::make_shared<ir::ForNode>(f);
      renamed->loop_var = ir::make_var(var->name, f.loop_var->dtype);
      renamed->body = ir::substitute(f.body, {{f.loop_var.get(), ir::PrimExpr(renamed->loop_var)}});
      sch_->state().replace(loop->sid, renamed);
    }
    loop_of_[var.get()] = loop;
  }

  RV loop_of(const Stage& st, const ir::Var& var, const char* what) {
    auto it = loop_of_.find(var.get());
    TSCH_USER_ASSERT(it != loop_of_.end() && std::find(st.leaf.begin(), st.leaf.end(), var) != st.leaf.end(),
                     ValueError)
        << what << ": the axis " << var->name << " of stage(" << st.op->name
        << ") was split or fused after it was chosen";
    return it->second;
  }

  // Moves block `other` into the loops of block `first` below the outer `depth` loops, when
  // its own loops there are copies of those (same ranges, holding only it): the values of
  // one compute (or the copies of a cache_write of several outputs) then share one nest, as
  // TVM's legacy lowering writes a stage. False (nothing changed) otherwise. The two are
  // independent (neither reads what the other writes), so running them in one nest is
  // the same computation.
  bool merge_into(const RV& first, const RV& other, size_t depth) {
    std::vector<RV> mine = sch_->get_loops(first), theirs = sch_->get_loops(other);
    if (mine.size() != theirs.size() || mine.size() <= depth) return false;
    const ir::BlockNode& a = sch_->block(first->block_sid());
    const ir::BlockNode& b = sch_->block(other->block_sid());
    for (const auto& w : b.writes) {
      for (const auto& r : a.reads)
        if (r.buffer == w.buffer) return false;
    }
    for (const auto& w : a.writes) {
      for (const auto& r : b.reads)
        if (r.buffer == w.buffer) return false;
    }
    std::unordered_map<const ir::VarNode*, ir::PrimExpr> to_mine;
    for (size_t i = 0; i < mine.size(); ++i) {
      const ir::ForNode& x = sch_->loop(mine[i]->loop_sid());
      const ir::ForNode& y = sch_->loop(theirs[i]->loop_sid());
      if (i < depth) {
        if (mine[i]->sid != theirs[i]->sid) return false;
        continue;
      }
      bool only_child = i + 1 < theirs.size()
                            ? ir::as<ir::ForNode>(y.body) &&
                                  schedule::sid_of(*static_cast<const ir::ForNode*>(y.body.get())) == theirs[i + 1]->sid
                            : ir::as<ir::BlockRealizeNode>(y.body) != nullptr;
      if (!only_child || x.for_kind != y.for_kind || !ir::expr_deep_equal(ir::substitute(y.min, to_mine), x.min) ||
          !ir::expr_deep_equal(ir::substitute(y.extent, to_mine), x.extent)) {
        return false;
      }
      to_mine[y.loop_var.get()] = x.loop_var;
    }
    // Next to each other in one sequence: nothing in between reads what `other` writes.
    const schedule::ScheduleState& state = sch_->state();
    schedule::StmtSid parent = state.info(mine[depth]->sid)->parent;
    if (parent != state.info(theirs[depth]->sid)->parent) return false;
    const ir::ForNode* parent_loop = state.loop(parent);
    std::vector<ir::Stmt> items =
        schedule::body_items(parent_loop ? parent_loop->body : sch_->block(state.as_block(parent)).body);
    auto position = [&](const RV& loop) {
      for (size_t i = 0; i < items.size(); ++i) {
        if (items[i].get() == state.info(loop->sid)->node) return static_cast<long>(i);
      }
      return -10L;
    };
    if (std::abs(position(mine[depth]) - position(theirs[depth])) != 1) return false;
    const ir::BlockRealizeNode* realize = sch_->state().info(other->sid)->realize;
    std::vector<ir::PrimExpr> values;
    for (const auto& v : realize->iter_values) values.push_back(ir::substitute(v, to_mine));
    ir::Stmt moved =
        std::make_shared<ir::BlockRealizeNode>(values, ir::substitute(realize->predicate, to_mine), realize->block);
    schedule::remove_from_scope(sch_->state(), other->block_sid(), nullptr);
    const ir::ForNode& inner = sch_->loop(mine.back()->loop_sid());
    auto with_both = std::make_shared<ir::ForNode>(inner);
    with_both->body = ir::make_seq({inner.body, moved});
    sch_->state().replace(mine.back()->sid, with_both);
    return true;
  }

  // A stage with several blocks (the values of one compute, or the copies of a cache_write
  // of several outputs) that share their loops is placed as one; otherwise each block gets
  // the stage's placement and relations on its own loops, the first block last so the
  // stage's variables name its loops (consumers computed at this stage attach there).
  void place(const Stage& st) {
    auto sib = siblings_.find(st.id);
    if (sib != siblings_.end() && !sib->second.empty() && st.attach == AttachKind::At) {
      // Each value computed at the loop, then in one nest again where they can share it.
      const Stage& parent = s_.stage(st.attach_stage);
      RV at = loop_of(parent, st.attach_var, "compute_at");
      std::vector<RV> blocks{block_of_.at(st.id)};
      blocks.insert(blocks.end(), sib->second.begin(), sib->second.end());
      for (const RV& b : blocks) sch_->compute_at(b, at, /*preserve_unit_loops=*/true);
      std::vector<RV> outer = sch_->get_loops(blocks[0]);
      size_t depth = 0;
      while (depth < outer.size() && outer[depth]->sid != at->sid) ++depth;
      std::vector<RV> apart;
      for (size_t i = 1; i < blocks.size(); ++i) {
        if (!merge_into(blocks[0], blocks[i], depth + 1)) apart.push_back(blocks[i]);
      }
      sib->second = apart;
      for (const RV& b : apart) place_sibling(st, b, /*already_at=*/true);
      place_block(st, blocks[0], /*already_at=*/true);
      return;
    }
    if (sib != siblings_.end() && !sib->second.empty() && !(st.attach == AttachKind::Root && shares_loops(st))) {
      for (const RV& block : sib->second) place_sibling(st, block, /*already_at=*/false);
    }
    place_block(st, block_of_.at(st.id));
  }

  // Another block of the stage in loops of its own: the stage's relations there too, its
  // loops remembered for the annotations.
  void place_sibling(const Stage& st, const RV& block, bool already_at) {
    place_block(st, block, already_at);
    std::unordered_map<const ir::VarNode*, RV> loops;
    for (const auto& v : st.all) {
      if (auto it = loop_of_.find(v.get()); it != loop_of_.end()) loops[v.get()] = it->second;
    }
    sibling_loops_[st.id].push_back(std::move(loops));
  }

  bool shares_loops(const Stage& st) {
    std::vector<RV> first = sch_->get_loops(block_of_.at(st.id));
    for (const RV& block : siblings_.at(st.id)) {
      std::vector<RV> loops = sch_->get_loops(block);
      if (loops.size() != first.size()) return false;
      for (size_t i = 0; i < loops.size(); ++i) {
        if (loops[i]->sid != first[i]->sid) return false;
      }
    }
    return true;
  }

  void place_block(const Stage& st, const RV& block, bool already_at = false) {
    std::vector<RV> loops;
    if (st.attach == AttachKind::Inline) {
      sch_->compute_inline(block);
      return;
    }
    if (st.attach == AttachKind::At) {
      const Stage& parent = s_.stage(st.attach_stage);
      RV at = loop_of(parent, st.attach_var, "compute_at");
      if (!already_at) sch_->compute_at(block, at, /*preserve_unit_loops=*/true);
      std::vector<RV> all = sch_->get_loops(block);
      size_t k = 0;
      while (k < all.size() && all[k]->sid != at->sid) ++k;
      attach_depth_[st.id] = std::min(k + 1, all.size());
      loops.assign(all.begin() + static_cast<std::ptrdiff_t>(std::min(k + 1, all.size())), all.end());
    } else {
      loops = sch_->get_loops(block);
    }
    TSCH_INTERNAL_ASSERT(loops.size() == st.root.size())
        << "stage " << st.op->name << " has " << st.root.size() << " axes but " << loops.size() << " loops";
    for (size_t i = 0; i < loops.size(); ++i) bind_loop(st.root[i], loops[i]);
    apply_relations(st.relations);
  }

  // A stage with no scope of its own computed under GPU thread loops gets one from them, as
  // TVM's legacy InferStorageScope gives it: under threadIdx "local" (one per thread), under
  // blockIdx only "shared" (one per block).
  void infer_storage_scope(const Stage& st) {
    if (!st.scope.empty() || st.origin == Stage::Origin::CacheRead || st.origin == Stage::Origin::CacheWrite) return;
    RV block = block_of_.at(st.id);
    const ir::BlockNode& b = sch_->block(block->block_sid());
    if (b.writes.size() != 1) return;
    for (const auto& [param, buffer] : sch_->mod()->prim_func("main")->buffer_map)
      if (buffer == b.writes[0].buffer) return;  // an output keeps its memory
    std::vector<RV> loops = sch_->get_loops(block);
    int rank = -1;
    for (size_t i = 0; i < std::min(attach_depth_[st.id], loops.size()); ++i) {
      const ir::ForNode& f = sch_->loop(loops[i]->loop_sid());
      if (f.for_kind != ir::ForKind::ThreadBinding) continue;
      rank = std::max(rank, f.thread_tag.rfind("threadIdx", 0) == 0  ? 1
                            : f.thread_tag.rfind("blockIdx", 0) == 0 ? 0
                                                                     : rank);
    }
    if (rank >= 0) sch_->set_scope(block, 0, rank == 1 ? "local" : "shared");
  }

  // The init goes before the stage's first reduction loop, as TVM's legacy lowering puts
  // it; its copies of the data-parallel loops below that point take their annotations.
  void decompose(const Stage& st) {
    size_t first = 0;
    while (first < st.leaf.size() && st.type_of(st.leaf[first].get()) != ir::IterType::CommReduce) ++first;
    if (first == st.leaf.size()) return;
    for (const auto& ann : st.annotations) {
      if (ann.kind == LoopAnnotation::Kind::Bind && ann.iter_var == st.leaf[first]) return;  // a cross-thread reduction
    }
    RV loop = loop_of_.at(st.leaf[first].get());
    std::vector<RV> outer = sch_->get_loops(block_of_.at(st.id));
    size_t depth = 0;
    while (depth < outer.size() && outer[depth]->sid != loop->sid) ++depth;
    RV init = sch_->decompose_reduction(block_of_.at(st.id), loop);
    std::vector<RV> init_loops = sch_->get_loops(init);
    std::vector<ir::Var> spatial;
    for (size_t i = first + 1; i < st.leaf.size(); ++i) {
      if (st.type_of(st.leaf[i].get()) == ir::IterType::DataPar) spatial.push_back(st.leaf[i]);
    }
    if (init_loops.size() != depth + spatial.size()) return;
    for (size_t i = 0; i < spatial.size(); ++i) init_copy_[spatial[i].get()] = init_loops[depth + i];
  }

  // An rfactor of an imperfect split whose rf init stayed inside the reduction loops (its
  // reduction bound to threads) would leave lanes uninitialised: refused.
  void confirm_rfactor_inits() {
    if (!before_rfactor_init_) return;
    for (schedule::BlockSid sid : sch_->state().rfactor_blocks_to_decompose) {
      const ir::BlockNode* block = sch_->state().block(sid);
      TSCH_USER_ASSERT(!block || !block->init, NotImplementedError)
          << "not supported yet: rfactor of a reduction split imperfectly (" << block->name
          << "), whose factored reduction keeps its init inside the reduction loops";
    }
    sch_->resume_change_check(*before_rfactor_init_);
    before_rfactor_init_.reset();
  }

  void annotate(const Stage& st) {
    for (const auto& ann : st.annotations) {
      // TVM ignores an annotation on an axis that was split or fused afterwards.
      if (std::find(st.leaf.begin(), st.leaf.end(), ann.iter_var) == st.leaf.end()) continue;
      apply(ann, loop_of_.at(ann.iter_var.get()));
      if (auto it = init_copy_.find(ann.iter_var.get()); it != init_copy_.end()) apply(ann, it->second);
      if (auto it = sibling_loops_.find(st.id); it != sibling_loops_.end()) {
        for (const auto& loops : it->second) apply(ann, loops.at(ann.iter_var.get()));
      }
    }
  }

  void apply(const LoopAnnotation& ann, const RV& loop) {
    switch (ann.kind) {
      case LoopAnnotation::Kind::Vectorize:
        sch_->vectorize(loop);
        break;
      case LoopAnnotation::Kind::Parallel:
        sch_->parallel(loop);
        break;
      case LoopAnnotation::Kind::Unroll:
        sch_->unroll(loop);
        break;
      case LoopAnnotation::Kind::Bind: {
        // A thread axis made with a domain binds loops of that extent only (TVM would guard a
        // shorter loop inside more threads).
        if (ann.value) {
          const ir::ForNode& f = sch_->loop(loop->loop_sid());
          int64_t want = 0, have = 0;
          bool equal = ir::as_const_int(ann.value, &want) && ir::as_const_int(f.extent, &have) && want == have;
          TSCH_USER_ASSERT(equal, NotImplementedError)
              << "not supported yet: binding loop " << f.loop_var->name << " (extent " << ir::script(f.extent)
              << ") to the thread axis " << ann.text << " made with the extent " << ir::script(ann.value)
              << " (TVM guards the extra threads)";
        }
        sch_->bind(loop, ann.text);
        break;
      }
      case LoopAnnotation::Kind::Pragma: {
        schedule::TraceArg value = schedule::TraceArg::of_int(1);
        if (ann.value) {
          if (auto* imm = ir::as<ir::IntImmNode>(ann.value)) value = schedule::TraceArg::of_int(imm->value);
        }
        sch_->annotate(loop, "pragma_" + ann.text, value);
        break;
      }
    }
  }

  const Schedule& s_;
  std::optional<schedule::Schedule> sch_;
  std::optional<schedule::ScheduleState> before_rfactor_init_;  // set while the change check waits for decompose()
  std::unordered_map<int, RV> block_of_;
  std::unordered_map<int, std::vector<RV>> siblings_;  // a stage's other blocks
  std::unordered_map<int, std::vector<std::unordered_map<const ir::VarNode*, RV>>>
      sibling_loops_;                             // their loops, by variable
  std::unordered_map<int, size_t> attach_depth_;  // loops above a compute_at stage's own
  std::unordered_map<const ir::VarNode*, RV> loop_of_;
  std::unordered_map<const ir::VarNode*, RV> init_copy_;
};

}  // namespace

ir::PrimFunc Schedule::to_prim_func(const std::vector<FuncArg>& args, const std::string& name) const {
  return StageLowering(*this).run(args, name);
}

}  // namespace tsch::te
