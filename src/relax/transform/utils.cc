#include "relax/transform/utils.h"

#include "arith/simplify.h"
#include "ir/op.h"
#include "relax/op.h"
#include "support/error.h"

namespace tsch::relax {

ir::IRModule map_relax_functions(const ir::IRModule& mod,
                                 const std::function<Function(const std::string&, const Function&)>& fn) {
  auto out = std::make_shared<ir::IRModuleNode>(*mod);
  bool changed = false;
  for (auto& [name, f] : out->functions) {
    if (Function rf = as_relax_function(f)) {
      Function g = fn(name, rf);
      changed |= g != rf;
      f = g;
    }
  }
  return changed ? ir::IRModule(out) : mod;
}

Function with_body(const Function& f, SeqExpr body) {
  auto g = std::make_shared<FunctionNode>(*f);
  g->body = std::move(body);
  return g;
}

void BlockBuilder::begin_block(bool dataflow) {
  end_block();
  current_.is_dataflow = dataflow;
}

void BlockBuilder::end_block() {
  // Adjacent blocks of one kind are one block (as TVM's normalizer merges them, and as the
  // printed text reads back).
  if (!current_.bindings.empty()) {
    if (!blocks_.empty() && blocks_.back().is_dataflow == current_.is_dataflow) {
      auto& last = blocks_.back().bindings;
      last.insert(last.end(), current_.bindings.begin(), current_.bindings.end());
    } else {
      blocks_.push_back(std::move(current_));
    }
  }
  current_ = BindingBlock{};
}

std::string BlockBuilder::fresh_name(const std::string& prefix) {
  auto [it, inserted] = names_->emplace(prefix, 0);
  if (inserted) return prefix;
  for (;;) {
    std::string name = prefix + std::to_string(++it->second);
    if (names_->emplace(name, 0).second) return name;
  }
}

Var BlockBuilder::emit(const Expr& value, const std::string& name) {
  Var v = make_var(fresh_name(name), sinfo_of(value), current_.is_dataflow);
  current_.bindings.push_back(Binding{v, value, nullptr});
  return v;
}

void BlockBuilder::emit_binding(Binding b) { current_.bindings.push_back(std::move(b)); }

std::vector<BindingBlock> BlockBuilder::finish() {
  end_block();
  return std::move(blocks_);
}

SeqExpr rewrite_bindings(const SeqExpr& seq, BlockBuilder bb, const BindingRewrite& rewrite) {
  for (const auto& block : seq->blocks) {
    bb.begin_block(block.is_dataflow);
    for (const auto& binding : block.bindings) {
      Binding b = binding;
      if (auto* i = as<IfNode>(binding.value)) {
        // The true branch first (in statements of their own: argument order is unspecified),
        // so fresh names go in program order.
        SeqExpr then_branch = rewrite_bindings(i->true_branch, bb.nested(), rewrite);
        SeqExpr else_branch = rewrite_bindings(i->false_branch, bb.nested(), rewrite);
        auto n = std::make_shared<IfNode>(i->cond, then_branch, else_branch);
        n->struct_info = binding.value->struct_info;
        b.value = n;
      } else if (!binding.is_match_cast()) {
        b.value = rewrite(bb, binding);
      }
      bb.emit_binding(std::move(b));
    }
  }
  // A branch ending in one assignment keeps its value as the sequence's body (`r =
  // R.call_tir(...)` in an if/else): it is rewritten as a binding would be, and bound to a
  // variable when the rewrite changes it, so the passes after see it like any other call.
  Expr body = seq->body;
  if (body && body->kind == ExprKind::Call) {
    Binding synthetic{make_var(bb.fresh_name("lv"), sinfo_of(body), bb.in_dataflow()), body, nullptr};
    Expr value = rewrite(bb, synthetic);
    if (value != body) {
      if (value->kind == ExprKind::Var || value->kind == ExprKind::Tuple) {
        body = value;
      } else {
        synthetic.value = value;
        bb.emit_binding(synthetic);
        body = synthetic.var;
      }
    }
  }
  auto n = std::make_shared<SeqExprNode>(bb.finish(), body);
  n->struct_info = seq->struct_info;
  return n;
}

ir::PrimExpr storage_bytes(const std::vector<ir::PrimExpr>& shape, ir::DataType dtype) {
  ir::PrimExpr size = ir::make_int((dtype.bits * dtype.lanes + 7) / 8, ir::DataType::int64());
  for (const auto& d : shape) size = ir::mul(size, ir::cast(ir::DataType::int64(), d));
  return arith::simplify(size);
}

namespace {

std::vector<Expr> substitute_all(const std::vector<Expr>& xs, const VarMap& vmap, bool& changed) {
  std::vector<Expr> out;
  for (const auto& x : xs) {
    Expr y = substitute(x, vmap);
    changed |= y != x;
    out.push_back(y);
  }
  return out;
}

SeqExpr substitute_seq(const SeqExpr& s, const VarMap& vmap) {
  bool changed = false;
  std::vector<BindingBlock> blocks = s->blocks;
  for (auto& b : blocks) {
    for (auto& binding : b.bindings) {
      Expr v = substitute(binding.value, vmap);
      changed |= v != binding.value;
      binding.value = v;
    }
  }
  Expr body = substitute(s->body, vmap);
  changed |= body != s->body;
  if (!changed) return s;
  auto n = std::make_shared<SeqExprNode>(std::move(blocks), body);
  n->struct_info = s->struct_info;
  return n;
}

}  // namespace

Expr substitute(const Expr& e, const VarMap& vmap) {
  if (vmap.empty() || !e) return e;
  switch (e->kind) {
    case ExprKind::Var: {
      auto it = vmap.find(e.get());
      return it == vmap.end() ? e : it->second;
    }
    case ExprKind::Tuple: {
      bool changed = false;
      auto fields = substitute_all(as<TupleNode>(e)->fields, vmap, changed);
      return changed ? make_tuple(std::move(fields)) : e;
    }
    case ExprKind::TupleGetItem: {
      auto* t = as<TupleGetItemNode>(e);
      Expr tuple = substitute(t->tuple, vmap);
      if (tuple == t->tuple) return e;
      auto n = std::make_shared<TupleGetItemNode>(tuple, t->index);
      n->struct_info = e->struct_info;
      return n;
    }
    case ExprKind::Call: {
      auto* c = as<CallNode>(e);
      bool changed = false;
      Expr op = substitute(c->op, vmap);
      changed |= op != c->op;
      auto args = substitute_all(c->args, vmap, changed);
      if (!changed) return e;
      auto n = std::make_shared<CallNode>(op, std::move(args), c->attrs, c->sinfo_args);
      n->struct_info = e->struct_info;
      return n;
    }
    case ExprKind::If: {
      auto* i = as<IfNode>(e);
      Expr cond = substitute(i->cond, vmap);
      SeqExpr t = substitute_seq(i->true_branch, vmap), f = substitute_seq(i->false_branch, vmap);
      if (cond == i->cond && t == i->true_branch && f == i->false_branch) return e;
      auto n = std::make_shared<IfNode>(cond, t, f);
      n->struct_info = e->struct_info;
      return n;
    }
    case ExprKind::SeqExpr:
      return substitute_seq(std::static_pointer_cast<const SeqExprNode>(e), vmap);
    case ExprKind::Constant:
    case ExprKind::ShapeExpr:
    case ExprKind::PrimValue:
    case ExprKind::StringImm:
    case ExprKind::DataTypeImm:
    case ExprKind::GlobalVar:
    case ExprKind::ExternFunc:
    case ExprKind::Op:
      break;
  }
  return e;
}

transform::Pass relax_module_pass(const std::string& name, int opt_level,
                                  std::function<ir::IRModule(const ir::IRModule&)> run) {
  return transform::Pass(transform::PassInfo{name, opt_level, {}},
                         [run](const ir::IRModule& mod, const transform::PassContext&) { return run(mod); });
}

}  // namespace tsch::relax
