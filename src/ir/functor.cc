#include "ir/functor.h"

#include <unordered_set>

#include "ir/op.h"

namespace tsch::ir {

// ------------------------------------------------------------------ visitor

void IRVisitor::visit(const PrimExpr& e) { visit_children(e); }
void IRVisitor::visit(const Stmt& s) { visit_children(s); }

void IRVisitor::visit_buffer_region(const BufferRegion& r) {
  for (const auto& range : r.region) {
    visit(range.min);
    visit(range.extent);
  }
}

void IRVisitor::visit_children(const PrimExpr& e) {
  if (!e) return;
  if (is_binary(e->kind)) {
    visit(binary_a(e));
    visit(binary_b(e));
    return;
  }
  switch (e->kind) {
    case ExprKind::Not:
      visit(as<NotNode>(e)->a);
      break;
    case ExprKind::Select: {
      auto* n = as<SelectNode>(e);
      visit(n->condition);
      visit(n->true_value);
      visit(n->false_value);
      break;
    }
    case ExprKind::Cast:
      visit(as<CastNode>(e)->value);
      break;
    case ExprKind::BufferLoad:
      for (const auto& i : as<BufferLoadNode>(e)->indices) visit(i);
      break;
    case ExprKind::Call:
      for (const auto& a : as<CallNode>(e)->args) visit(a);
      break;
    case ExprKind::Ramp:
      visit(as<RampNode>(e)->base);
      visit(as<RampNode>(e)->stride);
      break;
    case ExprKind::Broadcast:
      visit(as<BroadcastNode>(e)->value);
      break;
    case ExprKind::Let: {
      auto* n = as<LetNode>(e);
      visit(PrimExpr(n->var));
      visit(n->value);
      visit(n->body);
      break;
    }
    default:
      break;
  }
}

void IRVisitor::visit_children(const Stmt& s) {
  if (!s) return;
  switch (s->kind) {
    case StmtKind::BufferStore: {
      auto* n = as<BufferStoreNode>(s);
      visit(n->value);
      for (const auto& i : n->indices) visit(i);
      break;
    }
    case StmtKind::For: {
      auto* n = as<ForNode>(s);
      visit(n->min);
      visit(n->extent);
      if (n->step) visit(n->step);
      visit(n->body);
      break;
    }
    case StmtKind::Block: {
      auto* n = as<BlockNode>(s);
      for (const auto& iv : n->iter_vars) {
        visit(iv.dom.min);
        visit(iv.dom.extent);
      }
      for (const auto& r : n->reads) visit_buffer_region(r);
      for (const auto& r : n->writes) visit_buffer_region(r);
      for (const auto& m : n->match_buffers) visit_buffer_region(m.source);
      if (n->init) visit(n->init);
      visit(n->body);
      break;
    }
    case StmtKind::BlockRealize: {
      auto* n = as<BlockRealizeNode>(s);
      for (const auto& v : n->iter_values) visit(v);
      visit(n->predicate);
      visit(Stmt(n->block));
      break;
    }
    case StmtKind::SeqStmt:
      for (const auto& c : as<SeqStmtNode>(s)->seq) visit(c);
      break;
    case StmtKind::IfThenElse: {
      auto* n = as<IfThenElseNode>(s);
      visit(n->condition);
      visit(n->then_case);
      if (n->else_case) visit(n->else_case);
      break;
    }
    case StmtKind::LetStmt: {
      auto* n = as<LetStmtNode>(s);
      visit(n->value);
      visit(n->body);
      break;
    }
    case StmtKind::Evaluate:
      visit(as<EvaluateNode>(s)->value);
      break;
    case StmtKind::Allocate:
      visit(as<AllocateNode>(s)->body);
      break;
    case StmtKind::DeclBuffer:
      visit(as<DeclBufferNode>(s)->body);
      break;
    case StmtKind::AllocateConst: {
      auto* n = as<AllocateConstNode>(s);
      for (const auto& e : n->extents) visit(e);
      visit(n->body);
      break;
    }
    case StmtKind::AttrStmt: {
      auto* n = as<AttrStmtNode>(s);
      visit(n->node);
      visit(n->value);
      visit(n->body);
      break;
    }
  }
}

// ------------------------------------------------------------------ mutator

PrimExpr IRMutator::mutate(const PrimExpr& e) { return mutate_children(e); }
Stmt IRMutator::mutate(const Stmt& s) { return mutate_children(s); }

std::vector<PrimExpr> IRMutator::mutate_all(const std::vector<PrimExpr>& v, bool& changed) {
  std::vector<PrimExpr> out;
  out.reserve(v.size());
  for (const auto& e : v) {
    out.push_back(mutate(e));
    changed |= out.back() != e;
  }
  return out;
}

Range IRMutator::mutate_range(const Range& r, bool& changed) {
  Range out{mutate(r.min), mutate(r.extent)};
  changed |= out.min != r.min || out.extent != r.extent;
  return out;
}

BufferRegion IRMutator::mutate_region(const BufferRegion& r, bool& changed) {
  BufferRegion out{r.buffer, {}};
  for (const auto& range : r.region) out.region.push_back(mutate_range(range, changed));
  return out;
}

PrimExpr IRMutator::mutate_children(const PrimExpr& e) {
  if (!e) return e;
  if (is_binary(e->kind)) {
    PrimExpr a = mutate(binary_a(e)), b = mutate(binary_b(e));
    if (a == binary_a(e) && b == binary_b(e)) return e;
    return make_binary(e->kind, a, b);
  }
  switch (e->kind) {
    case ExprKind::Not: {
      PrimExpr a = mutate(as<NotNode>(e)->a);
      return a == as<NotNode>(e)->a ? e : logical_not(a);
    }
    case ExprKind::Select: {
      auto* n = as<SelectNode>(e);
      PrimExpr c = mutate(n->condition), t = mutate(n->true_value), f = mutate(n->false_value);
      if (c == n->condition && t == n->true_value && f == n->false_value) return e;
      return std::make_shared<SelectNode>(c, t, f);
    }
    case ExprKind::Cast: {
      auto* n = as<CastNode>(e);
      PrimExpr v = mutate(n->value);
      return v == n->value ? e : cast(n->dtype, v);
    }
    case ExprKind::BufferLoad: {
      auto* n = as<BufferLoadNode>(e);
      bool changed = false;
      auto idx = mutate_all(n->indices, changed);
      return changed ? std::make_shared<BufferLoadNode>(n->dtype, n->buffer, idx) : e;
    }
    case ExprKind::Call: {
      auto* n = as<CallNode>(e);
      bool changed = false;
      auto args = mutate_all(n->args, changed);
      return changed ? std::make_shared<CallNode>(n->dtype, n->op, args) : e;
    }
    case ExprKind::Ramp: {
      auto* n = as<RampNode>(e);
      PrimExpr b = mutate(n->base), s = mutate(n->stride);
      return (b == n->base && s == n->stride) ? e : std::make_shared<RampNode>(b, s, n->lanes);
    }
    case ExprKind::Broadcast: {
      auto* n = as<BroadcastNode>(e);
      PrimExpr v = mutate(n->value);
      return v == n->value ? e : std::make_shared<BroadcastNode>(v, n->lanes);
    }
    case ExprKind::Let: {
      auto* n = as<LetNode>(e);
      PrimExpr v = mutate(n->value), b = mutate(n->body);
      return (v == n->value && b == n->body) ? e : std::make_shared<LetNode>(n->var, v, b);
    }
    default:
      return e;
  }
}

Stmt IRMutator::mutate_children(const Stmt& s) {
  if (!s) return s;
  switch (s->kind) {
    case StmtKind::BufferStore: {
      auto* n = as<BufferStoreNode>(s);
      bool changed = false;
      PrimExpr v = mutate(n->value);
      changed |= v != n->value;
      auto idx = mutate_all(n->indices, changed);
      return changed ? std::make_shared<BufferStoreNode>(n->buffer, v, idx) : s;
    }
    case StmtKind::For: {
      auto* n = as<ForNode>(s);
      PrimExpr mn = mutate(n->min), ext = mutate(n->extent), step = n->step ? mutate(n->step) : nullptr;
      Stmt body = mutate(n->body);
      if (mn == n->min && ext == n->extent && step == n->step && body == n->body) return s;
      auto out = std::make_shared<ForNode>(*n);
      out->min = mn;
      out->extent = ext;
      out->step = step;
      out->body = body;
      return out;
    }
    case StmtKind::Block: {
      auto* n = as<BlockNode>(s);
      bool changed = false;
      auto out = std::make_shared<BlockNode>(*n);
      for (auto& iv : out->iter_vars) iv.dom = mutate_range(iv.dom, changed);
      for (auto& r : out->reads) r = mutate_region(r, changed);
      for (auto& r : out->writes) r = mutate_region(r, changed);
      for (auto& m : out->match_buffers) m.source = mutate_region(m.source, changed);
      if (n->init) {
        out->init = mutate(n->init);
        changed |= out->init != n->init;
      }
      out->body = mutate(n->body);
      changed |= out->body != n->body;
      return changed ? Stmt(out) : s;
    }
    case StmtKind::BlockRealize: {
      auto* n = as<BlockRealizeNode>(s);
      bool changed = false;
      auto values = mutate_all(n->iter_values, changed);
      PrimExpr pred = mutate(n->predicate);
      Stmt block = mutate(Stmt(n->block));
      changed |= pred != n->predicate || block != Stmt(n->block);
      if (!changed) return s;
      return std::make_shared<BlockRealizeNode>(values, pred, std::static_pointer_cast<const BlockNode>(block));
    }
    case StmtKind::SeqStmt: {
      auto* n = as<SeqStmtNode>(s);
      bool changed = false;
      std::vector<Stmt> seq;
      for (const auto& c : n->seq) {
        seq.push_back(mutate(c));
        changed |= seq.back() != c;
      }
      return changed ? make_seq(seq) : s;
    }
    case StmtKind::IfThenElse: {
      auto* n = as<IfThenElseNode>(s);
      PrimExpr c = mutate(n->condition);
      Stmt t = mutate(n->then_case);
      Stmt f = n->else_case ? mutate(n->else_case) : nullptr;
      if (c == n->condition && t == n->then_case && f == n->else_case) return s;
      return std::make_shared<IfThenElseNode>(c, t, f);
    }
    case StmtKind::LetStmt: {
      auto* n = as<LetStmtNode>(s);
      PrimExpr v = mutate(n->value);
      Stmt b = mutate(n->body);
      return (v == n->value && b == n->body) ? s : std::make_shared<LetStmtNode>(n->var, v, b);
    }
    case StmtKind::Evaluate: {
      auto* n = as<EvaluateNode>(s);
      PrimExpr v = mutate(n->value);
      return v == n->value ? s : std::make_shared<EvaluateNode>(v);
    }
    case StmtKind::Allocate: {
      auto* n = as<AllocateNode>(s);
      Stmt b = mutate(n->body);
      return b == n->body ? s : std::make_shared<AllocateNode>(n->buffer, b);
    }
    case StmtKind::DeclBuffer: {
      auto* n = as<DeclBufferNode>(s);
      Stmt b = mutate(n->body);
      return b == n->body ? s : std::make_shared<DeclBufferNode>(n->buffer, b);
    }
    case StmtKind::AllocateConst: {
      auto* n = as<AllocateConstNode>(s);
      Stmt b = mutate(n->body);
      if (b == n->body) return s;
      auto copy = std::make_shared<AllocateConstNode>(*n);
      copy->body = b;
      return copy;
    }
    case StmtKind::AttrStmt: {
      auto* n = as<AttrStmtNode>(s);
      PrimExpr node = mutate(n->node), v = mutate(n->value);
      Stmt b = mutate(n->body);
      if (node == n->node && v == n->value && b == n->body) return s;
      return std::make_shared<AttrStmtNode>(node, n->attr_key, v, b);
    }
  }
  return s;
}

// ------------------------------------------------------------------ helpers

namespace {

class ExprCallback : public IRVisitor {
 public:
  explicit ExprCallback(const std::function<void(const PrimExpr&)>& f) : f_(f) {}
  void visit(const PrimExpr& e) override {
    if (!e) return;
    f_(e);
    visit_children(e);
  }
  using IRVisitor::visit;

 private:
  const std::function<void(const PrimExpr&)>& f_;
};

class StmtCallback : public IRVisitor {
 public:
  explicit StmtCallback(const std::function<void(const Stmt&)>& f) : f_(f) {}
  void visit(const Stmt& s) override {
    if (!s) return;
    f_(s);
    visit_children(s);
  }
  void visit(const PrimExpr&) override {}

 private:
  const std::function<void(const Stmt&)>& f_;
};

class Substituter : public IRMutator {
 public:
  explicit Substituter(const std::unordered_map<const VarNode*, PrimExpr>& vmap) : vmap_(vmap) {}
  PrimExpr mutate(const PrimExpr& e) override {
    if (auto* v = as<VarNode>(e)) {
      auto it = vmap_.find(v);
      return it == vmap_.end() ? e : it->second;
    }
    return mutate_children(e);
  }
  using IRMutator::mutate;

 private:
  const std::unordered_map<const VarNode*, PrimExpr>& vmap_;
};

}  // namespace

void for_each_expr(const Stmt& s, const std::function<void(const PrimExpr&)>& f) {
  ExprCallback cb(f);
  cb.visit(s);
}

void for_each_expr(const PrimExpr& e, const std::function<void(const PrimExpr&)>& f) {
  ExprCallback cb(f);
  cb.visit(e);
}

void for_each_stmt(const Stmt& s, const std::function<void(const Stmt&)>& f) {
  StmtCallback cb(f);
  cb.visit(s);
}

bool uses_var(const PrimExpr& e, const std::function<bool(const VarNode*)>& pred) {
  bool found = false;
  for_each_expr(e, [&](const PrimExpr& x) {
    if (auto* v = as<VarNode>(x); v && pred(v)) found = true;
  });
  return found;
}

PrimExpr substitute(const PrimExpr& e, const std::unordered_map<const VarNode*, PrimExpr>& vmap) {
  Substituter s(vmap);
  return s.mutate(e);
}

Stmt substitute(const Stmt& st, const std::unordered_map<const VarNode*, PrimExpr>& vmap) {
  Substituter s(vmap);
  return s.mutate(st);
}

std::vector<Buffer> buffers_over_data(const Stmt& body, const Var& data) {
  std::vector<Buffer> views;
  std::unordered_set<const BufferNode*> declared;
  auto note = [&](const Buffer& b) {
    if (b && b->data == data && declared.insert(b.get()).second) views.push_back(b);
  };
  for_each_stmt(body, [&](const Stmt& st) {
    if (auto* d = as<DeclBufferNode>(st)) declared.insert(d->buffer.get());
  });
  for_each_stmt(body, [&](const Stmt& st) {
    if (auto* store = as<BufferStoreNode>(st)) note(store->buffer);
    if (auto* blk = as<BlockNode>(st)) {
      for (const auto& r : blk->reads) note(r.buffer);
      for (const auto& r : blk->writes) note(r.buffer);
      for (const auto& m : blk->match_buffers) note(m.source.buffer);
    }
  });
  for_each_expr(body, [&](const PrimExpr& e) {
    if (auto* load = as<BufferLoadNode>(e)) note(load->buffer);
  });
  return views;
}

}  // namespace tsch::ir
