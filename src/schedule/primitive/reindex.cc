// reindex: give a block's access to one buffer its own buffer indexed by the block's
// iterators, with a copy stage between it and the original (TVM's ReIndex). After it the
// block reads (writes) `X_reindex[v0, v1, ...]`, its iterators as the indices, and a new
// block "X_reindex" copies X into it before the block's nest (out of it after).
//
//   B[vi, vj] = A[vj, vi] * 2        sch.reindex(B, ("read", 0))
//                                 ─────────────────────────────▶
//   A_reindex[v0, v1] = A[v1, v0]      (new block, before B's loops)
//   B[vi, vj] = A_reindex[vi, vj] * 2
//
// Beyond TVM's checks tsch refuses what would change results: a write through the new buffer
// where the block does not write every element of it (a T.where, indices that are not one
// to one), or where the block reads the old values without initialising them.
#include <fmt/format.h>

#include <algorithm>
#include <unordered_set>

#include "arith/int_set.h"
#include "arith/iter_map.h"
#include "arith/simplify.h"
#include "ir/expr_equal.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "ir/printer.h"
#include "schedule/analysis.h"
#include "schedule/error.h"
#include "schedule/kind_registration.h"
#include "schedule/primitives.h"
#include "schedule/transform.h"
#include "schedule/utils.h"

namespace tsch::schedule {

using namespace ir;

namespace {

TSCH_SCHEDULE_ERROR_KIND(kNotLeafBlockError, "NotLeafBlockError", "The target block is not a leaf block.",
                         "The target block {0} is not a leaf block.");
TSCH_SCHEDULE_ERROR_KIND(
    kInvalidBufferAccessError, "InvalidBufferAccessError",
    "The target buffer should be accessed via BufferLoad or BufferStore. The indices should be the same if "
    "there are multiple accesses to the target buffer.",
    "The target buffer should be accessed in the leaf block {0} via BufferLoad or BufferStore.");

// The indices of every load and store of `buffer` in the block's body (they must agree).
std::vector<PrimExpr> access_indices(const ScheduleState& s, BlockSid block_sid, const Buffer& buffer) {
  const BlockNode& block = s.block_at(block_sid);
  auto invalid = [&](const char* why) {
    fail(s, kInvalidBufferAccessError, {block_sid},
         fmt::format("The target buffer {} should be accessed in the leaf block {{0}} via BufferLoad or BufferStore. "
                     "The indices "
                     "should be the same if there are multiple accesses to the target buffer. {}",
                     buffer->name, why));
  };
  std::optional<std::vector<PrimExpr>> found;
  auto see = [&](const std::vector<PrimExpr>& indices) {
    if (!found) {
      found = indices;
      return;
    }
    bool same = found->size() == indices.size();
    for (size_t i = 0; same && i < indices.size(); ++i) same = expr_deep_equal((*found)[i], indices[i]);
    if (!same) invalid("Multiple buffer accesses have non-unique indices.");
  };
  for (const Stmt& part : {block.init, block.body}) {
    if (!part) continue;
    for_each_stmt(part, [&](const Stmt& st) {
      if (as<BlockRealizeNode>(st) || as<BlockNode>(st)) fail(s, kNotLeafBlockError, {block_sid});
      if (auto* store = as<BufferStoreNode>(st); store && store->buffer == buffer) see(store->indices);
    });
    for_each_expr(part, [&](const PrimExpr& e) {
      if (auto* load = as<BufferLoadNode>(e); load && load->buffer == buffer) see(load->indices);
      if (e.get() == buffer->data.get()) invalid("Opaque buffer accesses found.");
    });
  }
  if (!found) invalid("No buffer accesses found.");
  return *found;
}

// Rewrites the block's loads and stores of `from` to `to[indices]`.
class AccessRewriter : public IRMutator {
 public:
  AccessRewriter(const Buffer& from, const Buffer& to, const std::vector<PrimExpr>& indices)
      : from_(from), to_(to), indices_(indices) {}

 protected:
  PrimExpr mutate_BufferLoad(const BufferLoadNode& n, const PrimExpr& self) override {
    PrimExpr out = IRMutator::mutate_BufferLoad(n, self);
    auto* load = as<BufferLoadNode>(out);
    if (load->buffer != from_) return out;
    return std::make_shared<BufferLoadNode>(load->dtype, to_, indices_);
  }
  Stmt mutate_BufferStore(const BufferStoreNode& n, const Stmt& self) override {
    Stmt out = IRMutator::mutate_BufferStore(n, self);
    auto* store = as<BufferStoreNode>(out);
    if (store->buffer != from_) return out;
    return std::make_shared<BufferStoreNode>(to_, store->value, indices_);
  }

 private:
  const Buffer& from_;
  const Buffer& to_;
  const std::vector<PrimExpr>& indices_;
};

// The region of the single element `b[at]`.
BufferRegion point_region(const Buffer& b, const std::vector<PrimExpr>& at) {
  BufferRegion r{b, {}};
  for (const auto& i : at) r.region.push_back(Range{i, make_int(1, i->dtype)});
  return r;
}

// Step 1's findings: the buffer, the indices of its accesses simplified over the iterators'
// domains, and the iterators they use (in the block's order).
struct ReindexAccess {
  Buffer buffer;
  std::vector<PrimExpr> indices;
  arith::VarDomain iter_dom;
  std::vector<const IterVar*> covered;
};

ReindexAccess reindex_access(const ScheduleState& s, BlockSid block_sid, int64_t buffer_index, bool is_write) {
  const BlockNode* block = &s.block_at(block_sid);
  const std::vector<BufferRegion>& regions = is_write ? block->writes : block->reads;
  if (buffer_index < 0 || buffer_index >= static_cast<int64_t>(regions.size())) {
    fail_buffer_index_out_of_range(s, block_sid, buffer_index, is_write);
  }
  ReindexAccess a;
  a.buffer = regions[static_cast<size_t>(buffer_index)].buffer;
  a.indices = access_indices(s, block_sid, a.buffer);
  for (const IterVar& iv : block->iter_vars) a.iter_dom[iv.var.get()] = arith::interval_of(iv.dom);
  for (auto& index : a.indices) index = arith::simplify(index, a.iter_dom);
  for (const IterVar& iv : block->iter_vars) {
    bool used = false;
    for (const auto& index : a.indices) used |= uses_var(index, [&](const VarNode* v) { return v == iv.var.get(); });
    if (used) a.covered.push_back(&iv);
  }
  return a;
}

// The block must be the only thing in its nest below the scope (TVM's chain of loops).
// Returns the nest's top statement (the outermost loop, or the block).
StmtSid check_sole_nest(const ScheduleState& s, BlockSid block_sid, BlockSid scope) {
  StmtSid top = block_sid;
  while (s.info(top)->parent != scope) {
    StmtSid parent = s.info(top)->parent;
    const ForNode* loop = s.loop(parent);
    const StmtNode* child = s.info(top)->node->kind == StmtKind::Block ? s.info(top)->realize : s.info(top)->node;
    if (!loop || loop->body.get() != child) {
      fail_not_supported(s, {block_sid}, "reindex of block {0}, which shares its loops with other statements");
    }
    top = parent;
  }
  return top;
}

// The copy runs over the iterators' whole domains, where a guarded block may run only part
// of them: its accesses must stay inside the buffer there.
void check_indices_inside(const ScheduleState& s, BlockSid block_sid, const ReindexAccess& a) {
  for (size_t d = 0; d < a.indices.size() && d < a.buffer->shape.size(); ++d) {
    const PrimExpr& index = a.indices[d];
    PrimExpr bound = cast(index->dtype, a.buffer->shape[d]);
    bool inside = arith::can_prove(make_binary(ExprKind::GE, index, make_int(0, index->dtype)), a.iter_dom) &&
                  arith::can_prove(make_binary(ExprKind::LT, index, bound), a.iter_dom);
    if (!inside) {
      fail_not_supported(
          s, {block_sid},
          fmt::format("reindex of {}: index {} may leave the buffer over the block's iterator domains, which the "
                      "copy runs over",
                      a.buffer->name, ir::script(a.indices[d])));
    }
  }
}

// A write through the new buffer is copied back whole: the block must write every element
// of it (no T.where, indices one to one), and not read old values it does not initialise.
// `reads_too`: the block also reads the buffer.
void check_write_back_complete(const ScheduleState& s, BlockSid block_sid, const ReindexAccess& a, bool reads_too) {
  const BlockNode* block = &s.block_at(block_sid);
  const std::string& name = a.buffer->name;
  if (reads_too && !block->init) {
    fail_not_supported(
        s, {block_sid},
        fmt::format("reindex of {} for writing: block {{0}} reads its old values, which the new buffer would not hold",
                    name));
  }
  if (!is_one(s.info(block_sid)->realize->predicate)) {
    fail_not_supported(
        s, {block_sid},
        fmt::format("reindex of {} for writing: block {{0}} is guarded by a T.where, so the copy back would write "
                    "elements it never computed",
                    name));
  }
  arith::LoopExtents extents;
  bool constant = true;
  for (const IterVar* iv : a.covered) {
    int64_t extent;
    if (is_zero(iv->dom.min) && as_const_int(iv->dom.extent, &extent))
      extents[iv->var.get()] = extent;
    else
      constant = false;
  }
  bool one_to_one = true;
  for (const auto& index : a.indices) one_to_one &= as<VarNode>(index) != nullptr;
  if (!one_to_one && !(constant && arith::detect_iter_map(a.indices, extents, true).ok)) {
    fail_not_supported(
        s, {block_sid},
        fmt::format("reindex of {} for writing: its indices are not a one-to-one map of the block's iterators", name));
  }
}

// What would change results (tsch's checks).
void check_reindex_keeps_results(const ScheduleState& s, BlockSid block_sid, const ReindexAccess& a, bool is_write) {
  check_indices_inside(s, block_sid, a);
  const BlockNode* block = &s.block_at(block_sid);
  bool also_other_side = false;
  for (const BufferRegion& r : is_write ? block->reads : block->writes) also_other_side |= r.buffer == a.buffer;
  if (!is_write && also_other_side) {
    fail_not_supported(s, {block_sid},
                       fmt::format("reindex of {} for reading while block {{0}} also writes it", a.buffer->name));
  }
  if (is_write) check_write_back_complete(s, block_sid, a, also_other_side);
}

// Step 3. The copy block "X_reindex" and its loops over the covered iterators' domains.
std::shared_ptr<BlockNode> make_reindex_copy(ScheduleState& s, const ReindexAccess& a, const Buffer& reindexed,
                                             bool is_write, std::vector<PrimExpr>& bindings,
                                             std::vector<LoopSpec>& loops) {
  auto copy = std::make_shared<BlockNode>();
  copy->name = reindexed->name;
  copy->sid = s.fresh_sid();
  std::unordered_map<const VarNode*, PrimExpr> to_copy_iter;
  std::vector<PrimExpr> reindex_indices;
  for (size_t k = 0; k < a.covered.size(); ++k) {
    const IterVar& iv = *a.covered[k];
    Var v = make_var("v" + std::to_string(k), iv.var->dtype);
    Var ax = make_var("ax" + std::to_string(k), iv.var->dtype);
    copy->iter_vars.push_back(IterVar{v, iv.dom, IterType::DataPar});
    to_copy_iter[iv.var.get()] = v;
    reindex_indices.push_back(v);
    bindings.push_back(ax);
    loops.push_back({ax, iv.dom.min, iv.dom.extent});
  }
  std::vector<PrimExpr> target_indices;
  for (const auto& index : a.indices) target_indices.push_back(substitute(index, to_copy_iter));
  const Buffer& src = is_write ? reindexed : a.buffer;
  const Buffer& dst = is_write ? a.buffer : reindexed;
  const std::vector<PrimExpr>& src_indices = is_write ? reindex_indices : target_indices;
  const std::vector<PrimExpr>& dst_indices = is_write ? target_indices : reindex_indices;
  copy->reads = {point_region(src, src_indices)};
  copy->writes = {point_region(dst, dst_indices)};
  copy->body = std::make_shared<BufferStoreNode>(dst, buffer_load(src, src_indices), dst_indices);
  return copy;
}

// Step 4. The block accessing the new buffer at its covered iterators.
std::shared_ptr<BlockNode> reindexed_block(const BlockNode& block, const ReindexAccess& a, const Buffer& reindexed) {
  std::vector<PrimExpr> own_indices;
  for (const IterVar* iv : a.covered) own_indices.push_back(iv->var);
  auto rewritten = std::make_shared<BlockNode>(block);
  AccessRewriter rewriter(a.buffer, reindexed, own_indices);
  rewritten->body = rewriter.mutate(block.body);
  if (block.init) rewritten->init = rewriter.mutate(block.init);
  for (auto* list : {&rewritten->reads, &rewritten->writes}) {
    for (auto& r : *list) {
      if (r.buffer == a.buffer) r = point_region(reindexed, own_indices);
    }
  }
  return rewritten;
}

}  // namespace

BlockSid reindex(ScheduleState& s, BlockSid block_sid, int64_t buffer_index, bool is_write) {
  // Step 1. The buffer, and the indices of its accesses; the checks.
  ReindexAccess a = reindex_access(s, block_sid, buffer_index, is_write);
  BlockSid scope = s.scope_block(block_sid);
  StmtSid top = check_sole_nest(s, block_sid, scope);
  check_reindex_keeps_results(s, block_sid, a, is_write);
  // Step 2. The new buffer: one dimension per covered iterator, its domain's end as extent.
  std::vector<PrimExpr> shape;
  for (const IterVar* iv : a.covered) shape.push_back(arith::simplify(add(iv->dom.min, iv->dom.extent)));
  Buffer reindexed = buffer_with(a.buffer, a.buffer->name + "_reindex", shape, a.buffer->scope);
  std::const_pointer_cast<BufferNode>(reindexed)->strides.clear();
  // Step 3. The copy block and its nest.
  std::vector<PrimExpr> bindings;
  std::vector<LoopSpec> loops;
  std::shared_ptr<BlockNode> copy = make_reindex_copy(s, a, reindexed, is_write, bindings, loops);
  Stmt nest = make_loop_nest(s, loops, std::make_shared<BlockRealizeNode>(bindings, make_bool(true), copy));
  // Step 4. The block accesses the new buffer.
  const BlockRealizeNode* realize = s.info(block_sid)->realize;
  s.replace(block_sid, std::make_shared<BlockRealizeNode>(realize->iter_values, realize->predicate,
                                                          reindexed_block(s.block_at(block_sid), a, reindexed)));
  // Step 5. The copy next to the block's nest (before it for a read, after it for a write).
  const StmtNode* top_node = s.info(top)->node->kind == StmtKind::Block ? s.info(top)->realize : s.info(top)->node;
  std::vector<Stmt> items = body_items(s.block_at(scope).body);
  size_t position = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    if (items[i].get() == top_node) position = i;
  }
  rebuild_scope(s, scope, [&](BlockNode& b) {
    b.body = insert_into_body(b.body, position + (is_write ? 1 : 0), nest);
    b.alloc_buffers.push_back(reindexed);
  });
  return sid_of(*copy);
}

void register_reindex_kinds(KindList& kinds) {
  kinds.push_back(define_kind(
      "ReIndex", "reindex", {input("block", ParamType::Block), attr("buffer", ParamType::LayoutBuffer)},
      OutputForm::Single,
      [](Schedule& sch, InstructionCall& c) {
        output_blocks(
            c, {reindex(sch.state(), sch.block_sid(c.inputs[0]), c.attrs[0].as_int(), c.attrs[1].as_int() != 0)});
      },
      "reindex(block, buffer) -> BlockRV: access the buffer through a new one indexed by the block's iterators, with a "
      "copy "
      "block between them; buffer is (\"read\" | \"write\", index), a name or a Buffer.",
      "the block is a leaf alone in its loop nest and accesses the buffer at one set of indices",
      "B[vi, vj] = A[vj, vi]  ->  A_reindex[v0, v1] = A[v1, v0]; B[vi, vj] = A_reindex[vi, vj]"));
}

}  // namespace tsch::schedule
