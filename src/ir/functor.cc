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
  switch (e->kind) {
#define TSCH_X(K)                               \
  case ExprKind::K:                             \
    visit_##K(static_cast<const K##Node&>(*e)); \
    return;
    TSCH_IR_EXPR_KINDS(TSCH_X)
#undef TSCH_X
  }
}

void IRVisitor::visit_children(const Stmt& s) {
  if (!s) return;
  switch (s->kind) {
#define TSCH_X(K)                               \
  case StmtKind::K:                             \
    visit_##K(static_cast<const K##Node&>(*s)); \
    return;
    TSCH_IR_STMT_KINDS(TSCH_X)
#undef TSCH_X
  }
}

// Leaves.
void IRVisitor::visit_IntImm(const IntImmNode&) {}
void IRVisitor::visit_FloatImm(const FloatImmNode&) {}
void IRVisitor::visit_StringImm(const StringImmNode&) {}
void IRVisitor::visit_Var(const VarNode&) {}

#define TSCH_X(K)                               \
  void IRVisitor::visit_##K(const K##Node& n) { \
    visit(n.a);                                 \
    visit(n.b);                                 \
  }
TSCH_IR_BINARY_KINDS(TSCH_X)
#undef TSCH_X

void IRVisitor::visit_Not(const NotNode& n) { visit(n.a); }
void IRVisitor::visit_Select(const SelectNode& n) {
  visit(n.condition);
  visit(n.true_value);
  visit(n.false_value);
}
void IRVisitor::visit_Cast(const CastNode& n) { visit(n.value); }
void IRVisitor::visit_BufferLoad(const BufferLoadNode& n) {
  for (const auto& i : n.indices) visit(i);
}
void IRVisitor::visit_Call(const CallNode& n) {
  for (const auto& a : n.args) visit(a);
}
void IRVisitor::visit_Ramp(const RampNode& n) {
  visit(n.base);
  visit(n.stride);
}
void IRVisitor::visit_Broadcast(const BroadcastNode& n) { visit(n.value); }
void IRVisitor::visit_Let(const LetNode& n) {
  visit(PrimExpr(n.var));
  visit(n.value);
  visit(n.body);
}

void IRVisitor::visit_BufferStore(const BufferStoreNode& n) {
  visit(n.value);
  for (const auto& i : n.indices) visit(i);
}
void IRVisitor::visit_For(const ForNode& n) {
  visit(n.min);
  visit(n.extent);
  if (n.step) visit(n.step);
  visit(n.body);
}
void IRVisitor::visit_Block(const BlockNode& n) {
  for (const auto& iv : n.iter_vars) {
    visit(iv.dom.min);
    visit(iv.dom.extent);
  }
  for (const auto& r : n.reads) visit_buffer_region(r);
  for (const auto& r : n.writes) visit_buffer_region(r);
  for (const auto& m : n.match_buffers) visit_buffer_region(m.source);
  if (n.init) visit(n.init);
  visit(n.body);
}
void IRVisitor::visit_BlockRealize(const BlockRealizeNode& n) {
  for (const auto& v : n.iter_values) visit(v);
  visit(n.predicate);
  visit(Stmt(n.block));
}
void IRVisitor::visit_SeqStmt(const SeqStmtNode& n) {
  for (const auto& c : n.seq) visit(c);
}
void IRVisitor::visit_IfThenElse(const IfThenElseNode& n) {
  visit(n.condition);
  visit(n.then_case);
  if (n.else_case) visit(n.else_case);
}
void IRVisitor::visit_LetStmt(const LetStmtNode& n) {
  visit(n.value);
  visit(n.body);
}
void IRVisitor::visit_Evaluate(const EvaluateNode& n) { visit(n.value); }
void IRVisitor::visit_Allocate(const AllocateNode& n) { visit(n.body); }
void IRVisitor::visit_DeclBuffer(const DeclBufferNode& n) { visit(n.body); }
void IRVisitor::visit_AllocateConst(const AllocateConstNode& n) {
  for (const auto& e : n.extents) visit(e);
  visit(n.body);
}
void IRVisitor::visit_AttrStmt(const AttrStmtNode& n) {
  visit(n.node);
  visit(n.value);
  visit(n.body);
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
  switch (e->kind) {
#define TSCH_X(K)   \
  case ExprKind::K: \
    return mutate_##K(static_cast<const K##Node&>(*e), e);
    TSCH_IR_EXPR_KINDS(TSCH_X)
#undef TSCH_X
  }
  return e;  // not reached: the switch covers every kind
}

Stmt IRMutator::mutate_children(const Stmt& s) {
  if (!s) return s;
  switch (s->kind) {
#define TSCH_X(K)   \
  case StmtKind::K: \
    return mutate_##K(static_cast<const K##Node&>(*s), s);
    TSCH_IR_STMT_KINDS(TSCH_X)
#undef TSCH_X
  }
  return s;  // not reached: the switch covers every kind
}

PrimExpr IRMutator::mutate_IntImm(const IntImmNode&, const PrimExpr& self) { return self; }
PrimExpr IRMutator::mutate_FloatImm(const FloatImmNode&, const PrimExpr& self) { return self; }
PrimExpr IRMutator::mutate_StringImm(const StringImmNode&, const PrimExpr& self) { return self; }
PrimExpr IRMutator::mutate_Var(const VarNode&, const PrimExpr& self) { return self; }

#define TSCH_X(K)                                                          \
  PrimExpr IRMutator::mutate_##K(const K##Node& n, const PrimExpr& self) { \
    PrimExpr a = mutate(n.a), b = mutate(n.b);                             \
    if (a == n.a && b == n.b) return self;                                 \
    return make_binary(ExprKind::K, a, b);                                 \
  }
TSCH_IR_BINARY_KINDS(TSCH_X)
#undef TSCH_X

PrimExpr IRMutator::mutate_Not(const NotNode& n, const PrimExpr& self) {
  PrimExpr a = mutate(n.a);
  return a == n.a ? self : logical_not(a);
}
PrimExpr IRMutator::mutate_Select(const SelectNode& n, const PrimExpr& self) {
  PrimExpr c = mutate(n.condition), t = mutate(n.true_value), f = mutate(n.false_value);
  if (c == n.condition && t == n.true_value && f == n.false_value) return self;
  return std::make_shared<SelectNode>(c, t, f);
}
PrimExpr IRMutator::mutate_Cast(const CastNode& n, const PrimExpr& self) {
  PrimExpr v = mutate(n.value);
  return v == n.value ? self : cast(n.dtype, v);
}
PrimExpr IRMutator::mutate_BufferLoad(const BufferLoadNode& n, const PrimExpr& self) {
  bool changed = false;
  auto idx = mutate_all(n.indices, changed);
  return changed ? std::make_shared<BufferLoadNode>(n.dtype, n.buffer, idx) : self;
}
PrimExpr IRMutator::mutate_Call(const CallNode& n, const PrimExpr& self) {
  bool changed = false;
  auto args = mutate_all(n.args, changed);
  return changed ? std::make_shared<CallNode>(n.dtype, n.op, args) : self;
}
PrimExpr IRMutator::mutate_Ramp(const RampNode& n, const PrimExpr& self) {
  PrimExpr b = mutate(n.base), s = mutate(n.stride);
  return (b == n.base && s == n.stride) ? self : std::make_shared<RampNode>(b, s, n.lanes);
}
PrimExpr IRMutator::mutate_Broadcast(const BroadcastNode& n, const PrimExpr& self) {
  PrimExpr v = mutate(n.value);
  return v == n.value ? self : std::make_shared<BroadcastNode>(v, n.lanes);
}
PrimExpr IRMutator::mutate_Let(const LetNode& n, const PrimExpr& self) {
  PrimExpr v = mutate(n.value), b = mutate(n.body);
  return (v == n.value && b == n.body) ? self : std::make_shared<LetNode>(n.var, v, b);
}

Stmt IRMutator::mutate_BufferStore(const BufferStoreNode& n, const Stmt& self) {
  bool changed = false;
  PrimExpr v = mutate(n.value);
  changed |= v != n.value;
  auto idx = mutate_all(n.indices, changed);
  return changed ? std::make_shared<BufferStoreNode>(n.buffer, v, idx) : self;
}
Stmt IRMutator::mutate_For(const ForNode& n, const Stmt& self) {
  PrimExpr mn = mutate(n.min), ext = mutate(n.extent), step = n.step ? mutate(n.step) : nullptr;
  Stmt body = mutate(n.body);
  if (mn == n.min && ext == n.extent && step == n.step && body == n.body) return self;
  auto out = std::make_shared<ForNode>(n);
  out->min = mn;
  out->extent = ext;
  out->step = step;
  out->body = body;
  return out;
}
Stmt IRMutator::mutate_Block(const BlockNode& n, const Stmt& self) {
  bool changed = false;
  auto out = std::make_shared<BlockNode>(n);
  for (auto& iv : out->iter_vars) iv.dom = mutate_range(iv.dom, changed);
  for (auto& r : out->reads) r = mutate_region(r, changed);
  for (auto& r : out->writes) r = mutate_region(r, changed);
  for (auto& m : out->match_buffers) m.source = mutate_region(m.source, changed);
  if (n.init) {
    out->init = mutate(n.init);
    changed |= out->init != n.init;
  }
  out->body = mutate(n.body);
  changed |= out->body != n.body;
  return changed ? Stmt(out) : self;
}
Stmt IRMutator::mutate_BlockRealize(const BlockRealizeNode& n, const Stmt& self) {
  bool changed = false;
  auto values = mutate_all(n.iter_values, changed);
  PrimExpr pred = mutate(n.predicate);
  Stmt block = mutate(Stmt(n.block));
  changed |= pred != n.predicate || block != Stmt(n.block);
  if (!changed) return self;
  return std::make_shared<BlockRealizeNode>(values, pred, std::static_pointer_cast<const BlockNode>(block));
}
Stmt IRMutator::mutate_SeqStmt(const SeqStmtNode& n, const Stmt& self) {
  bool changed = false;
  std::vector<Stmt> seq;
  for (const auto& c : n.seq) {
    seq.push_back(mutate(c));
    changed |= seq.back() != c;
  }
  return changed ? make_seq(seq) : self;
}
Stmt IRMutator::mutate_IfThenElse(const IfThenElseNode& n, const Stmt& self) {
  PrimExpr c = mutate(n.condition);
  Stmt t = mutate(n.then_case);
  Stmt f = n.else_case ? mutate(n.else_case) : nullptr;
  if (c == n.condition && t == n.then_case && f == n.else_case) return self;
  return std::make_shared<IfThenElseNode>(c, t, f);
}
Stmt IRMutator::mutate_LetStmt(const LetStmtNode& n, const Stmt& self) {
  PrimExpr v = mutate(n.value);
  Stmt b = mutate(n.body);
  return (v == n.value && b == n.body) ? self : std::make_shared<LetStmtNode>(n.var, v, b);
}
Stmt IRMutator::mutate_Evaluate(const EvaluateNode& n, const Stmt& self) {
  PrimExpr v = mutate(n.value);
  return v == n.value ? self : std::make_shared<EvaluateNode>(v);
}
Stmt IRMutator::mutate_Allocate(const AllocateNode& n, const Stmt& self) {
  Stmt b = mutate(n.body);
  return b == n.body ? self : std::make_shared<AllocateNode>(n.buffer, b);
}
Stmt IRMutator::mutate_DeclBuffer(const DeclBufferNode& n, const Stmt& self) {
  Stmt b = mutate(n.body);
  return b == n.body ? self : std::make_shared<DeclBufferNode>(n.buffer, b);
}
Stmt IRMutator::mutate_AllocateConst(const AllocateConstNode& n, const Stmt& self) {
  Stmt b = mutate(n.body);
  if (b == n.body) return self;
  auto copy = std::make_shared<AllocateConstNode>(n);
  copy->body = b;
  return copy;
}
Stmt IRMutator::mutate_AttrStmt(const AttrStmtNode& n, const Stmt& self) {
  PrimExpr node = mutate(n.node), v = mutate(n.value);
  Stmt b = mutate(n.body);
  if (node == n.node && v == n.value && b == n.body) return self;
  return std::make_shared<AttrStmtNode>(node, n.attr_key, v, b);
}

// ------------------------------------------------------------------ helpers

namespace {

class ExprCallback : public IRVisitor {
 public:
  explicit ExprCallback(const std::function<void(const PrimExpr&)>& f) : f_(f) {}
  // Whole-node on purpose: f sees every expression, whatever its kind.
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
  // Whole-node on purpose: f sees every statement, whatever its kind.
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
  PrimExpr mutate_Var(const VarNode& v, const PrimExpr& self) override {
    auto it = vmap_.find(&v);
    return it == vmap_.end() ? self : it->second;
  }

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
