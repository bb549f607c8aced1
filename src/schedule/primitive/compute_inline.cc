// compute_inline: substitute a block's value into its consumers and delete it (TVM's
// ComputeInline). The block must be a plain `X[v0, v1, ...] = expr` over distinct iterators,
// write one buffer allocated in its scope, and have no init.
//
//   B[vi, vj] = A[vi, vj] * 2          sch.compute_inline(B)        C[vi, vj] = A[vi, vj] * 2 + 1
//   C[vi, vj] = B[vi, vj] + 1       ─────────────────────────▶
#include <fmt/format.h>

#include "arith/block_access.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "schedule/error.h"
#include "schedule/primitives.h"
#include "schedule/utils.h"

namespace tsch::schedule {

using namespace ir;

namespace {

// Replaces loads of `buffer` by the producer's value at the loaded indices.
class Inliner : public IRMutator {
 public:
  Inliner(const Buffer& buffer, const std::vector<Var>& vars, const PrimExpr& value)
      : buffer_(buffer), vars_(vars), value_(value) {}
  PrimExpr mutate(const PrimExpr& e) override {
    PrimExpr out = mutate_children(e);
    if (auto* load = as<BufferLoadNode>(out); load && load->buffer == buffer_) {
      std::unordered_map<const VarNode*, PrimExpr> vmap;
      for (size_t i = 0; i < vars_.size(); ++i) vmap[vars_[i].get()] = load->indices[i];
      return substitute(value_, vmap);
    }
    return out;
  }
  using IRMutator::mutate;

 private:
  const Buffer& buffer_;
  const std::vector<Var>& vars_;
  const PrimExpr& value_;
};

}  // namespace

void compute_inline(ScheduleState& s, uint64_t block_sid) {
  // Step 1. Check the block's shape.
  const BlockNode* block = s.block(block_sid);
  if (s.info(block_sid)->parent == 0) fail("compute_inline", {block_sid}, "The root block cannot be inlined");
  if (block->init) fail("compute_inline", {block_sid}, "The block has init statement: block \"" + block->name + "\" is a reduction");
  auto* store = as<BufferStoreNode>(block->body);
  if (!store) {
    fail("compute_inline", {block_sid},
         "The body of the inlined block should be in form of 'A[i, j, k, ...] = f(i, j, k, ...)', where the indices on the "
         "left are distinct atomic variables");
  }
  std::vector<Var> index_vars;
  for (const auto& idx : store->indices) {
    auto* v = as<VarNode>(idx);
    bool is_iter = false;
    for (const auto& iv : block->iter_vars) is_iter |= iv.var.get() == v;
    bool repeated = false;
    for (const auto& seen : index_vars) repeated |= seen.get() == v;
    if (!v || !is_iter || repeated) {
      fail("compute_inline", {block_sid},
           "The body of the inlined block should be in form of 'A[i, j, k, ...] = f(i, j, k, ...)', where the indices on the "
           "left are distinct atomic variables");
    }
    index_vars.push_back(std::static_pointer_cast<const VarNode>(idx));
  }
  uint64_t scope = s.scope_block(block_sid);
  const BlockNode* scope_block = s.block(scope);
  bool allocated = false;
  for (const auto& b : scope_block->alloc_buffers) allocated |= b == store->buffer;
  if (!allocated) fail("compute_inline", {block_sid}, "Cannot operate on an output block: block \"" + block->name + "\" writes " + store->buffer->name);
  if (s.child_blocks(scope).size() == 1) fail("compute_inline", {block_sid}, "The block is the only leaf in the scope and cannot be inlined");
  for (const auto& r : block->reads) {
    if (r.buffer == store->buffer) fail("compute_inline", {block_sid}, "The inlined block reads the buffer it writes");
  }

  // The block with the loops that hold nothing else must be a top-level statement of its scope.
  uint64_t top = block_sid;
  const StmtNode* top_node = s.info(block_sid)->realize;
  while (true) {
    uint64_t parent = s.info(top)->parent;
    const ForNode* f = s.loop(parent);
    if (!f || f->body.get() != top_node) break;
    top = parent;
    top_node = f;
  }
  if (s.info(top)->parent != scope || !as<SeqStmtNode>(scope_block->body)) {
    fail("compute_inline", {block_sid}, "not supported yet: inlining a block that shares loops with other blocks");
  }

  // Step 2. Rewrite every consumer in the scope, drop the block and its buffer.
  Inliner inliner(store->buffer, index_vars, store->value);
  std::vector<uint64_t> consumers = get_consumers(s, block_sid);
  for (uint64_t c : consumers) {
    const BlockNode* cb = s.block(c);
    auto copy = std::make_shared<BlockNode>(*cb);
    copy->body = inliner.mutate(cb->body);
    if (cb->init) copy->init = inliner.mutate(cb->init);
    arith::AccessRegions regions = arith::infer_access_regions(copy->body, copy->init);
    copy->reads = regions.reads;
    const BlockRealizeNode* r = s.info(c)->realize;
    s.replace(c, std::make_shared<BlockRealizeNode>(r->iter_values, r->predicate, copy));
  }
  Buffer removed = store->buffer;
  // Remove the block's subtree (unchanged by the consumer rewrites) and its buffer.
  const BlockNode* scope_now = s.block(scope);
  auto new_scope = std::make_shared<BlockNode>(*scope_now);
  std::vector<Stmt> kept;
  if (auto* seq = as<SeqStmtNode>(scope_now->body)) {
    for (const auto& st : seq->seq) {
      if (st.get() != top_node) kept.push_back(st);
    }
  }
  new_scope->body = make_seq(kept);
  std::vector<Buffer> allocs;
  for (const auto& b : new_scope->alloc_buffers) {
    if (b != removed) allocs.push_back(b);
  }
  new_scope->alloc_buffers = allocs;
  const BlockRealizeNode* sr = s.info(scope)->realize;
  if (sr) s.replace(scope, std::make_shared<BlockRealizeNode>(sr->iter_values, sr->predicate, new_scope));
  else s.replace(scope, new_scope);
}

}  // namespace tsch::schedule
