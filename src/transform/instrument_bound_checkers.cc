// TVM's InstrumentBoundCheckers (config "tir.instrument_bound_checkers"), as tsch applies it:
// before flattening, every access whose index reads memory (a gather `A[idx[i]]`, a scatter
// `B[idx[i]] = ...`) is preceded by a check of that index against the buffer's extent; an
// index out of range calls kIndexOutOfRange (T.call_packed), which raises IndexError naming
// the buffer, the index and the extent, and the kernel stops before the access. Indices that
// read no memory are bounded at build (verify_well_formed refuses what can leave the buffer),
// so they need no check. Accesses under T.if_then_else are checked under its condition;
// kernels bound to GPU threads are left alone (they cannot call the host).
#include "transform/instrument_bound_checkers.h"

#include <unordered_set>

#include "ir/functor.h"
#include "ir/op.h"
#include "transform/pass.h"

namespace tsch::transform {

namespace {

using namespace ir;

struct Check {
  PrimExpr guard;  // null: always
  Buffer buffer;
  size_t axis;
  PrimExpr index;
};

bool reads_memory(const PrimExpr& e) {
  bool found = false;
  for_each_expr(e, [&](const PrimExpr& x) { found = found || as<BufferLoadNode>(x) != nullptr; });
  return found;
}

// The checks the expressions of one statement need, with the conditions they run under.
class CollectChecks : public IRVisitor {
 public:
  void visit_Call(const CallNode& c) override {
    if (c.op == "if_then_else" && c.args.size() == 3) {
      visit(c.args[0]);
      guarded(c.args[0], [&] { visit(c.args[1]); });
      guarded(logical_not(c.args[0]), [&] { visit(c.args[2]); });
      return;
    }
    IRVisitor::visit_Call(c);
  }
  void visit_Let(const LetNode& l) override {
    visit(l.value);
    bound_.insert(l.var.get());
    visit(l.body);
    bound_.erase(l.var.get());
  }
  void visit_BufferLoad(const BufferLoadNode& load) override {
    add(load.buffer, load.indices);
    IRVisitor::visit_BufferLoad(load);
  }
  void add(const Buffer& buffer, const std::vector<PrimExpr>& indices) {
    for (size_t d = 0; d < indices.size() && d < buffer->shape.size(); ++d) {
      if (indices[d]->dtype.lanes != 1 || !reads_memory(indices[d])) continue;
      // An index naming a variable bound inside the expression cannot be checked before it.
      bool local = false;
      for_each_expr(indices[d], [&](const PrimExpr& x) {
        if (auto* v = as<VarNode>(x)) local = local || bound_.count(v) > 0;
      });
      if (!local) checks.push_back({guard_, buffer, d, indices[d]});
    }
  }
  std::vector<Check> checks;

 private:
  template <typename F>
  void guarded(const PrimExpr& cond, F&& f) {
    PrimExpr saved = guard_;
    guard_ = saved ? make_binary(ExprKind::And, saved, cond) : cond;
    f();
    guard_ = saved;
  }
  PrimExpr guard_;
  std::unordered_set<const VarNode*> bound_;
};

class InsertChecks : public IRMutator {
 public:
  Stmt mutate_For(const ForNode& f, const Stmt& self) override {
    if (f.for_kind == ForKind::ThreadBinding) return self;
    return IRMutator::mutate_For(f, self);
  }
  // The statements that evaluate expressions: each is preceded by the checks its expressions need.
  Stmt mutate_BufferStore(const BufferStoreNode& n, const Stmt& self) override {
    Stmt out = IRMutator::mutate_BufferStore(n, self);
    auto* st = as<BufferStoreNode>(out);
    CollectChecks collect;
    collect.add(st->buffer, st->indices);
    for (const auto& i : st->indices) collect.visit(i);
    collect.visit(st->value);
    return with_checks(out, collect);
  }
  Stmt mutate_Evaluate(const EvaluateNode& n, const Stmt& self) override {
    Stmt out = IRMutator::mutate_Evaluate(n, self);
    CollectChecks collect;
    collect.visit(as<EvaluateNode>(out)->value);
    return with_checks(out, collect);
  }
  Stmt mutate_LetStmt(const LetStmtNode& n, const Stmt& self) override {
    Stmt out = IRMutator::mutate_LetStmt(n, self);
    CollectChecks collect;
    collect.visit(as<LetStmtNode>(out)->value);
    return with_checks(out, collect);
  }
  Stmt mutate_IfThenElse(const IfThenElseNode& n, const Stmt& self) override {
    Stmt out = IRMutator::mutate_IfThenElse(n, self);
    CollectChecks collect;
    collect.visit(as<IfThenElseNode>(out)->condition);
    return with_checks(out, collect);
  }

 private:
  static Stmt with_checks(const Stmt& out, const CollectChecks& collect) {
    if (collect.checks.empty()) return out;
    std::vector<Stmt> seq;
    for (const Check& c : collect.checks) seq.push_back(check(c));
    seq.push_back(out);
    return std::make_shared<SeqStmtNode>(std::move(seq));
  }
  static Stmt check(const Check& c) {
    DataType i64 = DataType::int64();
    PrimExpr index = cast(i64, c.index), extent = cast(i64, c.buffer->shape[c.axis]);
    PrimExpr outside = make_binary(ExprKind::Or, make_binary(ExprKind::LT, index, make_int(0, i64)),
                                   make_binary(ExprKind::GE, index, extent));
    PrimExpr cond = c.guard ? make_binary(ExprKind::And, c.guard, outside) : outside;
    PrimExpr report =
        call(DataType::int32(), "call_packed",
             {std::make_shared<StringImmNode>(kIndexOutOfRange), std::make_shared<StringImmNode>(c.buffer->name), index,
              extent, make_int(static_cast<int64_t>(c.axis), i64)});
    return std::make_shared<IfThenElseNode>(cond, std::make_shared<EvaluateNode>(report), nullptr);
  }
};

}  // namespace

Pass instrument_bound_checkers() {
  return {"tir.InstrumentBoundCheckers", [](const PrimFunc& f) {
            if (!PassContext::current().config_flag("tir.instrument_bound_checkers")) return f;
            return with_body(f, InsertChecks().mutate(f->body));
          }};
}

}  // namespace tsch::transform
