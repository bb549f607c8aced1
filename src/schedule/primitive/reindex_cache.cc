// reindex_cache_read / reindex_cache_write (TVM's ReindexCacheRead / ReindexCacheWrite): a
// cache of one point a block accesses per instance, laid out by an index map over the block's
// iterators. The copy block iterates the block's iterators that the access uses, under copies
// of the loops (below the insertion point) their bindings use; it goes where cache_read's
// copy would (after the buffer's writer, before the block), or for a write after the block
// and before the buffer's first reader. Only the block itself accesses the cache.
#include <fmt/format.h>

#include <unordered_set>

#include "arith/int_set.h"
#include "arith/iter_map.h"
#include "arith/simplify.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "ir/printer.h"
#include "schedule/block_scope.h"
#include "schedule/error.h"
#include "schedule/kind_registration.h"
#include "schedule/primitive/cache_loc_detector.h"
#include "schedule/primitives.h"
#include "schedule/utils.h"

namespace tsch::schedule {

using namespace ir;

namespace {

TSCH_SCHEDULE_ERROR_KIND(kNotSinglePointAccess, "NotSinglePointAccess",
                         "The buffer region accessed inside the block is not a single point.",
                         "The buffer region accessed inside block {0} is not a single point.");
TSCH_SCHEDULE_ERROR_KIND(kReindexCacheReadWriteNotMatchError, "ReindexCacheReadWriteNotMatchError",
                         "the block itervars appeared in lhs and rhs of reindex cache stage do not match.",
                         "The block itervars of block {0} appearing in the old and the new indices do not match.");

std::string list_text(const std::vector<PrimExpr>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + ir::script(v[i]);
  return out + "]";
}

std::string region_text(const BufferRegion& r) {
  std::string out = r.buffer->name + "[";
  for (size_t d = 0; d < r.region.size(); ++d) {
    if (d) out += ", ";
    out += is_one(r.region[d].extent) ? ir::script(r.region[d].min)
                                      : ir::script(r.region[d].min) + ":" +
                                            ir::script(arith::simplify(add(r.region[d].min, r.region[d].extent)));
  }
  return out + "]";
}

// What both primitives compute: the cache buffer, its indices (in the block's iterators),
// the old indices (the access's point), and the copy nest.
struct ReindexStage {
  Buffer cache;
  std::vector<PrimExpr> new_indices, old_indices;
  Stmt nest;
  BlockSid copy_sid;
};

// The access is one point per instance.
void check_single_point(const ScheduleState& s, BlockSid block_sid, const BufferRegion& access, const char* primitive) {
  for (const Range& r : access.region) {
    if (!is_one(r.extent)) {
      fail(s, kNotSinglePointAccess, {block_sid},
           fmt::format("The buffer region {} accessed inside block {{0}} is not a single point, which violates the "
                       "prerequisite of "
                       "{} primitive.",
                       region_text(access), primitive));
    }
  }
}

// The index map over the block's iterators: the cache's indices (into `new_indices`) and its
// shape (returned).
std::vector<PrimExpr> map_over_iters(const BlockNode& block, const std::vector<Var>& map_params,
                                     const std::vector<PrimExpr>& map_outputs, std::vector<PrimExpr>& new_indices) {
  TSCH_USER_ASSERT_ARG(map_params.size() == block.iter_vars.size(), ValueError, "index_map")
      << "the index map takes " << map_params.size() << " indices, but block " << block.name << " has "
      << block.iter_vars.size() << " iterators";
  std::unordered_map<const VarNode*, PrimExpr> to_iters;
  arith::VarDomain dom;
  for (size_t i = 0; i < map_params.size(); ++i) {
    to_iters[map_params[i].get()] = block.iter_vars[i].var;
    const Range& d = block.iter_vars[i].dom;
    dom[block.iter_vars[i].var.get()] = arith::interval_of(d);
  }
  std::vector<PrimExpr> shape;
  for (const PrimExpr& out : map_outputs) {
    PrimExpr idx = arith::simplify(substitute(out, to_iters));
    new_indices.push_back(idx);
    arith::Interval range = arith::eval_interval(idx, dom);
    int64_t lo;
    TSCH_USER_ASSERT_ARG(range.min && range.max && as_const_int(arith::simplify(range.min), &lo) && lo >= 0, ValueError,
                         "index_map")
        << "the index map's output " << ir::script(idx) << " is not provably non-negative";
    shape.push_back(arith::simplify(add(range.max, make_int(1, range.max->dtype))));
  }
  return shape;
}

// The block's iterators the old and the new indices use must be the same; returns their
// positions.
std::vector<size_t> check_same_iters(const ScheduleState& s, BlockSid block_sid, const ReindexStage& stage,
                                     const char* primitive) {
  const BlockNode& block = s.block_at(block_sid);
  std::vector<size_t> used;
  for (size_t i = 0; i < block.iter_vars.size(); ++i) {
    const VarNode* v = block.iter_vars[i].var.get();
    auto uses = [&](const std::vector<PrimExpr>& idx) {
      for (const PrimExpr& e : idx) {
        if (uses_var(e, [&](const VarNode* x) { return x == v; })) return true;
      }
      return false;
    };
    bool in_old = uses(stage.old_indices), in_new = uses(stage.new_indices);
    if (in_old != in_new) {
      const auto& appears = in_old ? stage.old_indices : stage.new_indices;
      const auto& other = in_old ? stage.new_indices : stage.old_indices;
      fail(s, kReindexCacheReadWriteNotMatchError, {block_sid},
           fmt::format("Error when applying {} on block {{0}}, the block itervar {} appears in {}, but not in {}.",
                       primitive, v->name, list_text(appears), list_text(other)));
    }
    if (in_old) used.push_back(i);
  }
  return used;
}

// tsch's conditions: one cache element per point (a map it cannot prove one-to-one over the
// iterators would let two points share an element) and a copy over exactly the block's
// instances (a T.where would leave the copy reading or writing where the block does not).
void check_one_to_one_unguarded(const ScheduleState& s, BlockSid block_sid, const std::vector<size_t>& used,
                                const std::vector<PrimExpr>& new_indices, const char* primitive) {
  const BlockNode& block = s.block_at(block_sid);
  arith::LoopExtents iter_extents;
  bool known = true;
  for (size_t i : used) {
    int64_t extent;
    known = known && is_zero(block.iter_vars[i].dom.min) && as_const_int(block.iter_vars[i].dom.extent, &extent);
    if (known) iter_extents[block.iter_vars[i].var.get()] = extent;
  }
  std::vector<PrimExpr> varying;
  for (const PrimExpr& e : new_indices) {
    if (uses_var(e, [](const VarNode*) { return true; })) varying.push_back(e);
  }
  if (!known || (!varying.empty() && !arith::detect_iter_map(varying, iter_extents, /*require_bijective=*/true).ok)) {
    fail_not_supported(
        s, {block_sid},
        std::string(primitive) + " with an index map tsch cannot prove one-to-one over the iterators it uses");
  }
  int64_t truth;
  if (!as_const_int(s.info(block_sid)->realize->predicate, &truth) || truth == 0) {
    fail_not_supported(s, {block_sid}, std::string(primitive) + " of block {0}, whose T.where limits its instances");
  }
}

// The cache buffer `<X>_<scope>` of the given shape, compact.
Buffer cache_buffer(const Buffer& buffer, const std::string& scope_name, const std::vector<PrimExpr>& shape) {
  auto node = std::make_shared<BufferNode>(*buffer);
  node->name = buffer->name + "_" + scope_name;
  node->data = buffer_data_var(node->name, node->dtype, scope_name);
  node->shape = shape;
  node->strides.clear();
  node->elem_offset = nullptr;
  node->scope = scope_name;
  return node;
}

// Copies of the loops below the insertion point `loc` that the used iterators' bindings use;
// `var_map` maps each loop's variable to its copy's.
std::vector<LoopSpec> copy_loops(const ScheduleState& s, BlockSid block_sid, StmtSid loc,
                                 const std::vector<size_t>& used,
                                 std::unordered_map<const VarNode*, PrimExpr>& var_map) {
  const BlockRealizeNode* realize = s.info(block_sid)->realize;
  std::unordered_set<const VarNode*> binding_vars;
  for (size_t i : used) {
    for_each_expr(realize->iter_values[i], [&](const PrimExpr& e) {
      if (auto* v = as<VarNode>(e)) binding_vars.insert(v);
    });
  }
  std::vector<LoopSid> loops = s.enclosing_loops(block_sid);
  auto from = loops.begin();
  if (s.loop(loc)) from = std::find(loops.begin(), loops.end(), loc) + 1;
  std::vector<LoopSpec> specs;
  for (auto it = from; it != loops.end(); ++it) {
    const ForNode& f = s.loop_at(*it);
    if (!binding_vars.count(f.loop_var.get())) continue;
    Var v = make_var(f.loop_var->name, f.loop_var->dtype);
    var_map[f.loop_var.get()] = v;
    specs.push_back(LoopSpec{v, substitute(f.min, var_map), substitute(f.extent, var_map)});
  }
  return specs;
}

BufferRegion point_region(const Buffer& b, const std::vector<PrimExpr>& idx) {
  BufferRegion r{b, {}};
  for (const PrimExpr& e : idx) r.region.push_back(Range{e, make_int(1, e->dtype)});
  return r;
}

// The copy block over the used iterators, bound as in the block through `var_map`, moving
// the access's point to the cache's (or back for a write).
std::shared_ptr<BlockNode> make_copy_block(ScheduleState& s, BlockSid block_sid, const ReindexStage& stage,
                                           const Buffer& buffer, const std::string& scope_name,
                                           const std::vector<size_t>& used,
                                           const std::unordered_map<const VarNode*, PrimExpr>& var_map, bool is_read,
                                           std::vector<PrimExpr>& bindings) {
  const BlockNode& block = s.block_at(block_sid);
  const BlockRealizeNode* realize = s.info(block_sid)->realize;
  auto copy = std::make_shared<BlockNode>();
  copy->name = buffer->name + "_" + scope_name;
  copy->sid = s.fresh_sid();
  std::unordered_map<const VarNode*, PrimExpr> iter_map;
  for (size_t i : used) {
    const IterVar& iv = block.iter_vars[i];
    Var v = make_var(iv.var->name, iv.var->dtype);
    iter_map[iv.var.get()] = v;
    copy->iter_vars.push_back(IterVar{v, iv.dom, IterType::DataPar});
    bindings.push_back(substitute(realize->iter_values[i], var_map));
  }
  std::vector<PrimExpr> old_idx, new_idx;
  for (const PrimExpr& e : stage.old_indices) old_idx.push_back(substitute(e, iter_map));
  for (const PrimExpr& e : stage.new_indices) new_idx.push_back(substitute(e, iter_map));
  if (is_read) {
    copy->reads = {point_region(buffer, old_idx)};
    copy->writes = {point_region(stage.cache, new_idx)};
    copy->body = std::make_shared<BufferStoreNode>(stage.cache, buffer_load(buffer, old_idx), new_idx);
  } else {
    copy->reads = {point_region(stage.cache, new_idx)};
    copy->writes = {point_region(buffer, old_idx)};
    copy->body = std::make_shared<BufferStoreNode>(buffer, buffer_load(stage.cache, new_idx), old_idx);
  }
  return copy;
}

ReindexStage make_stage(ScheduleState& s, BlockSid block_sid, StmtSid loc, const BufferRegion& access,
                        const std::string& scope_name, const std::vector<Var>& map_params,
                        const std::vector<PrimExpr>& map_outputs, bool is_read) {
  const char* primitive = is_read ? "reindex_cache_read" : "reindex_cache_write";
  check_single_point(s, block_sid, access, primitive);
  ReindexStage stage;
  std::vector<PrimExpr> shape = map_over_iters(s.block_at(block_sid), map_params, map_outputs, stage.new_indices);
  for (const Range& r : access.region) stage.old_indices.push_back(r.min);
  std::vector<size_t> used = check_same_iters(s, block_sid, stage, primitive);
  check_one_to_one_unguarded(s, block_sid, used, stage.new_indices, primitive);
  stage.cache = cache_buffer(access.buffer, scope_name, shape);
  // The copy: the used iterators, bound as in the block, under copies of the loops below the
  // insertion point that those bindings use.
  std::unordered_map<const VarNode*, PrimExpr> var_map;
  std::vector<LoopSpec> specs = copy_loops(s, block_sid, loc, used, var_map);
  std::vector<PrimExpr> bindings;
  std::shared_ptr<BlockNode> copy =
      make_copy_block(s, block_sid, stage, access.buffer, scope_name, used, var_map, is_read, bindings);
  stage.copy_sid = sid_of(*copy);
  stage.nest = make_loop_nest(s, specs, std::make_shared<BlockRealizeNode>(bindings, make_bool(true), copy));
  return stage;
}

// The block's accesses of `buffer` — loads, stores, its read and write regions — become the
// cache's point `indices` (the access is one point per instance, so every access is it).
Stmt redirect_block(const BlockRealizeNode& realize, const Buffer& buffer, const Buffer& cache,
                    const std::vector<PrimExpr>& indices) {
  BufferReindex to_point;
  to_point.indices = [&indices](const std::vector<PrimExpr>&) { return indices; };
  to_point.region = [&indices](const std::vector<Range>&) {
    std::vector<Range> out;
    for (const PrimExpr& e : indices) out.push_back(Range{e, make_int(1, e->dtype)});
    return out;
  };
  Stmt st(std::shared_ptr<const StmtNode>{}, &realize);
  return replace_buffer(st, buffer, cache, &to_point);
}

// Inserts `nest` at `pos` in the body of `loc` (a loop, or the scope block), redirects the
// block, allocates the cache in the scope.
void install(ScheduleState& s, BlockSid block_sid, BlockSid scope, StmtSid loc, int64_t pos, const ReindexStage& stage,
             const Buffer& buffer) {
  Stmt redirected = redirect_block(*s.info(block_sid)->realize, buffer, stage.cache, stage.new_indices);
  s.replace(block_sid, redirected);
  if (loc != scope) {
    auto loop = std::make_shared<ForNode>(s.loop_at(s.as_loop(loc)));
    loop->body = insert_into_body(loop->body, static_cast<size_t>(pos), stage.nest);
    s.replace(loc, loop);
  }
  rebuild_scope(s, scope, [&](BlockNode& b) {
    if (loc == scope) b.body = insert_into_body(b.body, static_cast<size_t>(pos), stage.nest);
    b.alloc_buffers.push_back(stage.cache);
  });
}

// Where the copy goes: after `first` and before the first of `related`, as cache_read places it.
void locate(const ScheduleState& s, BlockSid block_sid, BlockSid scope, BlockSid first,
            std::unordered_set<BlockSid> related, StmtSid& loc, int64_t& pos, const char* primitive) {
  const BlockNode& scope_block = s.block_at(scope);
  related.erase(first);
  loc = scope;
  if (related.empty()) {
    pos = static_cast<int64_t>(body_items(peel_decls(scope_block.body).inner).size());
    return;
  }
  CacheLocDetector detector(first, scope, related);
  detector.visit(Stmt(std::make_shared<BlockNode>(scope_block)));
  if (detector.holds_both)
    fail_not_supported(s, {block_sid},
                       std::string(primitive) + " where the blocks it connects share a container block");
  if (detector.pos < 0 || !detector.loc)
    fail_not_supported(s, {block_sid},
                       std::string(primitive) + " where the copy has no place between the blocks it connects");
  loc = detector.loc;
  pos = detector.pos;
  Stmt body = loc == scope ? peel_decls(scope_block.body).inner : s.loop_at(s.as_loop(loc)).body;
  if (detector.seq && body.get() != detector.seq) {
    fail_not_supported(s, {block_sid},
                       std::string(primitive) + " where the blocks it connects meet under a branch or binding");
  }
}

std::vector<BlockSid> writers_of(const ScheduleState& s, BlockSid scope, const Buffer& buffer) {
  std::vector<BlockSid> out;
  for (BlockSid b : s.child_blocks(scope)) {
    if (writes_buffer(&s.block_at(b), buffer)) out.push_back(b);
  }
  return out;
}

}  // namespace

BlockSid reindex_cache_read(ScheduleState& s, BlockSid block_sid, int64_t index, const std::string& scope_name,
                            const std::vector<Var>& map_params, const std::vector<PrimExpr>& map_outputs) {
  check_storage_scope(s, scope_name);
  const BlockNode* block = &s.block_at(block_sid);
  if (index < 0 || index >= static_cast<int64_t>(block->reads.size()))
    fail_buffer_index_out_of_range(s, block_sid, index, false);
  const BufferRegion access = block->reads[static_cast<size_t>(index)];
  BlockSid scope = s.scope_block(block_sid);
  check_stage_pipeline(s, scope);
  for (const auto& w : block->writes) {
    if (w.buffer == access.buffer)
      fail_not_supported(s, {block_sid},
                         fmt::format("reindex_cache_read of {}, which block {{0}} also writes", access.buffer->name));
  }
  std::vector<BlockSid> writers = writers_of(s, scope, access.buffer);
  if (writers.size() > 1) {
    fail(s, kNotSingleWriteBlock, {writers[0], writers[1]},
         "The buffer " + access.buffer->name +
             " is expected to be written by single block, but it is written by blocks {0} and {1}.");
  }
  StmtSid loc = scope;
  int64_t pos = 0;
  if (!writers.empty()) locate(s, block_sid, scope, writers[0], {block_sid}, loc, pos, "reindex_cache_read");
  ReindexStage stage = make_stage(s, block_sid, loc, access, scope_name, map_params, map_outputs, /*is_read=*/true);
  install(s, block_sid, scope, loc, pos, stage, access.buffer);
  return stage.copy_sid;
}

BlockSid reindex_cache_write(ScheduleState& s, BlockSid block_sid, int64_t index, const std::string& scope_name,
                             const std::vector<Var>& map_params, const std::vector<PrimExpr>& map_outputs) {
  check_storage_scope(s, scope_name);
  const BlockNode* block = &s.block_at(block_sid);
  if (index < 0 || index >= static_cast<int64_t>(block->writes.size()))
    fail_buffer_index_out_of_range(s, block_sid, index, true);
  const BufferRegion access = block->writes[static_cast<size_t>(index)];
  BlockSid scope = s.scope_block(block_sid);
  check_stage_pipeline(s, scope);
  for (BlockSid other : s.blocks_in(s.info(block_sid)->func)) {
    if (other == block_sid) continue;
    for (const auto& w : s.block_at(other).writes) {
      if (w.buffer == access.buffer)
        fail(s, kNotSingleWriteBlock, {block_sid, other},
             "The buffer " + access.buffer->name +
                 " is expected to be written by single block, but it is written by blocks {0} and {1}.");
    }
  }
  // The copy back goes after the block, before the first block of the scope reading the buffer.
  std::unordered_set<BlockSid> readers;
  for (BlockSid b : s.blocks_in(s.info(block_sid)->func)) {
    if (b == block_sid || b == scope) continue;
    StmtSid up = b;
    while (up && up != scope) up = s.scope_block(up);
    if (!up) continue;
    for (const auto& r : s.block_at(b).reads) {
      if (r.buffer == access.buffer) readers.insert(b);
    }
  }
  StmtSid loc = scope;
  int64_t pos = 0;
  locate(s, block_sid, scope, block_sid, readers, loc, pos, "reindex_cache_write");
  if (readers.empty()) pos = static_cast<int64_t>(top_level_index(s, block_sid, scope)) + 1;
  ReindexStage stage = make_stage(s, block_sid, loc, access, scope_name, map_params, map_outputs, /*is_read=*/false);
  install(s, block_sid, scope, loc, pos, stage, access.buffer);
  return stage.copy_sid;
}

}  // namespace tsch::schedule

// ---- instruction kinds

namespace tsch::schedule {

void register_reindex_cache_kinds(KindList& kinds) {
  for (bool read : {true, false}) {
    kinds.push_back(define_kind(
        read ? "ReindexCacheRead" : "ReindexCacheWrite", read ? "reindex_cache_read" : "reindex_cache_write",
        {input("block", ParamType::Block),
         attr(read ? "read_buffer_index" : "write_buffer_index", read ? ParamType::ReadIndex : ParamType::WriteIndex),
         attr("storage_scope", ParamType::Str), input("index_map", ParamType::IndexMap)},
        OutputForm::Single,
        [read](Schedule& sch, InstructionCall& c) {
          BlockSid block = sch.block_sid(c.inputs[0]);
          const TraceArg& map = c.inputs[1];
          TSCH_USER_ASSERT_ARG(map.kind == TraceArg::Kind::IndexMap, TypeError, "index_map") << "expected an index map";
          int64_t index = c.attrs[0].as_int();
          output_blocks(
              c,
              {read ? reindex_cache_read(sch.state(), block, index, c.attrs[1].s, map.map_params, map.map_outputs)
                    : reindex_cache_write(sch.state(), block, index, c.attrs[1].s, map.map_params, map.map_outputs)});
        },
        read ? "reindex_cache_read(block, read_buffer_index, storage_scope, index_map) -> BlockRV: read the point the "
               "block reads "
               "per instance through a cache laid out by index_map over the block's iterators."
             : "reindex_cache_write(block, write_buffer_index, storage_scope, index_map) -> BlockRV: write the point "
               "the block writes "
               "per instance into a cache laid out by index_map over the block's iterators, copied back after it.",
        "the access is a single point per instance; the iterators the index map uses are those the access uses; one "
        "writer of "
        "the buffer in the scope",
        read ? "C[vi, vj] = B[vi, vj] + 1, index_map lambda i, j: (j, i)  ->  B_shared[vj, vi] = B[vi, vj] (block "
               "B_shared); "
               "C[vi, vj] = B_shared[vj, vi] + 1"
             : "B[vi, vj] = A[vi, vj] * 2, index_map lambda i, j: (j, i)  ->  B_shared[vj, vi] = A[vi, vj] * 2; B[vi, "
               "vj] = "
               "B_shared[vj, vi] (block B_shared)"));
  }
}

}  // namespace tsch::schedule
