#include "schedule/utils.h"

#include <fmt/format.h>

#include <cctype>

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
      case StmtKind::BlockRealize:
        out.push_back(as<BlockRealizeNode>(st));
        return;
      case StmtKind::For:
        walk(as<ForNode>(st)->body);
        return;
      case StmtKind::SeqStmt:
        for (const auto& c : as<SeqStmtNode>(st)->seq) walk(c);
        return;
      case StmtKind::IfThenElse:
        walk(as<IfThenElseNode>(st)->then_case);
        walk(as<IfThenElseNode>(st)->else_case);
        return;
      case StmtKind::LetStmt:
        walk(as<LetStmtNode>(st)->body);
        return;
      case StmtKind::BufferStore:
      case StmtKind::Block:
      case StmtKind::Evaluate:
      case StmtKind::Allocate:
      case StmtKind::DeclBuffer:
      case StmtKind::AllocateConst:
      case StmtKind::AttrStmt:
        return;
    }
  };
  walk(s);
  return out;
}

std::vector<PrimExpr> conjuncts(const PrimExpr& pred) {
  std::vector<PrimExpr> terms;
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
  return terms;
}

PrimExpr predicate_without(const PrimExpr& pred, const std::unordered_set<const VarNode*>& dropped) {
  std::vector<PrimExpr> terms = conjuncts(pred), kept;
  for (const PrimExpr& t : terms) {
    if (!uses_var(t, [&](const VarNode* v) { return dropped.count(v) > 0; })) kept.push_back(t);
  }
  if (kept.empty()) return make_bool(true);
  PrimExpr out = kept[0];
  for (size_t i = 1; i < kept.size(); ++i) out = make_binary(ExprKind::And, out, kept[i]);
  return out;
}

PrimExpr coupled_conjunct(const PrimExpr& pred, const std::unordered_set<const VarNode*>& dropped,
                          const std::unordered_set<const VarNode*>& kept) {
  for (const PrimExpr& t : conjuncts(pred)) {
    if (uses_var(t, [&](const VarNode* v) { return dropped.count(v) > 0; }) &&
        uses_var(t, [&](const VarNode* v) { return kept.count(v) > 0; })) {
      return t;
    }
  }
  return PrimExpr();
}

bool is_under(const ScheduleState& s, StmtSid sid, StmtSid ancestor) {
  for (const NodeInfo* i = s.info(sid); i && i->parent; i = s.info(i->parent)) {
    if (i->parent == ancestor) return true;
  }
  return false;
}

arith::VarDomain loop_domain(const ScheduleState& state, StmtSid sid) {
  arith::VarDomain dom;
  for (LoopSid l : state.enclosing_loops(sid)) {
    const ForNode* f = &state.loop_at(l);
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

  using IRMutator::mutate;

 protected:
  // Loop variables used outside blocks (plain loop nests) are replaced too.
  PrimExpr mutate_Var(const VarNode& v, const PrimExpr& self) override {
    auto it = vmap_.find(&v);
    return it == vmap_.end() ? self : it->second;
  }
  Stmt mutate_For(const ForNode& f, const Stmt& self) override {
    dom_[f.loop_var.get()] = arith::interval_of(Range{f.min, f.extent});
    Stmt out = IRMutator::mutate_For(f, self);
    dom_.erase(f.loop_var.get());
    // An extent that used a substituted variable is simplified, as the TVMScript parser
    // leaves a loop's extent (printing the module and parsing it back gives it again).
    auto* g = as<ForNode>(out);
    if (g && g->extent != f.extent) {
      auto loop = std::make_shared<ForNode>(*g);
      loop->extent = arith::simplify(g->extent);
      return loop;
    }
    return out;
  }

  Stmt mutate_BlockRealize(const BlockRealizeNode& r, const Stmt&) override {
    std::vector<PrimExpr> values;
    for (const auto& v : r.iter_values) values.push_back(arith::simplify(substitute(v, vmap_), dom_));
    PrimExpr pred = substitute(r.predicate, vmap_);
    // Appended after the predicates already there, as TVM's BlockPredicateAppender does.
    if (pred_) pred = is_one(pred) ? pred_ : make_binary(ExprKind::And, pred, pred_);
    // Inside, an opaque block may use the loop variables directly (`C[i, j] = ... i`);
    // blocks nested in it get their bindings rewritten too, without the extra predicate.
    PrimExpr no_predicate;
    Stmt block = BindingRewriter(vmap_, dom_, no_predicate).mutate_children(Stmt(r.block));
    return std::make_shared<BlockRealizeNode>(values, pred, std::static_pointer_cast<const BlockNode>(block));
  }

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

namespace {

class SubstituteSimplifier : public IRMutator {
 public:
  SubstituteSimplifier(const std::unordered_map<const VarNode*, PrimExpr>& vmap, arith::VarDomain dom, bool all)
      : vmap_(vmap), dom_(std::move(dom)), all_(all) {}

  using IRMutator::mutate;
  // Whole-node on purpose: every rewritten integer expression is simplified, whatever its kind
  // (a replaced variable is not).
  PrimExpr mutate(const PrimExpr& e) override {
    if (auto* v = as<VarNode>(e)) {
      auto it = vmap_.find(v);
      return it == vmap_.end() ? e : it->second;
    }
    PrimExpr t = mutate_children(e);
    bool integer = t->dtype.lanes == 1 && (t->dtype.is_integer() || t->dtype.is_bool());
    bool opaque = t->kind == ExprKind::BufferLoad || t->kind == ExprKind::Call;
    if (integer && !opaque && (all_ || t != e)) return arith::simplify(t, dom_);
    return t;
  }

  Stmt mutate_For(const ForNode& f, const Stmt& self) override {
    if (all_) bind(f.loop_var, f.min, f.extent);
    return IRMutator::mutate_For(f, self);
  }
  Stmt mutate_Block(const BlockNode& b, const Stmt& self) override {
    if (all_) {
      for (const auto& iv : b.iter_vars) bind(iv.var, iv.dom.min, iv.dom.extent);
    }
    return IRMutator::mutate_Block(b, self);
  }

 private:
  void bind(const Var& v, const PrimExpr& min, const PrimExpr& extent) {
    dom_[v.get()] = arith::Interval{min, arith::simplify(sub(add(min, extent), make_int(1, extent->dtype)), dom_)};
  }

  const std::unordered_map<const VarNode*, PrimExpr>& vmap_;
  arith::VarDomain dom_;
  bool all_;
};

}  // namespace

Stmt substitute_simplify(const Stmt& s, const std::unordered_map<const VarNode*, PrimExpr>& vmap,
                         const arith::VarDomain& dom, bool all) {
  return SubstituteSimplifier(vmap, dom, all).mutate(s);
}

}  // namespace tsch::schedule

namespace tsch::schedule {

std::string cache_name(const std::string& buffer, const std::string& scope) {
  std::string s = scope;
  for (char& c : s) {
    if (c == '.') c = '_';
  }
  return buffer + "_" + s;
}

bool valid_storage_scope(const std::string& scope) {
  static const char* scopes[] = {"global",
                                 "shared",
                                 "shared.dyn",
                                 "local",
                                 "warp",
                                 "texture",
                                 "wmma.matrix_a",
                                 "wmma.matrix_b",
                                 "wmma.accumulator",
                                 "m16n8k8.matrixA",
                                 "m16n8k8.matrixB",
                                 "m16n8k8.matrixC",
                                 "global.texture"};
  for (const char* s : scopes) {
    if (scope == s) return true;
  }
  // TVM's StorageScope::Create reads "<rank>.<tag>": "global.A_reg" is global memory with a
  // tag a tensor intrinsic can match (the MLC course's CPU tensorization). Tagged global
  // scopes are accepted; other ranks with tags have no lowering here and stay refused.
  if (scope.size() > 7 && scope.compare(0, 7, "global.") == 0) {
    for (size_t i = 7; i < scope.size(); ++i) {
      auto c = static_cast<unsigned char>(scope[i]);
      if (!(c < 0x80 && (std::isalnum(c) || c == '_' || c == '.'))) return false;
    }
    return true;
  }
  return false;
}

bool binds_spatial_and_reduction(const ir::BlockRealizeNode& realize, const ir::VarNode* loop_var) {
  bool spatial = false, reduce = false;
  for (size_t i = 0; i < realize.iter_values.size(); ++i) {
    if (!ir::uses_var(realize.iter_values[i], [&](const ir::VarNode* v) { return v == loop_var; })) continue;
    (realize.block->iter_vars[i].type == ir::IterType::DataPar ? spatial : reduce) = true;
  }
  return spatial && reduce;
}

bool linear_form(const PrimExpr& e, int64_t scale, LinearForm& out) {
  int64_t c;
  if (as_const_int(e, &c)) {
    out.constant += scale * c;
    return true;
  }
  if (auto* v = as<VarNode>(e)) {
    for (auto& t : out.terms) {
      if (t.first == v) {
        t.second += scale;
        return true;
      }
    }
    out.terms.push_back({v, scale});
    return true;
  }
  switch (e->kind) {
    case ExprKind::Add:
      return linear_form(binary_a(e), scale, out) && linear_form(binary_b(e), scale, out);
    case ExprKind::Sub:
      return linear_form(binary_a(e), scale, out) && linear_form(binary_b(e), -scale, out);
    case ExprKind::Mul:
      if (as_const_int(binary_b(e), &c)) return linear_form(binary_a(e), scale * c, out);
      if (as_const_int(binary_a(e), &c)) return linear_form(binary_b(e), scale * c, out);
      return false;
    case ExprKind::IntImm:
    case ExprKind::FloatImm:
    case ExprKind::StringImm:
    case ExprKind::Var:
    case ExprKind::Div:
    case ExprKind::Mod:
    case ExprKind::FloorDiv:
    case ExprKind::FloorMod:
    case ExprKind::Min:
    case ExprKind::Max:
    case ExprKind::EQ:
    case ExprKind::NE:
    case ExprKind::LT:
    case ExprKind::LE:
    case ExprKind::GT:
    case ExprKind::GE:
    case ExprKind::And:
    case ExprKind::Or:
    case ExprKind::Not:
    case ExprKind::Select:
    case ExprKind::Cast:
    case ExprKind::BufferLoad:
    case ExprKind::Call:
    case ExprKind::Ramp:
    case ExprKind::Broadcast:
    case ExprKind::Let:
      break;
  }
  return false;
}

std::optional<PredicateBound> comparison_bound(const PrimExpr& c) {
  if (c->kind != ExprKind::LT && c->kind != ExprKind::LE && c->kind != ExprKind::GT && c->kind != ExprKind::GE)
    return std::nullopt;
  // a < b  <=>  a - b < 0; normalised to `x + k` cmp 0 with x the non-constant part, its
  // first term positive: `3 <= i` (3 - i <= 0) is read as i - 3 >= 0.
  ExprKind kind = c->kind;
  PrimExpr diff = arith::simplify(sub(binary_a(c), binary_b(c)));
  LinearForm lin;
  if (!linear_form(diff, 1, lin) || lin.terms.empty()) return std::nullopt;
  if (lin.terms.front().second < 0) {
    static const std::pair<ExprKind, ExprKind> flipped[] = {{ExprKind::LT, ExprKind::GT},
                                                            {ExprKind::LE, ExprKind::GE},
                                                            {ExprKind::GT, ExprKind::LT},
                                                            {ExprKind::GE, ExprKind::LE}};
    for (const auto& [from, to] : flipped)
      if (c->kind == from) kind = to;
    diff = arith::simplify(sub(binary_b(c), binary_a(c)));
    lin = LinearForm{};
    if (!linear_form(diff, 1, lin) || lin.terms.empty()) return std::nullopt;
  }
  int64_t k = lin.constant;
  PrimExpr x = arith::simplify(sub(diff, make_int(k, diff->dtype)));
  PredicateBound b;
  b.expr = x;
  switch (kind) {
    case ExprKind::LT:
      b.hi = -k;
      break;  // x + k < 0  -> x < -k
    case ExprKind::LE:
      b.hi = -k + 1;
      break;  // x + k <= 0 -> x < -k + 1
    case ExprKind::GT:
      b.lo = -k + 1;
      break;  // x + k > 0  -> x >= -k + 1
    case ExprKind::GE:
      b.lo = -k;
      break;  // x + k >= 0 -> x >= -k
    case ExprKind::IntImm:
    case ExprKind::FloatImm:
    case ExprKind::StringImm:
    case ExprKind::Var:
    case ExprKind::Add:
    case ExprKind::Sub:
    case ExprKind::Mul:
    case ExprKind::Div:
    case ExprKind::Mod:
    case ExprKind::FloorDiv:
    case ExprKind::FloorMod:
    case ExprKind::Min:
    case ExprKind::Max:
    case ExprKind::EQ:
    case ExprKind::NE:
    case ExprKind::And:
    case ExprKind::Or:
    case ExprKind::Not:
    case ExprKind::Select:
    case ExprKind::Cast:
    case ExprKind::BufferLoad:
    case ExprKind::Call:
    case ExprKind::Ramp:
    case ExprKind::Broadcast:
    case ExprKind::Let:
      break;
  }
  return b;
}

}  // namespace tsch::schedule
