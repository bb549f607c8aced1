// The Relax front end. Statements are handled here; expressions go through the script
// evaluator with Relax variables bound in the function's own scope.
#include "frontend/relax_parser.h"

#include <fmt/format.h>

#include <map>

#include "frontend/ir_module_frame.h"
#include "frontend/relax_specs.h"
#include "ir/op.h"
#include "relax/op.h"
#include "script/interpreter.h"
#include "values/ir_values.h"
#include "values/relax_values.h"

namespace tsch::frontend {

using bindings::ExprValue;
using bindings::RelaxExprValue;
using script::ExcKind;
using script::raise_at;
using script::ScriptError;
using script::Value;

namespace {

std::vector<RelaxFunctionFrame*>& frame_stack() {
  static thread_local std::vector<RelaxFunctionFrame*> stack;
  return stack;
}

struct FrameGuard {
  explicit FrameGuard(RelaxFunctionFrame* f) { frame_stack().push_back(f); }
  ~FrameGuard() { frame_stack().pop_back(); }
};

// Runs `f`, turning a C++ core's UserError into a script exception located at `loc`.
template <typename F>
auto at(SourceLoc loc, F&& f) -> decltype(f()) {
  try {
    return bindings::guard_core(std::forward<F>(f));
  } catch (ScriptError& e) {
    if (!e.pending.valid()) e.pending = loc;
    throw;
  }
}

bool is_output_call(const ast::Stmt& s, std::vector<Symbol>* names) {
  if (s.kind != ast::StmtKind::Expr) return false;
  const ast::Expr& e = *static_cast<const ast::ExprStmt&>(s).value;
  if (e.kind != ast::ExprKind::Call) return false;
  const auto& call = static_cast<const ast::Call&>(e);
  if (call.func->kind != ast::ExprKind::Attribute ||
      symbol_name(static_cast<const ast::Attribute&>(*call.func).attr) != "output") {
    return false;
  }
  if (names) {
    for (const auto& a : call.args) {
      if (a.value && a.value->kind == ast::ExprKind::Name) names->push_back(static_cast<const ast::Name&>(*a.value).id);
    }
  }
  return true;
}

// The names a statement assigns at its top level.
void assigned_names(const ast::Stmt& s, std::vector<Symbol>& out) {
  auto add_target = [&](const ast::Expr& t) {
    if (t.kind == ast::ExprKind::Name) out.push_back(static_cast<const ast::Name&>(t).id);
    if (t.kind == ast::ExprKind::Tuple) {
      for (const auto& e : static_cast<const ast::Tuple&>(t).elts) {
        if (e->kind == ast::ExprKind::Name) out.push_back(static_cast<const ast::Name&>(*e).id);
      }
    }
  };
  if (s.kind == ast::StmtKind::Assign) {
    for (const auto& t : static_cast<const ast::Assign&>(s).targets) add_target(*t);
  } else if (s.kind == ast::StmtKind::AnnAssign) {
    add_target(*static_cast<const ast::AnnAssign&>(s).target);
  }
}

// The least upper bound of two branches' struct infos (TVM's StructInfoLCA, simplified:
// equal infos stay, tensors keep what they agree on, anything else is an object).
relax::StructInfo join_sinfo(const relax::StructInfo& a, const relax::StructInfo& b) {
  if (relax::sinfo_equal(a, b)) return a;
  auto* x = relax::as<relax::TensorSInfoNode>(a);
  auto* y = relax::as<relax::TensorSInfoNode>(b);
  if (x && y) {
    ir::DataType t = x->dtype == y->dtype ? x->dtype : ir::DataType::void_();
    return relax::tensor_sinfo_ndim(x->ndim == y->ndim ? x->ndim : -1, t);
  }
  return relax::object_sinfo();
}

class RelaxParser {
 public:
  RelaxParser(script::Evaluator& defining, bool pure) : interp_(defining.interp), pure_(pure) {
    scope_.locals = std::make_shared<script::Namespace>();
    scope_.globals = defining.scope.globals;
    if (!defining.scope.is_module && !defining.scope.is_class_body) scope_.enclosing.push_back(defining.scope.locals);
    scope_.enclosing.insert(scope_.enclosing.end(), defining.scope.enclosing.begin(), defining.scope.enclosing.end());
    scope_.owner = defining.scope.owner;
    ev_ = std::make_unique<script::Evaluator>(interp_, scope_);
    // `metadata[...]` reads the module's metadata (show_meta=True text defines it first); a
    // text printed without it says what is missing.
    if (!scope_.globals->find(intern("metadata"))) {
      scope_.locals->set(intern("metadata"), Value(std::make_shared<bindings::MetadataPlaceholderValue>()));
    }
    // Inside a module class, the class's name refers to the module being defined (`cls.f`).
    if (IRModuleFrame* m = current_ir_module_frame(); m && !m->consumed) {
      auto ref = std::make_shared<ModuleRefValue>();
      ref->class_name = m->class_name;
      std::weak_ptr<const int> alive = alive_;
      script::Evaluator* ev = &defining;
      ref->signature_of = [alive, ev, m](const std::string& name) -> relax::StructInfo {
        if (alive.expired() || m->consumed) return nullptr;
        auto it = m->relax_signatures.find(name);
        if (it != m->relax_signatures.end()) return it->second;
        for (size_t i = 0; i < m->global_names.size(); ++i) {
          if (m->global_names[i] != name) continue;
          bool pure = true;
          const ast::Expr& deco = *m->global_defs[i]->decorators.back();
          if (deco.kind == ast::ExprKind::Call) {
            for (const auto& a : static_cast<const ast::Call&>(deco).args) {
              if (a.name && symbol_name(a.name) == "pure" && a.value->kind == ast::ExprKind::Constant) {
                pure = static_cast<const ast::Constant&>(*a.value).bool_value;
              }
            }
          }
          relax::StructInfo s = declare_relax_signature(*ev, *m->global_defs[i], pure);
          m->relax_signatures[name] = s;
          return s;
        }
        return nullptr;
      };
      scope_.locals->set(intern(m->class_name), Value(ref));
    }
  }

  // Step 1 only: the signature.
  relax::StructInfo signature(const ast::FunctionDef& def) {
    FrameGuard guard(&frame_);
    relax::StructInfo ret = def.returns ? annotation(*def.returns) : relax::object_sinfo();
    std::vector<relax::StructInfo> params;
    for (const auto& p : def.params) params.push_back(param_sinfo(p));
    return relax::func_sinfo(std::move(params), ret, pure_);
  }

  relax::Function parse(const ast::FunctionDef& def, bool is_private) {
    FrameGuard guard(&frame_);
    auto func = std::make_shared<relax::FunctionNode>();
    func->is_pure = pure_;
    // Step 1. The signature: its string dims create the symbolic variables.
    relax::StructInfo ret_ann = def.returns ? annotation(*def.returns) : nullptr;
    for (const auto& p : def.params) {
      relax::StructInfo s = param_sinfo(p);
      relax::Var v = relax::make_var(symbol_name(p.name), s);
      func->params.push_back(v);
      scope_.locals->set(p.name, bindings::wrap_relax(v));
    }
    for (const auto& [name, var] : frame_.symbolic) scope_.locals->set(intern(name), bindings::wrap(ir::PrimExpr(var)));
    // Step 2. The body.
    blocks_.clear();
    current_ = relax::BindingBlock{};
    for (size_t i = 0; i < def.body.size(); ++i) {
      const ast::Stmt& s = *def.body[i];
      if (s.kind == ast::StmtKind::Return) {
        if (i + 1 != def.body.size())
          raise_at(ExcKind::ValueError, "return must be the last statement of a Relax function", s.loc);
        const auto& r = static_cast<const ast::Return&>(s);
        if (!r.value) raise_at(ExcKind::TypeError, "a Relax function returns a value: write `return x`", s.loc);
        result_ = to_expr(ev_->eval(*r.value), "the returned value", r.value->loc);
        result_loc_ = r.value->loc;
        continue;
      }
      statement(s, i);
    }
    if (!result_) raise_at(ExcKind::ValueError, "a Relax function must end with `return <value>`", def.name_loc);
    close_block();
    func->body = std::make_shared<relax::SeqExprNode>(blocks_, result_);
    // Step 3. The result's struct info: the annotation when given (it must describe what the
    // body returns), else the body's, with variables the parameters do not define erased.
    std::vector<ir::Var> param_vars;
    for (const auto& p : func->params) relax::collect_sinfo_vars(p->struct_info, param_vars);
    relax::StructInfo inferred = relax::erase_to_well_defined(relax::sinfo_of(result_), [&](const ir::VarNode* v) {
      for (const auto& pv : param_vars) {
        if (pv.get() == v) return true;
      }
      return false;
    });
    if (ret_ann) {
      bool maybe = false;
      if (!relax::sinfo_is_base_of(ret_ann, relax::sinfo_of(result_), &maybe)) {
        raise_at(ExcKind::TypeError,
                 fmt::format("the function is annotated to return {}, but its body returns {}",
                             relax::sinfo_text(ret_ann), relax::sinfo_text(relax::sinfo_of(result_))),
                 result_loc_);
      }
      func->ret_sinfo = ret_ann;
    } else {
      func->ret_sinfo = inferred;
    }
    if (frame_.attrs) func->attrs = *frame_.attrs;
    if (!is_private && !ir::find_attr(func->attrs, "global_symbol")) {
      func->attrs.emplace_back("global_symbol", ir::AttrValue::of_str(symbol_name(def.name)));
    }
    return func;
  }

 private:
  relax::StructInfo annotation(const ast::Expr& e) {
    Value v = ev_->eval(e);
    return at(e.loc, [&] { return to_struct_info(interp_, v, "a Relax annotation"); });
  }

  relax::StructInfo param_sinfo(const ast::Param& p) {
    if (p.kind != ast::Param::Kind::Normal)
      raise_at(ExcKind::TypeError, "Relax function parameters must be plain names", p.loc);
    if (!p.annotation) {
      raise_at(ExcKind::TypeError,
               fmt::format("parameter '{}' needs a struct info annotation such as R.Tensor((1, \"n\"), \"float32\")",
                           symbol_name(p.name)),
               p.loc);
    }
    return annotation(*p.annotation);
  }

  relax::Expr to_expr(const Value& v, const std::string& what, SourceLoc loc) {
    return at(loc, [&] { return bindings::to_relax_expr(interp_, v, what); });
  }

  void close_block() {
    if (!current_.bindings.empty()) blocks_.push_back(std::move(current_));
    current_ = relax::BindingBlock{};
  }

  // ------------------------------------------------------------------ statements

  void statement(const ast::Stmt& s, size_t index) {
    try {
      switch (s.kind) {
        case ast::StmtKind::Pass:
          return;
        case ast::StmtKind::Expr:
          return expr_statement(static_cast<const ast::ExprStmt&>(s));
        case ast::StmtKind::Assign: {
          const auto& a = static_cast<const ast::Assign&>(s);
          if (a.targets.size() != 1)
            raise_at(ExcKind::ValueError, "chained assignments (a = b = c) are not allowed in Relax", s.loc);
          Value v = ev_->eval(*a.value);
          return assign(*a.targets[0], v, nullptr, a.value->loc, index);
        }
        case ast::StmtKind::AnnAssign: {
          const auto& a = static_cast<const ast::AnnAssign&>(s);
          if (!a.value) raise_at(ExcKind::ValueError, "a Relax binding needs a value", s.loc);
          Value v = ev_->eval(*a.value);
          relax::StructInfo ann = annotation(*a.annotation);
          return assign(*a.target, v, ann, a.value->loc, index);
        }
        case ast::StmtKind::With:
          return with(static_cast<const ast::With&>(s));
        case ast::StmtKind::If:
          return if_else(static_cast<const ast::If&>(s));
        case ast::StmtKind::FunctionDef:
          raise_at(ExcKind::NotImplementedError, "not supported yet: functions defined inside a Relax function", s.loc);
        case ast::StmtKind::For:
        case ast::StmtKind::While:
          raise_at(ExcKind::ValueError, "Relax functions have no loops (use a prim_func, or recursion)", s.loc);
        default:
          raise_at(ExcKind::ValueError, "this statement is not allowed in a Relax function", s.loc);
      }
    } catch (ScriptError& e) {
      if (!e.pending.valid()) e.pending = s.loc;
      throw;
    }
  }

  void expr_statement(const ast::ExprStmt& s) {
    if (s.value->kind == ast::ExprKind::Constant) return;  // docstring
    Value v = ev_->eval(*s.value);
    if (v.is_none()) return;
    if (bindings::is_relax_expr(v)) {
      relax::Expr e = to_expr(v, "the statement", s.value->loc);
      if (!relax::is_void(relax::sinfo_of(e))) {
        raise_at(ExcKind::TypeError,
                 fmt::format("a Relax expression of struct info {} must be bound to a variable",
                             relax::sinfo_text(relax::sinfo_of(e))),
                 s.value->loc);
      }
      emit(relax::make_var("_", relax::void_sinfo(), frame_.in_dataflow), e, nullptr, s.value->loc);
      return;
    }
    raise_at(ExcKind::TypeError,
             fmt::format("a {} cannot be a statement of a Relax function", script::Interpreter::type_name(v)),
             s.value->loc);
  }

  // Adds `var = value` (or a match_cast) to the current block, checking purity.
  void emit(const relax::Var& var, const relax::Expr& value, const relax::StructInfo& match, SourceLoc loc) {
    if (auto* call = relax::as<relax::CallNode>(value); call && !relax::is_pure_call(*call)) {
      std::string what = relax::op_name_of(call->op);
      if (what.empty())
        what = "this call";
      else
        what = "R." + what.substr(what.rfind("relax.", 0) == 0 ? 6 : 0);
      if (frame_.in_dataflow) {
        raise_at(ExcKind::ValueError, fmt::format("{} has side effects and cannot be in a dataflow block", what), loc);
      }
      bool forced = frame_.attrs && ir::find_attr(*frame_.attrs, "relax.force_pure");
      if (pure_ && !forced) {
        raise_at(
            ExcKind::ValueError,
            fmt::format("{} has side effects: a function that calls it must be declared @R.function(pure=False)", what),
            loc);
      }
    }
    current_.bindings.push_back(relax::Binding{var, value, match});
  }

  // `index` is the statement's position in its block (dataflow outputs are known by it).
  void assign(const ast::Expr& target, const Value& value, const relax::StructInfo& ann, SourceLoc value_loc,
              size_t index) {
    if (target.kind == ast::ExprKind::Tuple) {
      const auto& elts = static_cast<const ast::Tuple&>(target).elts;
      std::vector<Value> items;
      if (!bindings::is_relax_expr(value)) items = interp_.to_vector(value);
      if (items.size() != elts.size()) {
        raise_at(ExcKind::NotImplementedError,
                 "not supported yet: unpacking a Relax value into several names (index it: t[0])", target.loc);
      }
      for (size_t i = 0; i < elts.size(); ++i) assign(*elts[i], items[i], nullptr, value_loc, index);
      return;
    }
    if (target.kind != ast::ExprKind::Name)
      raise_at(ExcKind::ValueError, "only names can be bound in a Relax function", target.loc);
    Symbol name = static_cast<const ast::Name&>(target).id;
    std::string text = symbol_name(name);
    // `n = T.int64()`: a symbolic variable (the signature's, when it already names one).
    if (auto* ev = value.as<ExprValue>(); ev && ev->fresh) {
      auto* v = ir::as<ir::VarNode>(ev->expr);
      if (ir::Var existing = frame_.find_symbolic(text)) {
        if (existing->dtype != v->dtype) {
          raise_at(ExcKind::TypeError,
                   fmt::format("symbolic variable {} is {} in the signature but declared {} here", text,
                               existing->dtype.to_string(), v->dtype.to_string()),
                   value_loc);
        }
        scope_.locals->set(name, bindings::wrap(ir::PrimExpr(existing)));
        return;
      }
      v->name = text;
      ev->fresh = false;
      frame_.symbolic.emplace_back(text, std::static_pointer_cast<const ir::VarNode>(ev->expr));
      scope_.locals->set(name, value);
      return;
    }
    if (auto* mc = value.as<MatchCastValue>()) {
      if (ann && !relax::sinfo_equal(ann, mc->sinfo)) {
        raise_at(ExcKind::TypeError, "the annotation of a match_cast binding must be the struct info it casts to",
                 target.loc);
      }
      relax::Var v = relax::make_var(text, mc->sinfo, is_dataflow_binding(name, index));
      emit(v, mc->value, mc->sinfo, value_loc);
      scope_.locals->set(name, bindings::wrap_relax(v));
      return;
    }
    bool relax_value = bindings::is_relax_expr(value) || value.is_number() || value.as<ExprValue>() ||
                       value.as<bindings::HiddenDataflowVarValue>();
    if (!relax_value && (value.as<script::Tuple>() || value.as<script::List>())) {
      relax_value = true;
      for (const auto& item : interp_.to_vector(value)) relax_value &= bindings::is_relax_expr(item);
    }
    if (!relax_value) {
      // Any other Python value is an ordinary name for the rest of the body (meta-programming).
      scope_.locals->set(name, value);
      return;
    }
    relax::Expr e = to_expr(value, "the bound value", value_loc);
    relax::StructInfo s = relax::sinfo_of(e);
    if (ann) {
      bool maybe = false;
      if (!relax::sinfo_is_base_of(ann, s, &maybe)) {
        raise_at(
            ExcKind::TypeError,
            fmt::format("{} is annotated {}, but its value is {}", text, relax::sinfo_text(ann), relax::sinfo_text(s)),
            target.loc);
      }
      s = ann;
    }
    relax::Var v = relax::make_var(text, s, is_dataflow_binding(name, index));
    emit(v, e, nullptr, value_loc);
    scope_.locals->set(name, bindings::wrap_relax(v));
  }

  // In a dataflow block every binding makes a dataflow variable, except the last binding of
  // each name the block lists in R.output(...).
  bool is_dataflow_binding(Symbol name, size_t index) {
    if (!frame_.in_dataflow) return false;
    for (const auto& [out, last] : dataflow_outputs_) {
      if (out == name && last == index) return false;
    }
    return true;
  }

  void with(const ast::With& w) {
    if (w.items.size() != 1 || w.items[0].target) {
      raise_at(ExcKind::ValueError, "a Relax `with` takes one R.dataflow() and binds no name", w.loc);
    }
    Value header = ev_->eval(*w.items[0].context);
    if (!header.as<DataflowHeaderValue>()) {
      raise_at(ExcKind::TypeError,
               fmt::format("a Relax `with` takes R.dataflow(), got {}", script::Interpreter::type_name(header)),
               w.items[0].context->loc);
    }
    if (frame_.in_dataflow) raise_at(ExcKind::ValueError, "dataflow blocks cannot be nested", w.loc);
    close_block();
    current_.is_dataflow = true;
    frame_.in_dataflow = true;
    frame_.output_seen = false;
    frame_.outputs.clear();
    // The outputs are known from the block's R.output(...) before its bindings are made.
    dataflow_outputs_.clear();
    std::vector<Symbol> outputs;
    for (const auto& st : w.body) is_output_call(*st, &outputs);
    for (Symbol out : outputs) {
      size_t last = w.body.size();
      for (size_t i = 0; i < w.body.size(); ++i) {
        std::vector<Symbol> names;
        assigned_names(*w.body[i], names);
        for (Symbol n : names) {
          if (n == out) last = i;
        }
      }
      dataflow_outputs_.emplace_back(out, last);
    }
    // Names bound in the block are visible after it only when they are outputs.
    std::vector<std::pair<Symbol, std::optional<Value>>> saved;
    for (const auto& st : w.body) {
      std::vector<Symbol> names;
      assigned_names(*st, names);
      for (Symbol n : names) {
        Value* old = scope_.locals->find(n);
        saved.emplace_back(n, old ? std::optional<Value>(*old) : std::nullopt);
      }
    }
    for (size_t i = 0; i < w.body.size(); ++i) {
      const ast::Stmt& st = *w.body[i];
      if (frame_.output_seen)
        raise_at(ExcKind::ValueError, "R.output(...) must be the last statement of a dataflow block", st.loc);
      if (st.kind == ast::StmtKind::Return)
        raise_at(ExcKind::ValueError, "return cannot be inside a dataflow block", st.loc);
      if (st.kind == ast::StmtKind::If)
        raise_at(ExcKind::ValueError, "if/else cannot be inside a dataflow block", st.loc);
      statement(st, i);
    }
    frame_.in_dataflow = false;
    dataflow_outputs_.clear();
    close_block();
    // Restore the names the block bound (in reverse), hiding its dataflow variables.
    std::map<Symbol, bool> is_output;
    for (const auto& v : frame_.outputs) is_output[intern(v->name)] = true;
    for (auto it = saved.rbegin(); it != saved.rend(); ++it) {
      Symbol n = it->first;
      if (is_output.count(n)) continue;
      Value* now = scope_.locals->find(n);
      auto* rv = now ? now->as<RelaxExprValue>() : nullptr;
      if (rv && rv->expr->kind == relax::ExprKind::Var && relax::as<relax::VarNode>(rv->expr)->is_dataflow) {
        auto hidden = std::make_shared<bindings::HiddenDataflowVarValue>();
        hidden->name = symbol_name(n);
        hidden->block_line = w.loc.line;
        scope_.locals->set(n, it->second ? *it->second : Value(hidden));
      }
    }
  }

  // One branch of an `if`: its bindings, and the value of its last assignment as its result.
  struct Branch {
    relax::SeqExpr seq;
    Symbol name = 0;
    relax::StructInfo ann;
  };

  Branch branch(const ast::Body& body, SourceLoc loc) {
    if (body.empty()) raise_at(ExcKind::ValueError, "a branch needs at least one statement", loc);
    auto saved_blocks = std::move(blocks_);
    auto saved_current = std::move(current_);
    blocks_.clear();
    current_ = relax::BindingBlock{};
    for (size_t i = 0; i + 1 < body.size(); ++i) statement(*body[i], i);
    const ast::Stmt& last = *body.back();
    Branch b;
    const ast::Expr* target = nullptr;
    const ast::Expr* value = nullptr;
    if (last.kind == ast::StmtKind::Assign && static_cast<const ast::Assign&>(last).targets.size() == 1) {
      target = static_cast<const ast::Assign&>(last).targets[0].get();
      value = static_cast<const ast::Assign&>(last).value.get();
    } else if (last.kind == ast::StmtKind::AnnAssign && static_cast<const ast::AnnAssign&>(last).value) {
      target = static_cast<const ast::AnnAssign&>(last).target.get();
      value = static_cast<const ast::AnnAssign&>(last).value.get();
      b.ann = annotation(*static_cast<const ast::AnnAssign&>(last).annotation);
    }
    if (!target || target->kind != ast::ExprKind::Name) {
      raise_at(ExcKind::ValueError, "each branch of a Relax `if` must end by assigning its result to a name", last.loc);
    }
    b.name = static_cast<const ast::Name&>(*target).id;
    relax::Expr result = to_expr(ev_->eval(*value), "the branch's result", value->loc);
    close_block();
    auto seq = std::make_shared<relax::SeqExprNode>(blocks_, result);
    seq->struct_info = relax::sinfo_of(result);
    b.seq = seq;
    blocks_ = std::move(saved_blocks);
    current_ = std::move(saved_current);
    return b;
  }

  void if_else(const ast::If& s) {
    if (frame_.in_dataflow) raise_at(ExcKind::ValueError, "if/else cannot be inside a dataflow block", s.loc);
    Value cond_value = ev_->eval(*s.test);
    if (!bindings::is_relax_expr(cond_value)) {
      raise_at(ExcKind::TypeError, "a Relax `if` tests a Relax boolean value (a scalar bool tensor)", s.test->loc);
    }
    relax::Expr cond = to_expr(cond_value, "the condition", s.test->loc);
    const relax::StructInfo& cs = relax::sinfo_of(cond);
    auto* ct = relax::as<relax::TensorSInfoNode>(cs);
    auto* cp = relax::as<relax::PrimSInfoNode>(cs);
    if (!(ct && (ct->unknown_dtype() || ct->dtype.is_bool()) && (ct->ndim == 0 || ct->ndim == -1)) &&
        !(cp && cp->dtype.is_bool())) {
      raise_at(ExcKind::TypeError, "a Relax `if` tests a scalar bool tensor, got " + relax::sinfo_text(cs),
               s.test->loc);
    }
    if (s.orelse.empty()) raise_at(ExcKind::ValueError, "a Relax `if` needs an `else` branch", s.loc);
    Branch t = branch(s.body, s.loc);
    Branch f = branch(s.orelse, s.loc);
    if (t.name != f.name) {
      raise_at(ExcKind::ValueError,
               fmt::format("both branches of a Relax `if` must assign the same name (got {} and {})",
                           symbol_name(t.name), symbol_name(f.name)),
               s.loc);
    }
    relax::StructInfo sinfo = t.ann ? t.ann : f.ann ? f.ann : join_sinfo(t.seq->struct_info, f.seq->struct_info);
    auto node = std::make_shared<relax::IfNode>(cond, t.seq, f.seq);
    node->struct_info = sinfo;
    relax::Var v = relax::make_var(symbol_name(t.name), sinfo, false);
    emit(v, node, nullptr, s.loc);
    scope_.locals->set(t.name, bindings::wrap_relax(v));
  }

  script::Interpreter& interp_;
  bool pure_;
  // Lets the module reference compute signatures while this parser (and its evaluator) lives.
  std::shared_ptr<const int> alive_ = std::make_shared<const int>(0);
  script::Scope scope_;
  std::unique_ptr<script::Evaluator> ev_;
  RelaxFunctionFrame frame_;
  std::vector<relax::BindingBlock> blocks_;
  relax::BindingBlock current_;
  relax::Expr result_;
  SourceLoc result_loc_;
  std::vector<std::pair<Symbol, size_t>> dataflow_outputs_;
};

}  // namespace

ir::Var RelaxFunctionFrame::find_symbolic(const std::string& name) const {
  for (const auto& [n, v] : symbolic) {
    if (n == name) return v;
  }
  return nullptr;
}

ir::Var RelaxFunctionFrame::symbolic_var(const std::string& name) {
  if (ir::Var v = find_symbolic(name)) return v;
  ir::Var v = ir::make_var(name, ir::DataType::int64());
  symbolic.emplace_back(name, v);
  return v;
}

RelaxFunctionFrame* current_relax_frame() { return frame_stack().empty() ? nullptr : frame_stack().back(); }

relax::Function parse_relax_function(script::Evaluator& defining, const ast::FunctionDef& def, bool pure,
                                     bool is_private) {
  RelaxParser parser(defining, pure);
  return parser.parse(def, is_private);
}

relax::StructInfo declare_relax_signature(script::Evaluator& defining, const ast::FunctionDef& def, bool pure) {
  RelaxParser parser(defining, pure);
  return parser.signature(def);
}

}  // namespace tsch::frontend
