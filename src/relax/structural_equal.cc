// Structural equality of Relax functions (TVM's StructuralEqual over relax.Function): Relax
// variables are matched at their definitions (parameters, bindings), symbolic TIR variables
// bijectively at first occurrence, so two functions that differ only in names are equal.
// Registered in ir/structural_equal.h's table, which IRModule comparison consults.
#include "relax/structural_equal.h"

#include <fmt/format.h>

#include <unordered_map>

#include "ir/expr_equal.h"
#include "ir/printer.h"
#include "ir/structural_equal.h"

namespace tsch::relax {
namespace {

class RelaxComparer {
 public:
  ir::StructuralDiff diff;

  bool function(const FunctionNode& a, const FunctionNode& b) {
    if (a.params.size() != b.params.size()) {
      return fail("params", fmt::format("{} parameters", a.params.size()),
                  fmt::format("{} parameters", b.params.size()));
    }
    for (size_t i = 0; i < a.params.size(); ++i) {
      if (!define(a.params[i], b.params[i], fmt::format("params[{}]", i))) return false;
    }
    if (a.is_pure != b.is_pure) return fail("is_pure", a.is_pure ? "pure" : "impure", b.is_pure ? "pure" : "impure");
    if (!sinfo((a.ret_sinfo), b.ret_sinfo, "ret_struct_info")) return false;
    if (ir::script(a.attrs) != ir::script(b.attrs)) return fail("attrs", ir::script(a.attrs), ir::script(b.attrs));
    return seq(*a.body, *b.body, "body");
  }

 private:
  bool fail(const std::string& path, const std::string& l, const std::string& r) {
    if (diff.equal) {
      diff.equal = false;
      diff.path = path;
      diff.lhs = l;
      diff.rhs = r;
    }
    return false;
  }

  bool tir_var(const ir::VarNode* a, const ir::VarNode* b) {
    auto it = tir_vars_.find(a);
    if (it != tir_vars_.end()) return it->second == b;
    auto back = tir_back_.find(b);
    if (back != tir_back_.end()) return false;
    if (a->dtype != b->dtype) return false;
    tir_vars_[a] = b;
    tir_back_[b] = a;
    return true;
  }

  // Dims: variables matched bijectively, the rest compared as written.
  bool dim(const ir::PrimExpr& a, const ir::PrimExpr& b) {
    if (a == b) return true;
    if (!a || !b || a->kind != b->kind || a->dtype != b->dtype) return false;
    if (auto* va = ir::as<ir::VarNode>(a)) return tir_var(va, ir::as<ir::VarNode>(b));
    if (ir::is_binary(a->kind)) return dim(ir::binary_a(a), ir::binary_a(b)) && dim(ir::binary_b(a), ir::binary_b(b));
    if (auto* ca = ir::as<ir::CastNode>(a)) return dim(ca->value, ir::as<ir::CastNode>(b)->value);
    return ir::expr_deep_equal(a, b);
  }

  bool dims(const std::vector<ir::PrimExpr>& a, const std::vector<ir::PrimExpr>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!dim(a[i], b[i])) return false;
    }
    return true;
  }

  bool sinfo_eq(const StructInfo& a, const StructInfo& b) {
    if (a == b) return true;
    if (!a || !b || a->kind != b->kind) return false;
    switch (a->kind) {
      case SInfoKind::Object:
        return true;
      case SInfoKind::Prim: {
        auto *x = as<PrimSInfoNode>(a), *y = as<PrimSInfoNode>(b);
        return x->dtype == y->dtype && (x->value == nullptr) == (y->value == nullptr) &&
               (!x->value || dim(x->value, y->value));
      }
      case SInfoKind::Shape: {
        auto *x = as<ShapeSInfoNode>(a), *y = as<ShapeSInfoNode>(b);
        return x->ndim == y->ndim && x->values.has_value() == y->values.has_value() &&
               (!x->values || dims(*x->values, *y->values));
      }
      case SInfoKind::Tensor: {
        auto *x = as<TensorSInfoNode>(a), *y = as<TensorSInfoNode>(b);
        return x->dtype == y->dtype && x->ndim == y->ndim && x->shape.has_value() == y->shape.has_value() &&
               (!x->shape || dims(*x->shape, *y->shape));
      }
      case SInfoKind::Tuple: {
        auto *x = as<TupleSInfoNode>(a), *y = as<TupleSInfoNode>(b);
        if (x->fields.size() != y->fields.size()) return false;
        for (size_t i = 0; i < x->fields.size(); ++i) {
          if (!sinfo_eq(x->fields[i], y->fields[i])) return false;
        }
        return true;
      }
      case SInfoKind::Func: {
        auto *x = as<FuncSInfoNode>(a), *y = as<FuncSInfoNode>(b);
        if (x->purity != y->purity || x->params.has_value() != y->params.has_value()) return false;
        if (x->params) {
          if (x->params->size() != y->params->size()) return false;
          for (size_t i = 0; i < x->params->size(); ++i) {
            if (!sinfo_eq((*x->params)[i], (*y->params)[i])) return false;
          }
        }
        return sinfo_eq(x->ret, y->ret);
      }
    }
    return false;
  }

  bool sinfo(const StructInfo& a, const StructInfo& b, const std::string& path) {
    return sinfo_eq(a, b) || fail(path, sinfo_text(a), sinfo_text(b));
  }

  bool define(const Var& a, const Var& b, const std::string& path) {
    if (a->is_dataflow != b->is_dataflow)
      return fail(path, a->is_dataflow ? "a dataflow var" : "a var", b->is_dataflow ? "a dataflow var" : "a var");
    if (!sinfo(a->struct_info, b->struct_info, path + ".struct_info")) return false;
    vars_[a.get()] = b.get();
    return true;
  }

  bool exprs(const std::vector<Expr>& a, const std::vector<Expr>& b, const std::string& path) {
    if (a.size() != b.size()) return fail(path, fmt::format("{} items", a.size()), fmt::format("{} items", b.size()));
    for (size_t i = 0; i < a.size(); ++i) {
      if (!expr(a[i], b[i], fmt::format("{}[{}]", path, i))) return false;
    }
    return true;
  }

  bool expr(const Expr& a, const Expr& b, const std::string& path) {
    if (a == b) return true;
    if (!a || !b || a->kind != b->kind) return fail(path, "an expression", "an expression of another kind");
    switch (a->kind) {
      case ExprKind::Var: {
        auto it = vars_.find(a.get());
        if (it == vars_.end()) return fail(path, as<VarNode>(a)->name + " (free)", as<VarNode>(b)->name);
        return it->second == b.get() || fail(path, as<VarNode>(a)->name, as<VarNode>(b)->name);
      }
      case ExprKind::Constant: {
        auto &x = *as<ConstantNode>(a)->data, &y = *as<ConstantNode>(b)->data;
        if (x.dtype() != y.dtype() || x.shape() != y.shape())
          return fail(path, "a constant", "a constant of another type");
        for (int64_t i = 0; i < x.size(); ++i) {
          if (x.get_f(i) != y.get_f(i)) return fail(path, "a constant", "a constant with other values");
        }
        return true;
      }
      case ExprKind::Tuple:
        return exprs(as<TupleNode>(a)->fields, as<TupleNode>(b)->fields, path + ".fields");
      case ExprKind::TupleGetItem: {
        auto *x = as<TupleGetItemNode>(a), *y = as<TupleGetItemNode>(b);
        if (x->index != y->index) return fail(path + ".index", std::to_string(x->index), std::to_string(y->index));
        return expr(x->tuple, y->tuple, path + ".tuple");
      }
      case ExprKind::ShapeExpr:
        return dims(as<ShapeExprNode>(a)->values, as<ShapeExprNode>(b)->values) ||
               fail(path, "a shape", "another shape");
      case ExprKind::PrimValue:
        return dim(as<PrimValueNode>(a)->value, as<PrimValueNode>(b)->value) || fail(path, "a prim value", "another");
      case ExprKind::StringImm: {
        auto &x = as<StringImmNode>(a)->value, &y = as<StringImmNode>(b)->value;
        return x == y || fail(path, ir::quote(x), ir::quote(y));
      }
      case ExprKind::DataTypeImm:
        return as<DataTypeImmNode>(a)->value == as<DataTypeImmNode>(b)->value || fail(path, "a dtype", "another dtype");
      case ExprKind::GlobalVar: {
        auto &x = as<GlobalVarNode>(a)->name, &y = as<GlobalVarNode>(b)->name;
        return x == y || fail(path, x, y);
      }
      case ExprKind::ExternFunc: {
        auto &x = as<ExternFuncNode>(a)->global_symbol, &y = as<ExternFuncNode>(b)->global_symbol;
        return x == y || fail(path, ir::quote(x), ir::quote(y));
      }
      case ExprKind::Op: {
        auto &x = as<OpNode>(a)->name, &y = as<OpNode>(b)->name;
        return x == y || fail(path, x, y);
      }
      case ExprKind::Call: {
        auto *x = as<CallNode>(a), *y = as<CallNode>(b);
        if (!expr(x->op, y->op, path + ".op") || !exprs(x->args, y->args, path + ".args")) return false;
        if (ir::script(x->attrs) != ir::script(y->attrs))
          return fail(path + ".attrs", ir::script(x->attrs), ir::script(y->attrs));
        if (x->sinfo_args.size() != y->sinfo_args.size())
          return fail(path + ".sinfo_args", "a list", "a list of other length");
        for (size_t i = 0; i < x->sinfo_args.size(); ++i) {
          if (!sinfo(x->sinfo_args[i], y->sinfo_args[i], fmt::format("{}.sinfo_args[{}]", path, i))) return false;
        }
        return true;
      }
      case ExprKind::If: {
        auto *x = as<IfNode>(a), *y = as<IfNode>(b);
        return expr(x->cond, y->cond, path + ".cond") && seq(*x->true_branch, *y->true_branch, path + ".true_branch") &&
               seq(*x->false_branch, *y->false_branch, path + ".false_branch");
      }
      case ExprKind::SeqExpr:
        return seq(*as<SeqExprNode>(a), *as<SeqExprNode>(b), path);
    }
    return fail(path, "?", "?");
  }

  bool seq(const SeqExprNode& a, const SeqExprNode& b, const std::string& path) {
    if (a.blocks.size() != b.blocks.size()) {
      return fail(path + ".blocks", fmt::format("{} blocks", a.blocks.size()),
                  fmt::format("{} blocks", b.blocks.size()));
    }
    for (size_t i = 0; i < a.blocks.size(); ++i) {
      const BindingBlock &x = a.blocks[i], &y = b.blocks[i];
      std::string bp = fmt::format("{}.blocks[{}]", path, i);
      if (x.is_dataflow != y.is_dataflow)
        return fail(bp, x.is_dataflow ? "a dataflow block" : "a block", y.is_dataflow ? "a dataflow block" : "a block");
      if (x.bindings.size() != y.bindings.size()) {
        return fail(bp + ".bindings", fmt::format("{} bindings", x.bindings.size()),
                    fmt::format("{} bindings", y.bindings.size()));
      }
      for (size_t j = 0; j < x.bindings.size(); ++j) {
        const Binding &p = x.bindings[j], &q = y.bindings[j];
        std::string pp = fmt::format("{}.bindings[{}]", bp, j);
        if (p.is_match_cast() != q.is_match_cast())
          return fail(pp, p.is_match_cast() ? "a match_cast" : "a binding",
                      q.is_match_cast() ? "a match_cast" : "a binding");
        if (!expr(p.value, q.value, pp + ".value")) return false;
        if (p.is_match_cast() && !sinfo(p.match_sinfo, q.match_sinfo, pp + ".struct_info")) return false;
        if (!define(p.var, q.var, pp + ".var")) return false;
      }
    }
    return expr(a.body, b.body, path + ".body");
  }

  std::unordered_map<const ExprNode*, const ExprNode*> vars_;
  std::unordered_map<const ir::VarNode*, const ir::VarNode*> tir_vars_, tir_back_;
};

}  // namespace

ir::StructuralDiff structural_diff(const Function& a, const Function& b) {
  RelaxComparer c;
  c.function(*a, *b);
  return c.diff;
}

void register_relax_structural_equal() {
  ir::function_diff_table()[ir::FuncKind::RelaxFunction] = [](const ir::BaseFunc& a, const ir::BaseFunc& b) {
    return structural_diff(as_relax_function(a), as_relax_function(b));
  };
  ir::function_diff_table()[ir::FuncKind::ExternFunc] = [](const ir::BaseFunc& a, const ir::BaseFunc& b) {
    ir::StructuralDiff d;
    auto &x = static_cast<const ExternFuncDeclNode&>(*a).global_symbol_name,
         &y = static_cast<const ExternFuncDeclNode&>(*b).global_symbol_name;
    if (x != y) {
      d.equal = false;
      d.lhs = x;
      d.rhs = y;
    }
    return d;
  };
}

}  // namespace tsch::relax
