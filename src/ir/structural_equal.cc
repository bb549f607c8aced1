#include "ir/structural_equal.h"

#include <fmt/format.h>

#include <map>
#include <unordered_map>

#include "ir/op.h"
#include "ir/printer.h"

namespace tsch::ir {
namespace {

class Comparer {
 public:
  explicit Comparer(StructuralOptions options = {}) : options_(options) {}
  StructuralDiff diff;

  bool module(const IRModule& a, const IRModule& b) {
    if (a->functions.size() != b->functions.size()) {
      return fail("functions", fmt::format("{} functions", a->functions.size()),
                  fmt::format("{} functions", b->functions.size()));
    }
    if (!attrs(a->attrs, b->attrs, "attrs")) return false;
    for (const auto& [na, fa] : a->functions) {
      BaseFunc fb = b->lookup(na);
      if (!fb) return fail("functions", "function " + na, "no function named " + na);
      Scoped s(*this, "functions[\"" + na + "\"]");
      if (!base_function(fa, fb)) return false;
    }
    return true;
  }

  bool base_function(const BaseFunc& a, const BaseFunc& b) {
    if (a->func_kind() != b->func_kind()) return fail("", a->type_key(), b->type_key());
    if (a->func_kind() == FuncKind::PrimFunc) return function(as_prim_func(a), as_prim_func(b));
    auto& table = function_diff_table();
    auto it = table.find(a->func_kind());
    if (it == table.end()) return fail("", std::string("a ") + a->type_key() + " (not comparable yet)", b->type_key());
    StructuralDiff d = it->second(a, b);
    if (d.equal) return true;
    Scoped s(*this, d.path);
    return fail("", d.lhs, d.rhs);
  }

  bool function(const PrimFunc& a, const PrimFunc& b) {
    if (a->params.size() != b->params.size()) {
      return fail("params", fmt::format("{} parameters", a->params.size()),
                  fmt::format("{} parameters", b->params.size()));
    }
    for (size_t i = 0; i < a->params.size(); ++i) {
      Scoped s(*this, fmt::format("params[{}]", i));
      if (!var(a->params[i].get(), b->params[i].get())) return false;
      Buffer ba = a->buffer_of(a->params[i]), bb = b->buffer_of(b->params[i]);
      if (!ba != !bb) return fail("buffer_map", ba ? "a buffer" : "no buffer", bb ? "a buffer" : "no buffer");
      if (ba && !buffer(ba.get(), bb.get())) return false;
    }
    if (!attrs(a->attrs, b->attrs, "attrs")) return false;
    Scoped s(*this, "body");
    return stmt(a->body, b->body);
  }

  bool expr(const PrimExpr& a, const PrimExpr& b) {
    if (a == b) return true;
    if (!a || !b) return fail("", a ? script(a) : "None", b ? script(b) : "None");
    if (a->kind != b->kind || a->dtype != b->dtype) return fail("", script(a), script(b));
    switch (a->kind) {
      TSCH_IR_BINARY_KINDS(TSCH_IR_BINARY_CASE)
      return expr(binary_a(a), binary_a(b)) && expr(binary_b(a), binary_b(b));
      case ExprKind::IntImm:
        return as<IntImmNode>(a)->value == as<IntImmNode>(b)->value || fail("", script(a), script(b));
      case ExprKind::FloatImm:
        return as<FloatImmNode>(a)->value == as<FloatImmNode>(b)->value || fail("", script(a), script(b));
      case ExprKind::StringImm:
        return as<StringImmNode>(a)->value == as<StringImmNode>(b)->value || fail("", script(a), script(b));
      case ExprKind::Var:
        return var(as<VarNode>(a), as<VarNode>(b));
      case ExprKind::Not:
        return expr(as<NotNode>(a)->a, as<NotNode>(b)->a);
      case ExprKind::Select: {
        auto *x = as<SelectNode>(a), *y = as<SelectNode>(b);
        return expr(x->condition, y->condition) && expr(x->true_value, y->true_value) &&
               expr(x->false_value, y->false_value);
      }
      case ExprKind::Cast:
        return expr(as<CastNode>(a)->value, as<CastNode>(b)->value);
      case ExprKind::BufferLoad: {
        auto *x = as<BufferLoadNode>(a), *y = as<BufferLoadNode>(b);
        return buffer(x->buffer.get(), y->buffer.get()) && exprs(x->indices, y->indices, "indices");
      }
      case ExprKind::Call: {
        auto *x = as<CallNode>(a), *y = as<CallNode>(b);
        if (x->op != y->op) return fail("op", x->op, y->op);
        return exprs(x->args, y->args, "args");
      }
      case ExprKind::Ramp: {
        auto *x = as<RampNode>(a), *y = as<RampNode>(b);
        return x->lanes == y->lanes && expr(x->base, y->base) && expr(x->stride, y->stride);
      }
      case ExprKind::Broadcast: {
        auto *x = as<BroadcastNode>(a), *y = as<BroadcastNode>(b);
        return x->lanes == y->lanes && expr(x->value, y->value);
      }
      case ExprKind::Let: {
        auto *x = as<LetNode>(a), *y = as<LetNode>(b);
        return expr(x->value, y->value) && var(x->var.get(), y->var.get()) && expr(x->body, y->body);
      }
    }
    return fail("", script(a), script(b));  // not reached: the switch covers every kind
  }

  bool stmt(const Stmt& a, const Stmt& b) {
    if (a == b) return true;
    if (!a || !b) return fail("", a ? "a statement" : "None", b ? "a statement" : "None");
    if (a->kind != b->kind) return fail("", first_line(script(a)), first_line(script(b)));
    switch (a->kind) {
      case StmtKind::BufferStore: {
        auto *x = as<BufferStoreNode>(a), *y = as<BufferStoreNode>(b);
        Scoped s(*this, "value");
        return buffer(x->buffer.get(), y->buffer.get()) && exprs(x->indices, y->indices, "indices") &&
               expr(x->value, y->value);
      }
      case StmtKind::For: {
        auto *x = as<ForNode>(a), *y = as<ForNode>(b);
        if (x->for_kind != y->for_kind || x->thread_tag != y->thread_tag || x->launch_thread != y->launch_thread)
          return fail("kind", first_line(script(a)), first_line(script(b)));
        if (!sub_expr(x->min, y->min, "min") || !sub_expr(x->extent, y->extent, "extent")) return false;
        if (!x->step != !y->step)
          return fail("step", x->step ? script(x->step) : "None", y->step ? script(y->step) : "None");
        if (x->step && !sub_expr(x->step, y->step, "step")) return false;
        if (!var(x->loop_var.get(), y->loop_var.get())) return false;
        if (!attrs(x->annotations, y->annotations, "annotations")) return false;
        Scoped s(*this, "body");
        return stmt(x->body, y->body);
      }
      case StmtKind::BlockRealize: {
        auto *x = as<BlockRealizeNode>(a), *y = as<BlockRealizeNode>(b);
        if (!exprs(x->iter_values, y->iter_values, "iter_values") || !sub_expr(x->predicate, y->predicate, "predicate"))
          return false;
        Scoped s(*this, "block");
        return stmt(x->block, y->block);
      }
      case StmtKind::Block: {
        auto *x = as<BlockNode>(a), *y = as<BlockNode>(b);
        if (options_.block_names && x->name != y->name) return fail("name", x->name, y->name);
        if (x->iter_vars.size() != y->iter_vars.size())
          return fail("iter_vars", fmt::format("{} iterators", x->iter_vars.size()),
                      fmt::format("{} iterators", y->iter_vars.size()));
        for (size_t i = 0; i < x->iter_vars.size(); ++i) {
          Scoped s(*this, fmt::format("iter_vars[{}]", i));
          const IterVar &p = x->iter_vars[i], &q = y->iter_vars[i];
          if (p.type != q.type) return fail("iter_type", "", "");
          if (!sub_expr(p.dom.min, q.dom.min, "dom.min") || !sub_expr(p.dom.extent, q.dom.extent, "dom.extent"))
            return false;
          if (!var(p.var.get(), q.var.get())) return false;
        }
        if (x->alloc_buffers.size() != y->alloc_buffers.size())
          return fail("alloc_buffers", fmt::format("{}", x->alloc_buffers.size()),
                      fmt::format("{}", y->alloc_buffers.size()));
        for (size_t i = 0; i < x->alloc_buffers.size(); ++i) {
          if (!buffer(x->alloc_buffers[i].get(), y->alloc_buffers[i].get())) return false;
        }
        if (!regions(x->reads, y->reads, "reads") || !regions(x->writes, y->writes, "writes")) return false;
        if (!attrs(x->annotations, y->annotations, "annotations")) return false;
        if (!!x->init != !!y->init)
          return fail("init", x->init ? "an init" : "no init", y->init ? "an init" : "no init");
        if (x->init) {
          Scoped s(*this, "init");
          if (!stmt(x->init, y->init)) return false;
        }
        Scoped s(*this, "body");
        return stmt(x->body, y->body);
      }
      case StmtKind::SeqStmt: {
        auto *x = as<SeqStmtNode>(a), *y = as<SeqStmtNode>(b);
        if (x->seq.size() != y->seq.size())
          return fail("", fmt::format("{} statements", x->seq.size()), fmt::format("{} statements", y->seq.size()));
        for (size_t i = 0; i < x->seq.size(); ++i) {
          Scoped s(*this, fmt::format("[{}]", i));
          if (!stmt(x->seq[i], y->seq[i])) return false;
        }
        return true;
      }
      case StmtKind::IfThenElse: {
        auto *x = as<IfThenElseNode>(a), *y = as<IfThenElseNode>(b);
        if (!sub_expr(x->condition, y->condition, "condition")) return false;
        {
          Scoped s(*this, "then_case");
          if (!stmt(x->then_case, y->then_case)) return false;
        }
        Scoped s(*this, "else_case");
        return stmt(x->else_case, y->else_case);
      }
      case StmtKind::LetStmt: {
        auto *x = as<LetStmtNode>(a), *y = as<LetStmtNode>(b);
        if (!sub_expr(x->value, y->value, "value") || !var(x->var.get(), y->var.get())) return false;
        Scoped s(*this, "body");
        return stmt(x->body, y->body);
      }
      case StmtKind::Evaluate:
        return sub_expr(as<EvaluateNode>(a)->value, as<EvaluateNode>(b)->value, "value");
      case StmtKind::Allocate: {
        auto *x = as<AllocateNode>(a), *y = as<AllocateNode>(b);
        return buffer(x->buffer.get(), y->buffer.get()) && stmt(x->body, y->body);
      }
      case StmtKind::DeclBuffer: {
        auto *x = as<DeclBufferNode>(a), *y = as<DeclBufferNode>(b);
        Scoped s(*this, "buffer.data");
        return buffer(x->buffer.get(), y->buffer.get()) && var(x->buffer->data.get(), y->buffer->data.get()) &&
               stmt(x->body, y->body);
      }
      case StmtKind::AllocateConst: {
        auto *x = as<AllocateConstNode>(a), *y = as<AllocateConstNode>(b);
        if (x->dtype != y->dtype) return fail("dtype", x->dtype.to_string(), y->dtype.to_string());
        if (!exprs(x->extents, y->extents, "extents")) return false;
        // The data as TVM compares an NDArray: element by element (floats already rounded to
        // the dtype, so 0.1 written twice compares equal).
        if (x->float_data != y->float_data || x->int_data != y->int_data) {
          return fail("data", fmt::format("{} values", x->size()), fmt::format("{} values", y->size()));
        }
        if (!attrs(x->annotations, y->annotations, "annotations")) return false;
        {
          Scoped s(*this, "buffer_var");
          if (!var(x->buffer_var.get(), y->buffer_var.get())) return false;
        }
        Scoped s(*this, "body");
        return stmt(x->body, y->body);
      }
      case StmtKind::AttrStmt: {
        auto *x = as<AttrStmtNode>(a), *y = as<AttrStmtNode>(b);
        if (x->attr_key != y->attr_key) return fail("attr_key", x->attr_key, y->attr_key);
        if (!sub_expr(x->node, y->node, "node") || !sub_expr(x->value, y->value, "value")) return false;
        Scoped s(*this, "body");
        return stmt(x->body, y->body);
      }
    }
    return false;
  }

 private:
  struct Scoped {
    Scoped(Comparer& c, const std::string& part) : c_(c), size_(c.path_.size()) {
      if (!part.empty() && !c.path_.empty() && part[0] != '[') c.path_ += ".";
      c.path_ += part;
    }
    ~Scoped() {
      if (c_.diff.equal) c_.path_.resize(size_);
    }
    Comparer& c_;
    size_t size_;
  };

  static std::string first_line(const std::string& s) {
    size_t nl = s.find('\n');
    return nl == std::string::npos ? s : s.substr(0, nl);
  }

  bool fail(const std::string& part, const std::string& lhs, const std::string& rhs) {
    if (!diff.equal) return false;
    diff.equal = false;
    diff.path = path_;
    if (!part.empty()) diff.path += (diff.path.empty() ? "" : ".") + part;
    diff.lhs = lhs;
    diff.rhs = rhs;
    return false;
  }

  bool sub_expr(const PrimExpr& a, const PrimExpr& b, const char* part) {
    Scoped s(*this, part);
    return expr(a, b);
  }

  bool exprs(const std::vector<PrimExpr>& a, const std::vector<PrimExpr>& b, const char* part) {
    if (a.size() != b.size()) return fail(part, fmt::format("{} items", a.size()), fmt::format("{} items", b.size()));
    for (size_t i = 0; i < a.size(); ++i) {
      Scoped s(*this, fmt::format("{}[{}]", part, i));
      if (!expr(a[i], b[i])) return false;
    }
    return true;
  }

  bool var(const VarNode* a, const VarNode* b) {
    if (a->dtype != b->dtype)
      return fail("", a->name + ": " + a->dtype.to_string(), b->name + ": " + b->dtype.to_string());
    // TVM compares a variable's type annotation: T.handle("float32") is not T.handle.
    if (a->type_annotation != b->type_annotation) {
      return fail("type_annotation", a->name + ": " + var_type_script(*a), b->name + ": " + var_type_script(*b));
    }
    auto it = vars_.find(a);
    auto rit = rvars_.find(b);
    if (it == vars_.end() && rit == rvars_.end()) {
      vars_[a] = b;
      rvars_[b] = a;
      return true;
    }
    if (it != vars_.end() && it->second == b) return true;
    return fail("", a->name, b->name);
  }

  bool buffer(const BufferNode* a, const BufferNode* b) {
    auto it = buffers_.find(a);
    if (it != buffers_.end()) return it->second == b || fail("buffer", a->name, b->name);
    if (a->dtype != b->dtype || a->scope != b->scope || a->shape.size() != b->shape.size()) {
      return fail("buffer " + a->name, a->dtype.to_string() + " " + a->scope, b->dtype.to_string() + " " + b->scope);
    }
    buffers_[a] = b;
    // A buffer over data a statement defined (T.allocate_const) points at the matching data.
    if (a->data && b->data && vars_.count(a->data.get()) && !var(a->data.get(), b->data.get())) return false;
    for (size_t i = 0; i < a->shape.size(); ++i) {
      Scoped s(*this, fmt::format("buffer {}.shape[{}]", a->name, i));
      if (!expr(a->shape[i], b->shape[i])) return false;
    }
    if (a->strides.size() != b->strides.size()) {
      return fail("buffer " + a->name + ".strides", fmt::format("{} strides", a->strides.size()),
                  fmt::format("{} strides", b->strides.size()));
    }
    for (size_t i = 0; i < a->strides.size(); ++i) {
      Scoped s(*this, fmt::format("buffer {}.strides[{}]", a->name, i));
      if (!expr(a->strides[i], b->strides[i])) return false;
    }
    {
      Scoped s(*this, fmt::format("buffer {}.elem_offset", a->name));
      PrimExpr zero = make_int(0);
      const PrimExpr& ea = a->elem_offset ? a->elem_offset : zero;
      const PrimExpr& eb = b->elem_offset ? b->elem_offset : zero;
      if (is_zero(ea) != is_zero(eb) || (!is_zero(ea) && !expr(ea, eb))) return fail("", script(ea), script(eb));
    }
    if (a->offset_factor != b->offset_factor) {
      return fail("buffer " + a->name + ".offset_factor", std::to_string(a->offset_factor),
                  std::to_string(b->offset_factor));
    }
    if (a->align != b->align)
      return fail("buffer " + a->name + ".align", std::to_string(a->align), std::to_string(b->align));
    if (a->axis_separators != b->axis_separators) {
      return fail("buffer " + a->name + ".axis_separators", fmt::format("{} separators", a->axis_separators.size()),
                  fmt::format("{} separators", b->axis_separators.size()));
    }
    return true;
  }

  bool regions(const std::vector<BufferRegion>& a, const std::vector<BufferRegion>& b, const char* part) {
    if (a.size() != b.size())
      return fail(part, fmt::format("{} regions", a.size()), fmt::format("{} regions", b.size()));
    for (size_t i = 0; i < a.size(); ++i) {
      Scoped s(*this, fmt::format("{}[{}]", part, i));
      if (!buffer(a[i].buffer.get(), b[i].buffer.get())) return false;
      for (size_t d = 0; d < a[i].region.size() && d < b[i].region.size(); ++d) {
        if (!expr(a[i].region[d].min, b[i].region[d].min) || !expr(a[i].region[d].extent, b[i].region[d].extent))
          return false;
      }
    }
    return true;
  }

  bool attrs(const AttrMap& a, const AttrMap& b, const char* part) {
    if (a.size() != b.size())
      return fail(part, fmt::format("{} entries", a.size()), fmt::format("{} entries", b.size()));
    for (const auto& [k, v] : a) {
      const AttrValue* w = find_attr(b, k);
      if (!w) return fail(part, k, "(missing)");
      if (v.kind != w->kind || v.i != w->i || v.s != w->s || v.b != w->b || v.f != w->f) {
        return fail(std::string(part) + "." + k, attr_text(v), attr_text(*w));
      }
    }
    return true;
  }

  static std::string attr_text(const AttrValue& v) {
    switch (v.kind) {
      case AttrValue::Kind::Int:
        return std::to_string(v.i);
      case AttrValue::Kind::Float:
        return fmt::format("{}", v.f);
      case AttrValue::Kind::Str:
        return "\"" + v.s + "\"";
      case AttrValue::Kind::Bool:
        return v.b ? "True" : "False";
      case AttrValue::Kind::Expr:
        return script(v.expr);
      default:
        return "(a container)";
    }
  }

  std::string path_;
  std::unordered_map<const VarNode*, const VarNode*> vars_, rvars_;
  std::unordered_map<const BufferNode*, const BufferNode*> buffers_;
  StructuralOptions options_;
};

}  // namespace

std::map<FuncKind, FunctionDiff>& function_diff_table() {
  static std::map<FuncKind, FunctionDiff> table;
  return table;
}

StructuralDiff structural_diff(const IRModule& a, const IRModule& b, StructuralOptions options) {
  Comparer c(options);
  c.module(a, b);
  return c.diff;
}

StructuralDiff structural_diff(const PrimFunc& a, const PrimFunc& b, StructuralOptions options) {
  Comparer c(options);
  c.function(a, b);
  return c.diff;
}

StructuralDiff structural_diff(const Stmt& a, const Stmt& b, StructuralOptions options) {
  Comparer c(options);
  c.stmt(a, b);
  return c.diff;
}

StructuralDiff structural_diff(const PrimExpr& a, const PrimExpr& b) {
  Comparer c;
  c.expr(a, b);
  return c.diff;
}

StructuralDiff structural_diff(const std::vector<PrimExpr>& a, const std::vector<PrimExpr>& b) {
  // The elements compared as the arguments of one node, so that the mapping is shared.
  auto array = [](const std::vector<PrimExpr>& items) {
    return PrimExpr(std::make_shared<CallNode>(DataType::handle(), "", items));
  };
  StructuralDiff d = structural_diff(array(a), array(b));
  if (d.path.rfind("args", 0) == 0) d.path = d.path.substr(4);
  return d;
}

}  // namespace tsch::ir
