// The Relax part of the TVMScript printer (TVM's src/script/printer/relax/): functions with
// their signature's symbolic variables declared first (`m = T.int64()`, written as strings
// in the signature), bindings annotated with their struct info unless a call_tir /
// call_dps_packed already says it, dataflow blocks closed by `R.output(...)`, module functions
// referenced through `cls = Module`.
#include "relax/printer.h"

#include <fmt/format.h>

#include <unordered_set>

#include "ir/functor.h"
#include "ir/op.h"
#include "ir/printer.h"
#include "ir/tir_printer.h"
#include "relax/op.h"
#include "support/error.h"

namespace tsch::relax {
namespace {

using ir::PrimExpr;

class RelaxPrinter {
 public:
  RelaxPrinter(ir::PrintContext& ctx, bool in_module) : ctx_(ctx), in_module_(in_module) {
    ctx_.use(ir::Dialect::Relax);
  }

  void function(const Function& f, const std::string& name, int indent) {
    ctx_.push_frame();
    // Names the text itself uses are taken first, so a variable called `R` prints as `R_1`.
    static const char kReserved[3] = {0, 0, 0};
    ctx_.define(&kReserved[0], "R");
    ctx_.define(&kReserved[1], "T");
    ctx_.define(&kReserved[2], "I");
    // Step 1. The signature: symbolic variables it introduces print as strings there and are
    // declared at the top of the body, in order of first appearance (return type first).
    collecting_ = true;
    std::string ret = f->ret_sinfo ? " -> " + sinfo(f->ret_sinfo) : "";
    std::vector<std::string> params;
    for (const auto& p : f->params) {
      std::string t = sinfo(p->struct_info);
      params.push_back(define_var(p) + ": " + t);
    }
    collecting_ = false;
    // Step 2. Attributes (global_symbol is implied by the name at the top level).
    ir::AttrMap attrs;
    for (const auto& [k, v] : f->attrs) {
      if (k == "global_symbol" && v.kind == ir::AttrValue::Kind::Str && v.s == name) continue;
      attrs.emplace_back(k, v);
    }
    if (!attrs.empty()) prelude_.push_back("R.func_attr(" + ir::script(attrs) + ")");
    // Step 3. The decorator.
    std::vector<std::string> deco;
    if (!f->is_pure) deco.push_back("pure=False");
    if (!ir::func_attr(f, "global_symbol")) deco.push_back("private=True");
    // Step 4. The body (which may declare more variables and the module alias).
    body_indent_ = indent + 1;
    seq_expr(*f->body, indent + 1, /*use_return=*/true);
    ctx_.line(indent, deco.empty() ? "@R.function" : "@R.function(" + join(deco) + ")");
    ctx_.line(indent, "def " + name + "(" + join(params) + ")" + ret + ":");
    for (const auto& l : prelude_) ctx_.line(indent + 1, l);
    for (const auto& [in, text] : lines_) ctx_.line(in, text);
    ctx_.pop_frame();
  }

 private:
  static std::string join(const std::vector<std::string>& xs) {
    std::string s;
    for (size_t i = 0; i < xs.size(); ++i) s += (i ? ", " : "") + xs[i];
    return s;
  }

  void emit(int indent, std::string text) { lines_.emplace_back(indent, std::move(text)); }

  std::string define_var(const Var& v) { return ctx_.define(v.get(), v->name); }

  // ------------------------------------------------------------------ TIR inside Relax

  void declare_tir_var(const ir::VarNode* v) {
    if (ctx_.is_defined(v)) return;
    std::string name = ctx_.define(v, v->name.empty() ? "v" : v->name);
    if (collecting_) func_vars_.insert(v);
    ctx_.use(ir::Dialect::TIR);
    std::string args = v->is_size_var ? "is_size_var=True" : "";
    prelude_.push_back(name + " = T." + v->dtype.to_string() + "(" + args + ")");
  }

  std::string dim(const PrimExpr& e) {
    int64_t c;
    if (ir::as_const_int(e, &c) && !e->dtype.is_bool()) return std::to_string(c);
    bool uses_func_var = false;
    ir::for_each_expr(e, [&](const PrimExpr& x) {
      if (auto* v = ir::as<ir::VarNode>(x)) {
        declare_tir_var(v);
        uses_func_var |= collecting_ && func_vars_.count(v);
      }
    });
    std::string text = ir::print_prim_expr(ctx_, e, /*plain_ints=*/true);
    return uses_func_var ? ir::quote(text) : text;
  }

  std::string dims(const std::vector<PrimExpr>& ds, bool tuple) {
    std::vector<std::string> parts;
    for (const auto& d : ds) parts.push_back(dim(d));
    if (!tuple) return "[" + join(parts) + "]";
    return "(" + join(parts) + (parts.size() == 1 ? ",)" : ")");
  }

  std::string sinfo(const StructInfo& s) {
    switch (s->kind) {
      case SInfoKind::Object:
        return "R.Object";
      case SInfoKind::Prim: {
        auto* p = as<PrimSInfoNode>(s);
        if (p->value) return "R.Prim(value=" + dim(p->value) + ")";
        return "R.Prim(" + ir::quote(p->dtype.to_string()) + ")";
      }
      case SInfoKind::Shape: {
        auto* p = as<ShapeSInfoNode>(s);
        if (p->values) return "R.Shape(" + dims(*p->values, false) + ")";
        return fmt::format("R.Shape(ndim={})", p->ndim);
      }
      case SInfoKind::Tensor: {
        auto* p = as<TensorSInfoNode>(s);
        std::vector<std::string> parts;
        if (p->shape) parts.push_back(dims(*p->shape, true));
        if (!p->unknown_dtype()) parts.push_back("dtype=" + ir::quote(p->dtype.to_string()));
        if (!p->shape && p->ndim != -1) parts.push_back(fmt::format("ndim={}", p->ndim));
        return parts.empty() ? "R.Tensor" : "R.Tensor(" + join(parts) + ")";
      }
      case SInfoKind::Tuple: {
        auto* p = as<TupleSInfoNode>(s);
        if (p->fields.empty()) return "R.Tuple";
        std::vector<std::string> parts;
        for (const auto& f : p->fields) parts.push_back(sinfo(f));
        return "R.Tuple(" + join(parts) + ")";
      }
      case SInfoKind::Func: {
        auto* p = as<FuncSInfoNode>(s);
        if (!p->params) {
          std::vector<std::string> kw;
          if (p->ret->kind != SInfoKind::Object) kw.push_back("ret=" + sinfo(p->ret));
          if (p->purity) kw.push_back("purity=True");
          return kw.empty() ? "R.Callable" : "R.Callable(" + join(kw) + ")";
        }
        std::vector<std::string> ps;
        for (const auto& x : *p->params) ps.push_back(sinfo(x));
        std::string tuple = "(" + join(ps) + (ps.size() == 1 ? ",)" : ")");
        return "R.Callable(" + tuple + ", " + sinfo(p->ret) + ", " + (p->purity ? "True" : "False") + ")";
      }
    }
    return "R.Object";
  }

  // ------------------------------------------------------------------ expressions

  std::string module_ref() {
    if (!in_module_) return "";
    if (!alias_printed_) {
      prelude_.push_back("cls = Module");
      alias_printed_ = true;
    }
    return "cls.";
  }

  std::string callee(const Expr& e) {
    if (auto* x = as<ExternFuncNode>(e)) return ir::quote(x->global_symbol);
    return expr(e);
  }

  std::string expr(const Expr& e) {
    switch (e->kind) {
      case ExprKind::Var:
        return ctx_.name_of(e.get(), as<VarNode>(e)->name);
      case ExprKind::Constant:
        return constant(e);
      case ExprKind::Tuple: {
        auto* t = as<TupleNode>(e);
        if (t->fields.empty()) return "R.tuple()";
        std::vector<std::string> parts;
        for (const auto& f : t->fields) parts.push_back(expr(f));
        return "(" + join(parts) + (parts.size() == 1 ? ",)" : ")");
      }
      case ExprKind::TupleGetItem: {
        auto* t = as<TupleGetItemNode>(e);
        return expr(t->tuple) + "[" + std::to_string(t->index) + "]";
      }
      case ExprKind::ShapeExpr:
        return "R.shape(" + dims(as<ShapeExprNode>(e)->values, false) + ")";
      case ExprKind::PrimValue:
        return "R.prim_value(" + dim(as<PrimValueNode>(e)->value) + ")";
      case ExprKind::StringImm:
        return "R.str(" + ir::quote(as<StringImmNode>(e)->value) + ")";
      case ExprKind::DataTypeImm:
        return "R.dtype(" + ir::quote(as<DataTypeImmNode>(e)->value.to_string()) + ")";
      case ExprKind::GlobalVar:
        return module_ref() + as<GlobalVarNode>(e)->name;
      case ExprKind::ExternFunc:
        return "R.ExternFunc(" + ir::quote(as<ExternFuncNode>(e)->global_symbol) + ")";
      case ExprKind::Op:
        return "R." + strip(as<OpNode>(e)->name);
      case ExprKind::Call:
        return call(*as<CallNode>(e));
      case ExprKind::If:
      case ExprKind::SeqExpr:
        TSCH_INTERNAL_ASSERT(false) << "a nested Relax block printed as an expression";
    }
    return "?";
  }

  static std::string strip(const std::string& op) { return op.rfind("relax.", 0) == 0 ? op.substr(6) : op; }

  std::string constant(const Expr& constant) {
    const ConstantNode& c = *as<ConstantNode>(constant);
    const runtime::NDArray& a = *c.data;
    if (a.ndim() == 0) {
      ir::DataType t = a.dtype();
      std::string v;
      if (t.is_bool())
        v = a.get_i(0) ? "True" : "False";
      else if (t.is_float())
        v = ir::float_text(a.get_f(0));
      else
        v = std::to_string(a.get_i(0));
      return "R.const(" + v + ", " + ir::quote(t.to_string()) + ")";
    }
    size_t index = ctx_.metadata_index("relax.expr.Constant", std::shared_ptr<const void>(constant));
    return fmt::format("metadata[\"relax.expr.Constant\"][{}]", index);
  }

  std::string sinfo_list_kw(const StructInfo& s) {
    if (auto* t = as<TupleSInfoNode>(s)) {
      std::vector<std::string> parts;
      for (const auto& f : t->fields) parts.push_back(sinfo(f));
      return "[" + join(parts) + "]";
    }
    return sinfo(s);
  }

  std::string call(const CallNode& c) {
    std::string op = op_name_of(c.op);
    if (op == "relax.call_tir" || op == "relax.call_dps_packed") {
      std::string s = "R." + strip(op) + "(" + callee(c.args[0]) + ", " + expr(c.args[1]) +
                      ", out_sinfo=" + sinfo_list_kw(c.sinfo_args.at(0));
      if (c.args.size() == 3) s += ", tir_vars=" + expr(c.args[2]);
      return s + ")";
    }
    if (op == "relax.print") {
      std::vector<std::string> args;
      for (size_t i = 1; i < c.args.size(); ++i) args.push_back(expr(c.args[i]));
      args.push_back("format=" + expr(c.args[0]));
      return "R.print(" + join(args) + ")";
    }
    if (op == "relax.assert_op") {
      std::vector<std::string> args{expr(c.args[0])};
      for (size_t i = 2; i < c.args.size(); ++i) args.push_back(expr(c.args[i]));
      args.push_back("format=" + expr(c.args[1]));
      return "R.assert_op(" + join(args) + ")";
    }
    std::string prefix;
    std::vector<std::string> args;
    if (auto* ext = as<ExternFuncNode>(c.op)) {
      prefix = "R.call_packed";
      args.push_back(ir::quote(ext->global_symbol));
    } else if (!op.empty()) {
      prefix = "R." + strip(op);
    } else {
      prefix = expr(c.op);
    }
    for (size_t i = 0; i < c.args.size(); ++i) args.push_back(i == 0 ? callee(c.args[i]) : expr(c.args[i]));
    std::vector<std::pair<std::string, ir::AttrValue>> attrs(c.attrs.begin(), c.attrs.end());
    std::sort(attrs.begin(), attrs.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [k, v] : attrs) args.push_back(k + "=" + ir::script(v));
    if (!c.sinfo_args.empty()) {
      std::vector<std::string> ss;
      for (const auto& s : c.sinfo_args) ss.push_back(sinfo(s));
      args.push_back("sinfo_args=(" + join(ss) + (ss.size() == 1 ? ",)" : ")"));
    }
    return prefix + "(" + join(args) + ")";
  }

  // ------------------------------------------------------------------ bindings and blocks

  // TVM's StructInfoAsAnn with show_all_struct_info: the annotation is left out only where a
  // call_tir / call_dps_packed already states the same struct info.
  bool hide_annotation(const Var& v, const Expr& value) {
    std::string op = op_name_of(value->kind == ExprKind::Call ? as<CallNode>(value)->op : nullptr);
    if (op != "relax.call_tir" && op != "relax.call_dps_packed") return false;
    return sinfo_equal(value->struct_info, v->struct_info);
  }

  void binding(const Binding& b, int indent) {
    if (b.is_match_cast()) {
      // TVM prints the annotation first (it may declare symbolic variables).
      std::string ann = sinfo(b.var->struct_info);
      std::string rhs = "R.match_cast(" + expr(b.value) + ", " + sinfo(b.match_sinfo) + ")";
      emit(indent, define_var(b.var) + ": " + ann + " = " + rhs);
      return;
    }
    if (auto* i = as<IfNode>(b.value)) {
      std::string ann = sinfo(b.var->struct_info);
      std::string cond = expr(i->cond);
      std::string lhs = define_var(b.var);
      emit(indent, "if " + cond + ":");
      branch(*i->true_branch, indent + 1, lhs + ": " + ann);
      emit(indent, "else:");
      branch(*i->false_branch, indent + 1, lhs + ": " + ann);
      return;
    }
    std::string rhs = expr(b.value);
    if (is_void(b.value->struct_info) && is_void(b.var->struct_info)) {
      // A statement: its variable is never printed, so it takes no name (as TVM).
      emit(indent, rhs);
      return;
    }
    std::string ann = hide_annotation(b.var, b.value) ? "" : ": " + sinfo(b.var->struct_info);
    emit(indent, define_var(b.var) + ann + " = " + rhs);
  }

  void branch(const SeqExprNode& s, int indent, const std::string& target) {
    ctx_.push_frame();
    for (const auto& block : s.blocks) {
      for (const auto& b : block.bindings) binding(b, indent);
    }
    emit(indent, target + " = " + expr(s.body));
    ctx_.pop_frame();
  }

  void seq_expr(const SeqExprNode& s, int indent, bool use_return) {
    for (const auto& block : s.blocks) {
      if (!block.is_dataflow) {
        for (const auto& b : block.bindings) binding(b, indent);
        continue;
      }
      emit(indent, "with R.dataflow():");
      std::vector<std::string> outputs;
      for (const auto& b : block.bindings) {
        binding(b, indent + 1);
        if (!b.var->is_dataflow) outputs.push_back(ctx_.name_of(b.var.get(), b.var->name));
      }
      emit(indent + 1, "R.output(" + join(outputs) + ")");
    }
    std::string body = expr(s.body);
    emit(indent, (use_return ? "return " : "") + body);
  }

  ir::PrintContext& ctx_;
  bool in_module_;
  bool collecting_ = false;
  bool alias_printed_ = false;
  int body_indent_ = 0;
  std::unordered_set<const ir::VarNode*> func_vars_;
  std::vector<std::string> prelude_;
  std::vector<std::pair<int, std::string>> lines_;
};

}  // namespace

void print_relax_function(ir::PrintContext& ctx, const Function& f, const std::string& name, int indent) {
  bool in_module = indent > 0;
  // Outside a module a function is named by its global symbol; a private one has none and
  // prints as `main`, as TVM's printer does.
  std::string shown = name;
  if (!in_module) {
    std::string symbol = ir::global_symbol(*f);
    shown = symbol.empty() ? "main" : symbol;
  }
  RelaxPrinter(ctx, in_module).function(f, shown, indent);
}

void register_relax_printer() {
  ir::function_printer_table()[ir::FuncKind::RelaxFunction] = [](ir::PrintContext& ctx, const ir::BaseFunc& f,
                                                                 const std::string& name, int indent) {
    print_relax_function(ctx, as_relax_function(f), name, indent);
  };
  ir::function_printer_table()[ir::FuncKind::ExternFunc] = [](ir::PrintContext& ctx, const ir::BaseFunc& f,
                                                              const std::string& name, int indent) {
    ctx.use(ir::Dialect::Relax);
    auto* ext = static_cast<const ExternFuncDeclNode*>(f.get());
    ctx.line(indent, name + " = R.ExternFunc(" + ir::quote(ext->global_symbol_name) + ")");
  };
}

}  // namespace tsch::relax
