#include "schedule/utils.h"

#include <fmt/format.h>

#include "arith/int_set.h"
#include "arith/simplify.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "schedule/error.h"

namespace tsch::schedule {

using namespace ir;

std::vector<const BlockRealizeNode*> realizes_under(const Stmt& s) {
  std::vector<const BlockRealizeNode*> out;
  std::function<void(const Stmt&)> walk = [&](const Stmt& st) {
    if (!st) return;
    switch (st->kind) {
      case StmtKind::BlockRealize: out.push_back(as<BlockRealizeNode>(st)); return;
      case StmtKind::For: walk(as<ForNode>(st)->body); return;
      case StmtKind::SeqStmt:
        for (const auto& c : as<SeqStmtNode>(st)->seq) walk(c);
        return;
      case StmtKind::IfThenElse:
        walk(as<IfThenElseNode>(st)->then_case);
        walk(as<IfThenElseNode>(st)->else_case);
        return;
      case StmtKind::LetStmt: walk(as<LetStmtNode>(st)->body); return;
      default: return;
    }
  };
  walk(s);
  return out;
}

PrimExpr predicate_without(const PrimExpr& pred, const std::unordered_set<const VarNode*>& dropped) {
  std::vector<PrimExpr> terms, kept;
  std::vector<PrimExpr> pending = {pred};
  while (!pending.empty()) {
    PrimExpr e = pending.back();
    pending.pop_back();
    if (e->kind == ExprKind::And) {
      pending.push_back(binary_b(e));
      pending.push_back(binary_a(e));
    } else {
      terms.push_back(e);
    }
  }
  for (const PrimExpr& t : terms) {
    if (!uses_var(t, [&](const VarNode* v) { return dropped.count(v) > 0; })) kept.push_back(t);
  }
  if (kept.empty()) return make_bool(true);
  PrimExpr out = kept[0];
  for (size_t i = 1; i < kept.size(); ++i) out = make_binary(ExprKind::And, out, kept[i]);
  return out;
}

bool is_under(const ScheduleState& s, uint64_t sid, uint64_t ancestor) {
  for (const NodeInfo* i = s.info(sid); i && i->parent != 0; i = s.info(i->parent)) {
    if (i->parent == ancestor) return true;
  }
  return false;
}

arith::VarDomain loop_domain(const ScheduleState& state, uint64_t sid) {
  arith::VarDomain dom;
  for (uint64_t l : state.enclosing_loops(sid)) {
    const ForNode* f = state.loop(l);
    dom[f->loop_var.get()] = arith::interval_of(Range{f->min, f->extent});
  }
  if (const ForNode* f = state.loop(sid)) dom[f->loop_var.get()] = arith::interval_of(Range{f->min, f->extent});
  return dom;
}

namespace {

class BindingRewriter : public IRMutator {
 public:
  BindingRewriter(const std::unordered_map<const VarNode*, PrimExpr>& vmap, arith::VarDomain dom, const PrimExpr& pred)
      : vmap_(vmap), dom_(std::move(dom)), pred_(pred) {}

  Stmt mutate(const Stmt& s) override {
    if (auto* f = as<ForNode>(s)) {
      dom_[f->loop_var.get()] = arith::interval_of(Range{f->min, f->extent});
      Stmt out = mutate_children(s);
      dom_.erase(f->loop_var.get());
      return out;
    }
    if (auto* r = as<BlockRealizeNode>(s)) {
      std::vector<PrimExpr> values;
      for (const auto& v : r->iter_values) values.push_back(arith::simplify(substitute(v, vmap_), dom_));
      PrimExpr pred = substitute(r->predicate, vmap_);
      // Appended after the predicates already there, as TVM's BlockPredicateAppender does.
      if (pred_) pred = is_one(pred) ? pred_ : make_binary(ExprKind::And, pred, pred_);
      // Inside, an opaque block may use the loop variables directly (`C[i, j] = ... i`);
      // blocks nested in it get their bindings rewritten too, without the extra predicate.
      PrimExpr no_predicate;
      Stmt block = BindingRewriter(vmap_, dom_, no_predicate).mutate_children(Stmt(r->block));
      return std::make_shared<BlockRealizeNode>(values, pred, std::static_pointer_cast<const BlockNode>(block));
    }
    return mutate_children(s);
  }
  // Loop variables used outside blocks (plain loop nests) are replaced too.
  PrimExpr mutate(const PrimExpr& e) override { return vmap_.empty() ? e : substitute(e, vmap_); }

 private:
  const std::unordered_map<const VarNode*, PrimExpr>& vmap_;
  arith::VarDomain dom_;
  const PrimExpr& pred_;
};

}  // namespace

Stmt substitute_bindings(const Stmt& body, const std::unordered_map<const VarNode*, PrimExpr>& vmap,
                         const arith::VarDomain& dom, const PrimExpr& extra_predicate) {
  BindingRewriter r(vmap, dom, extra_predicate);
  return r.mutate(body);
}

Var new_loop_var(const std::string& name, DataType dtype) { return make_var(name, dtype); }

}  // namespace tsch::schedule

namespace tsch::schedule {

namespace {

class BufferReplacer : public IRMutator {
 public:
  BufferReplacer(const Buffer& from, const Buffer& to, const BufferReindex* reindex)
      : from_(from), to_(to), reindex_(reindex) {}
  PrimExpr mutate(const PrimExpr& e) override {
    PrimExpr out = mutate_children(e);
    if (auto* load = as<BufferLoadNode>(out); load && load->buffer == from_) {
      return std::make_shared<BufferLoadNode>(load->dtype, to_, indices(load->indices));
    }
    return out;
  }
  Stmt mutate(const Stmt& s) override {
    Stmt out = mutate_children(s);
    if (auto* store = as<BufferStoreNode>(out); store && store->buffer == from_) {
      return std::make_shared<BufferStoreNode>(to_, store->value, indices(store->indices));
    }
    if (auto* block = as<BlockNode>(out)) {
      bool touched = false;
      auto copy = std::make_shared<BlockNode>(*block);
      auto move = [&](BufferRegion& r) {
        if (r.buffer != from_) return;
        r = BufferRegion{to_, reindex_ ? reindex_->region(r.region) : r.region};
        touched = true;
      };
      for (auto* regions : {&copy->reads, &copy->writes}) {
        for (auto& r : *regions) move(r);
      }
      for (auto& m : copy->match_buffers) move(m.source);
      for (auto& b : copy->alloc_buffers) {
        if (b == from_) {
          b = to_;
          touched = true;
        }
      }
      return touched ? Stmt(copy) : out;
    }
    return out;
  }

 private:
  std::vector<PrimExpr> indices(const std::vector<PrimExpr>& in) const { return reindex_ ? reindex_->indices(in) : in; }
  const Buffer& from_;
  const Buffer& to_;
  const BufferReindex* reindex_;
};

}  // namespace

Stmt replace_buffer(const Stmt& s, const Buffer& from, const Buffer& to, const BufferReindex* reindex) {
  BufferReplacer r(from, to, reindex);
  return r.mutate(s);
}

std::string cache_name(const std::string& buffer, const std::string& scope) {
  std::string s = scope;
  for (char& c : s) {
    if (c == '.') c = '_';
  }
  return buffer + "_" + s;
}

bool valid_storage_scope(const std::string& scope) {
  static const char* scopes[] = {"global", "shared", "shared.dyn", "local", "warp", "texture", "wmma.matrix_a",
                                 "wmma.matrix_b", "wmma.accumulator", "m16n8k8.matrixA", "m16n8k8.matrixB",
                                 "m16n8k8.matrixC", "global.texture"};
  for (const char* s : scopes) {
    if (scope == s) return true;
  }
  return false;
}

}  // namespace tsch::schedule

namespace tsch::schedule {

const StmtNode* block_subtree(const ScheduleState& s, uint64_t block, bool& top_level) {
  uint64_t top = block;
  const StmtNode* top_node = s.info(block)->realize;
  while (true) {
    uint64_t parent = s.info(top)->parent;
    const ForNode* f = s.loop(parent);
    if (!f || f->body.get() != top_node) break;
    top = parent;
    top_node = f;
  }
  uint64_t scope = s.scope_block(block);
  top_level = s.info(top)->parent == scope && as<SeqStmtNode>(s.block(scope)->body) != nullptr;
  return top_node;
}

void remove_from_scope(ScheduleState& s, uint64_t block, const Buffer& drop) {
  // The statement to drop (the block with the loops holding nothing else) and its holder.
  bool top_level = false;
  const StmtNode* subtree = block_subtree(s, block, top_level);
  uint64_t scope = s.scope_block(block);
  uint64_t top = block;
  while (s.info(top)->node != subtree && s.info(top)->realize != subtree) top = s.info(top)->parent;
  uint64_t holder = s.info(top)->parent;
  const StmtNode* holder_node = s.info(holder)->node;
  bool holder_is_loop = holder_node->kind == StmtKind::For;
  const Stmt& body = holder_is_loop ? static_cast<const ForNode*>(holder_node)->body : static_cast<const BlockNode*>(holder_node)->body;
  std::vector<Stmt> kept;
  if (auto* seq = as<SeqStmtNode>(body)) {
    for (const auto& st : seq->seq) {
      if (st.get() != subtree) kept.push_back(st);
    }
  }
  Stmt new_body = make_seq(kept);
  if (!new_body) new_body = std::make_shared<EvaluateNode>(make_int(0));
  if (holder_is_loop) {
    auto copy = std::make_shared<ForNode>(*static_cast<const ForNode*>(holder_node));
    copy->body = new_body;
    s.replace(holder, copy);
    if (!drop) return;
  }
  // The scope loses the dropped buffer's allocation (and, when it held the subtree, the subtree).
  auto scope_copy = std::make_shared<BlockNode>(*s.block(scope));
  if (!holder_is_loop) scope_copy->body = new_body;
  std::vector<Buffer> allocs;
  for (const auto& b : scope_copy->alloc_buffers) {
    if (b != drop) allocs.push_back(b);
  }
  scope_copy->alloc_buffers = allocs;
  const BlockRealizeNode* r = s.info(scope)->realize;
  s.replace(scope, std::make_shared<BlockRealizeNode>(r->iter_values, r->predicate, scope_copy));
}

bool binds_spatial_and_reduction(const ir::BlockRealizeNode& realize, const ir::VarNode* loop_var) {
  bool spatial = false, reduce = false;
  for (size_t i = 0; i < realize.iter_values.size(); ++i) {
    if (!ir::uses_var(realize.iter_values[i], [&](const ir::VarNode* v) { return v == loop_var; })) continue;
    (realize.block->iter_vars[i].type == ir::IterType::DataPar ? spatial : reduce) = true;
  }
  return spatial && reduce;
}

uint64_t other_writer(const ScheduleState& s, uint64_t block, const Buffer& buffer) {
  for (uint64_t other : s.child_blocks(s.scope_block(block))) {
    if (other == block) continue;
    for (const auto& w : s.block(other)->writes)
      if (w.buffer == buffer) return other;
  }
  return 0;
}

namespace {
TSCH_SCHEDULE_ERROR_KIND(kNotCompleteOrReductionBlockError, "NotCompleteOrReductionBlockError", "Not a complete or reduction block",
                         "The block {0} is neither a complete block nor a reduction block");
}  // namespace

void check_complete_or_reduction(const ScheduleState& s, uint64_t block_sid) {
  const BlockNode* block = s.block(block_sid);
  auto refuse = [&](const std::string& why, std::vector<uint64_t> locations) {
    locations.insert(locations.begin(), block_sid);
    fail(s, kNotCompleteOrReductionBlockError, locations, "The block {0} is neither a complete block nor a reduction block: " + why);
  };
  for (const auto& w : block->writes) {
    if (uint64_t other = other_writer(s, block_sid, w.buffer))
      refuse(fmt::format("it is not the only writer of {} (block {{1}} writes it too)", w.buffer->name), {other});
  }
  if (block->init) return;
  for (const auto& iv : block->iter_vars) {
    if (iv.type != IterType::DataPar)
      refuse(fmt::format("iterator {} is not data parallel and the block has no T.init", iv.var->name), {});
  }
  for (const auto& w : block->writes)
    for (const auto& r : block->reads)
      if (r.buffer == w.buffer) refuse(fmt::format("it reads {}, which it writes, and has no T.init", w.buffer->name), {});
}

}  // namespace tsch::schedule
