// StaticPlanBlockMemory: the tensors a function allocates for intermediate results
// (R.builtin.alloc_tensor after CallTIRRewrite) that do not leave the function share
// storage when their lifetimes do not overlap. Each storage is a token; a tensor takes a
// free token of its dtype — for a constant size the best fitting one (grown to the largest
// size it serves), for a symbolic size one whose size is the same expression — or a new one.
// The rewrite allocates each token's storage where it is first needed
// (R.memory.alloc_storage), the tensors in it (R.memory.alloc_tensor), kills each tensor
// after its last use and each storage at the end. Tensors the function returns keep their
// own allocation, as do tensors used in if/else branches (not planned across branches).
// The result of any other call that may hold a tensor is taken as a view of its arguments
// (packed functions may return one), so their storage lives as long as it does.
#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "arith/simplify.h"
#include "ir/expr_equal.h"
#include "ir/op.h"
#include "relax/op.h"
#include "relax/transform/passes.h"
#include "relax/transform/utils.h"

namespace tsch::relax::transform {
namespace {

using ir::PrimExpr;

struct Token {
  PrimExpr bytes;
  ir::DataType dtype;
  bool free = false;
  Var storage;  // set when the rewrite emits its allocation
};

bool is_alloc(const Binding& b) {
  auto* c = as<CallNode>(b.value);
  return c && !b.is_match_cast() && op_name_of(c->op) == "relax.builtin.alloc_tensor" && as<ShapeExprNode>(c->args[0]);
}

// Whether a value of this struct info can hold a tensor (and so share its memory).
bool may_hold_tensor(const StructInfo& s) {
  if (!s) return true;
  switch (s->kind) {
    case SInfoKind::Prim:
    case SInfoKind::Shape:
    case SInfoKind::Func:
      return false;
    case SInfoKind::Tuple:
      for (const auto& f : static_cast<const TupleSInfoNode&>(*s).fields)
        if (may_hold_tensor(f)) return true;
      return false;
    case SInfoKind::Object:
    case SInfoKind::Tensor:
      break;
  }
  return true;
}

PrimExpr bytes_of(const CallNode& alloc) {
  return storage_bytes(as<ShapeExprNode>(alloc.args[0])->values, as<DataTypeImmNode>(alloc.args[1])->value);
}

// Every variable `e` mentions directly (call arguments, tuple fields, ...; If branches whole).
void vars_in(const Expr& e, std::vector<const ExprNode*>& out) {
  if (!e) return;
  switch (e->kind) {
    case ExprKind::Var:
      out.push_back(e.get());
      break;
    case ExprKind::Tuple:
      for (const auto& f : as<TupleNode>(e)->fields) vars_in(f, out);
      break;
    case ExprKind::TupleGetItem:
      vars_in(as<TupleGetItemNode>(e)->tuple, out);
      break;
    case ExprKind::Call:
      vars_in(as<CallNode>(e)->op, out);
      for (const auto& a : as<CallNode>(e)->args) vars_in(a, out);
      break;
    case ExprKind::If: {
      auto* i = as<IfNode>(e);
      vars_in(i->cond, out);
      for (const SeqExpr& s : {i->true_branch, i->false_branch}) vars_in(s, out);
      break;
    }
    case ExprKind::SeqExpr: {
      auto* s = as<SeqExprNode>(e);
      for (const auto& b : s->blocks) {
        for (const auto& binding : b.bindings) vars_in(binding.value, out);
      }
      vars_in(s->body, out);
      break;
    }
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
}

class Planner {
 public:
  explicit Planner(const Function& f) : f_(f) {
    for (const auto& b : f->body->blocks) {
      for (const auto& binding : b.bindings) bindings_.push_back(&binding);
    }
  }

  Function run() {
    analyze();
    if (planned_.empty()) return f_;
    plan();
    return rewrite();
  }

 private:
  // The allocations each variable may hold (itself, an alias, a tuple of them).
  std::vector<const ExprNode*> roots_of(const Expr& e) {
    std::vector<const ExprNode*> vars, out;
    vars_in(e, vars);
    for (const ExprNode* v : vars) {
      auto it = roots_.find(v);
      if (it != roots_.end()) out.insert(out.end(), it->second.begin(), it->second.end());
    }
    return out;
  }

  void analyze() {
    std::unordered_set<const ExprNode*> escaping;
    for (size_t k = 0; k < bindings_.size(); ++k) {
      const Binding& b = *bindings_[k];
      if (is_alloc(b)) {
        roots_[b.var.get()] = {b.var.get()};
        alloc_index_[b.var.get()] = k;
        last_use_[b.var.get()] = k;
        continue;
      }
      // Uses: every allocation the value mentions is live here.
      std::vector<const ExprNode*> used = roots_of(b.value);
      for (const ExprNode* r : used) last_use_[r] = k;
      // Aliases: a variable bound to a variable, a tuple, an item or a match_cast of them may
      // hold the same allocation.
      ExprKind kind = b.value->kind;
      if (kind == ExprKind::Var || kind == ExprKind::Tuple || kind == ExprKind::TupleGetItem || b.is_match_cast()) {
        if (!used.empty()) roots_[b.var.get()] = used;
      } else if (kind == ExprKind::Call && may_hold_tensor(b.var->struct_info)) {
        // A packed function's result may be a view of its arguments (vm.builtin.reshape, an
        // identity registered by the user): their storage stays live while the result is.
        if (!used.empty()) roots_[b.var.get()] = used;
      } else if (kind == ExprKind::If) {
        for (const ExprNode* r : used) escaping.insert(r);
      }
    }
    for (const ExprNode* r : roots_of(f_->body->body)) escaping.insert(r);
    for (const auto& [var, index] : alloc_index_) {
      if (!escaping.count(var)) planned_.insert(var);
    }
    // In program order, so the rewrite's kills come out deterministically.
    order_.assign(planned_.begin(), planned_.end());
    std::sort(order_.begin(), order_.end(),
              [&](const ExprNode* a, const ExprNode* b) { return alloc_index_[a] < alloc_index_[b]; });
  }

  void plan() {
    std::vector<std::vector<const ExprNode*>> release(bindings_.size());
    for (const ExprNode* r : order_) release[last_use_[r]].push_back(r);
    for (size_t k = 0; k < bindings_.size(); ++k) {
      const Binding& b = *bindings_[k];
      if (is_alloc(b) && planned_.count(b.var.get())) {
        auto* call = as<CallNode>(b.value);
        PrimExpr bytes = bytes_of(*call);
        ir::DataType dtype = as<DataTypeImmNode>(call->args[1])->value;
        token_of_[b.var.get()] = take(bytes, dtype);
      }
      for (const ExprNode* r : release[k]) tokens_[token_of_[r]].free = true;
    }
  }

  size_t take(const PrimExpr& bytes, ir::DataType dtype) {
    int64_t need;
    bool constant = ir::as_const_int(bytes, &need);
    int best = -1;
    for (size_t i = 0; i < tokens_.size(); ++i) {
      Token& t = tokens_[i];
      if (!t.free || t.dtype != dtype) continue;
      int64_t have;
      bool t_constant = ir::as_const_int(t.bytes, &have);
      if (constant != t_constant) continue;
      if (!constant) {
        if (ir::expr_deep_equal(t.bytes, bytes)) {
          best = static_cast<int>(i);
          break;
        }
        continue;
      }
      // The smallest token that fits, else the largest (grown).
      if (best < 0) {
        best = static_cast<int>(i);
        continue;
      }
      int64_t cur;
      ir::as_const_int(tokens_[best].bytes, &cur);
      bool fits = have >= need, cur_fits = cur >= need;
      if ((fits && (!cur_fits || have < cur)) || (!fits && !cur_fits && have > cur)) best = static_cast<int>(i);
    }
    if (best >= 0) {
      Token& t = tokens_[best];
      t.free = false;
      int64_t have;
      if (constant && ir::as_const_int(t.bytes, &have) && have < need) t.bytes = bytes;
      return static_cast<size_t>(best);
    }
    tokens_.push_back(Token{bytes, dtype, false, nullptr});
    return tokens_.size() - 1;
  }

  Function rewrite() {
    BlockBuilder bb;
    std::vector<std::vector<const ExprNode*>> kill_after(bindings_.size());
    for (const ExprNode* r : order_) kill_after[last_use_[r]].push_back(r);
    std::unordered_map<const ExprNode*, Var> tensor_var;
    size_t k = 0;
    for (const auto& block : f_->body->blocks) {
      bb.begin_block(block.is_dataflow);
      for (const auto& binding : block.bindings) {
        if (is_alloc(binding) && planned_.count(binding.var.get())) {
          auto* call = as<CallNode>(binding.value);
          Token& t = tokens_[token_of_[binding.var.get()]];
          if (!t.storage) {
            t.storage = bb.emit(
                make_op_call("relax.memory.alloc_storage",
                             {make_shape_expr({t.bytes}), make_prim_value(ir::make_int(0, ir::DataType::int64())),
                              make_string_imm("global"), std::make_shared<DataTypeImmNode>(t.dtype)}),
                "storage");
          }
          Expr value = make_op_call("relax.memory.alloc_tensor",
                                    {t.storage, make_prim_value(ir::make_int(0, ir::DataType::int64())), call->args[0],
                                     call->args[1], make_prim_value(ir::make_int(0, ir::DataType::int64()))});
          bb.emit_binding(Binding{binding.var, value, nullptr});
        } else {
          bb.emit_binding(binding);
        }
        for (const ExprNode* r : kill_after[k]) {
          for (const auto& b2 : bindings_) {
            if (b2->var.get() == r) bb.emit(make_op_call("relax.memory.kill_tensor", {b2->var}), "_");
          }
        }
        ++k;
      }
    }
    for (const Token& t : tokens_) {
      if (t.storage) bb.emit(make_op_call("relax.memory.kill_storage", {t.storage}), "_");
    }
    auto body = std::make_shared<SeqExprNode>(bb.finish(), f_->body->body);
    body->struct_info = f_->body->struct_info;
    return with_body(f_, body);
  }

  Function f_;
  std::vector<const Binding*> bindings_;
  std::unordered_map<const ExprNode*, std::vector<const ExprNode*>> roots_;
  std::unordered_map<const ExprNode*, size_t> alloc_index_, last_use_, token_of_;
  std::unordered_set<const ExprNode*> planned_;
  std::vector<const ExprNode*> order_;
  std::vector<Token> tokens_;
};

}  // namespace

Pass static_plan_block_memory() {
  return relax_module_pass("StaticPlanBlockMemory", 0, [](const ir::IRModule& mod) {
    return map_relax_functions(mod, [](const std::string&, const Function& f) { return Planner(f).run(); });
  });
}

}  // namespace tsch::relax::transform
