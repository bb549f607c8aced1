// The prim_func front end. Statements are handled here; expressions go through the script
// evaluator with IR names bound in the innermost scope.
#include "frontend/tir_parser.h"

#include <fmt/format.h>

#include <cstdio>

#include "arith/block_access.h"
#include "arith/int_set.h"
#include "arith/verify_well_formed.h"
#include "frontend/tir_builder.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "ir/printer.h"
#include "script/modules.h"
#include "script/types.h"
#include "values/dtype_value.h"
#include "values/ir_type_values.h"
#include "values/ir_values.h"

namespace tsch::frontend {

using namespace ir;
using bindings::BufferValue;
using bindings::ExprValue;
using script::ExcKind;
using script::raise_at;
using script::ScriptError;

namespace {

// A parameter's elem_offset from its T.Buffer annotation: the buffer's own variable (made by
// offset_factor without elem_offset) is fresh per parameter and named after it.
PrimExpr own_elem_offset(const PrimExpr& e, const std::string& buffer_name) {
  auto* v = e ? as<VarNode>(e) : nullptr;
  if (!v || v->name != "elem_offset") return e;
  return make_var(buffer_name + "_elem_offset", v->dtype);
}

// Restores a name's previous binding when an IR scope (loop, block) ends.
class NameScope {
 public:
  explicit NameScope(script::Namespace& ns) : ns_(ns) {}
  ~NameScope() {
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
      if (it->second)
        ns_.set(it->first, *it->second);
      else
        ns_.erase(it->first);
    }
  }
  void bind(Symbol name, Value value) {
    Value* old = ns_.find(name);
    saved_.emplace_back(name, old ? std::optional<Value>(*old) : std::nullopt);
    ns_.set(name, std::move(value));
  }

 private:
  script::Namespace& ns_;
  std::vector<std::pair<Symbol, std::optional<Value>>> saved_;
};

class TirParser {
 public:
  TirParser(script::Evaluator& defining, bool check) : interp_(defining.interp), check_(check) {
    scope_.locals = std::make_shared<script::Namespace>();
    scope_.globals = defining.scope.globals;
    if (!defining.scope.is_module && !defining.scope.is_class_body) scope_.enclosing.push_back(defining.scope.locals);
    scope_.enclosing.insert(scope_.enclosing.end(), defining.scope.enclosing.begin(), defining.scope.enclosing.end());
    scope_.owner = defining.scope.owner;
    // Inside a prim_func, `range` makes IR loops.
    Value t_range = lookup_t("_range_sugar");
    if (!t_range.is_none()) scope_.locals->set(intern("range"), t_range);
    ev_ = std::make_unique<script::Evaluator>(interp_, scope_);
    ev_->tvmscript = true;
  }

  PrimFunc parse(const ast::FunctionDef& def, bool is_private) {
    auto func = std::make_shared<PrimFuncNode>();
    // Step 1: parameters.
    for (const auto& p : def.params) {
      if (p.kind != ast::Param::Kind::Normal)
        raise_at(ExcKind::TypeError, "prim_func parameters must be plain names", p.loc);
      if (!p.annotation) {
        raise_at(ExcKind::TypeError,
                 fmt::format("parameter '{}' needs a type annotation such as T.Buffer((128,), \"float32\") or T.handle",
                             symbol_name(p.name)),
                 p.loc);
      }
      Value ann = ev_->eval(*p.annotation);
      std::string name = symbol_name(p.name);
      if (auto* bt = ann.as<BufferTypeValue>()) {
        auto node = std::make_shared<BufferNode>(*make_buffer(name, bt->dtype, bt->shape, bt->scope));
        node->strides = bt->strides;
        node->elem_offset = own_elem_offset(bt->elem_offset, name);
        node->align = bt->align;
        node->offset_factor = bt->offset_factor;
        node->axis_separators = bt->axis_separators;
        Buffer b = node;
        Var handle = make_var(name, DataType::handle());
        builder_.params.push_back(handle);
        builder_.buffer_map.emplace_back(handle, b);
        scope_.locals->set(p.name, bindings::wrap(b));
      } else if (auto* dt = ann.as<bindings::TirDTypeValue>()) {
        Var v = make_var(name, dt->dtype);
        builder_.params.push_back(v);
        scope_.locals->set(p.name, bindings::wrap(PrimExpr(v)));
      } else if (auto* fresh = ann.as<ExprValue>(); fresh && fresh->fresh && as<VarNode>(fresh->expr)) {
        // `a: T.handle("float32")`, `n: T.int32()`: a variable of that type, as TVM's T.arg.
        Var v = copy_var(*as<VarNode>(fresh->expr), name);
        builder_.params.push_back(v);
        scope_.locals->set(p.name, bindings::wrap(PrimExpr(v)));
      } else {
        raise_at(ExcKind::TypeError,
                 fmt::format("parameter '{}': expected T.Buffer(...), T.handle or a dtype such as T.int32, got {}",
                             name, interp_.repr(ann)),
                 p.annotation->loc);
      }
    }
    // Step 2: the body.
    std::vector<Stmt> stmts = parse_body(def.body, 0);
    Stmt body = make_seq(stmts);
    if (!body) body = std::make_shared<EvaluateNode>(make_int(0));
    bool has_block = false;
    for_each_stmt(body, [&](const Stmt& s) { has_block |= s->kind == StmtKind::BlockRealize; });
    auto* realize = as<BlockRealizeNode>(body);
    bool explicit_root = realize && realize->iter_values.empty() && builder_.root_allocs.empty() && stmts.size() == 1;
    if ((has_block || !builder_.root_allocs.empty()) && !explicit_root) {
      auto root = std::make_shared<BlockNode>();
      root->name = "root";
      root->alloc_buffers = builder_.root_allocs;
      root->body = body;
      body = std::make_shared<BlockRealizeNode>(std::vector<PrimExpr>{}, make_bool(true), root);
    }
    func->params = builder_.params;
    func->buffer_map = builder_.buffer_map;
    func->attrs = builder_.func_attrs;
    // As TVM's parser: a public function carries its global symbol; a private one none.
    if (!is_private && !find_attr(func->attrs, "global_symbol")) {
      func->attrs.emplace_back("global_symbol", AttrValue::of_str(symbol_name(def.name)));
    }
    func->body = body;
    return func;
  }

 private:
  Value lookup_t(const char* name) {
    script::CallArgs none;
    (void)none;
    try {
      auto t = interp_.modules().import(interp_, "tvm.script.tir", "");
      if (Value* v = t->globals->find(intern(name))) return *v;
    } catch (const ScriptError&) {
    }
    return Value();
  }

  // ---------------------------------------------------------------- statements

  std::vector<Stmt> parse_body(const ast::Body& body, size_t start) {
    std::vector<Stmt> out;
    for (size_t i = start; i < body.size(); ++i) {
      const ast::Stmt& s = *body[i];
      Var let_var;
      PrimExpr let_value;
      try {
        Stmt stmt = parse_stmt(s, let_var, let_value);
        if (stmt) out.push_back(stmt);
      } catch (ScriptError& e) {
        if (!e.pending.valid()) e.pending = s.loc;
        throw;
      }
      if (pending_launch_) {
        // `x = T.launch_thread(...)` launches the threads over the rest of the block.
        PendingLaunch launch = std::move(*pending_launch_);
        pending_launch_.reset();
        out.push_back(launched(launch, [&] { return make_seq(parse_body(body, i + 1)); }));
        return out;
      }
      if (pending_attr_) {
        AttrFrameValue attr = std::move(*pending_attr_);
        pending_attr_.reset();
        out.push_back(attr_stmt(attr, parse_body(body, i + 1)));
        return out;
      }
      std::optional<TirBuilder::PendingDecl> decl = std::move(builder_.pending_decl);
      builder_.pending_decl.reset();
      std::shared_ptr<const AllocateConstNode> constant = std::move(builder_.pending_const);
      builder_.pending_const.reset();
      if (let_var || decl || constant) {
        // A let, a buffer declaration or constant data scopes over the rest of the block.
        if (decl) builder_.decls.push_back(decl->buffer);
        std::vector<Stmt> rest;
        try {
          rest = parse_body(body, i + 1);
        } catch (...) {
          if (decl) builder_.decls.pop_back();
          throw;
        }
        if (decl) builder_.decls.pop_back();
        Stmt rest_body = make_seq(rest);
        if (!rest_body) rest_body = std::make_shared<EvaluateNode>(make_int(0));
        if (constant) {
          auto node = std::make_shared<AllocateConstNode>(*constant);
          node->body = rest_body;
          out.push_back(node);
        } else if (decl && decl->allocates)
          out.push_back(std::make_shared<AllocateNode>(decl->buffer, rest_body));
        else if (decl)
          out.push_back(std::make_shared<DeclBufferNode>(decl->buffer, rest_body));
        else
          out.push_back(std::make_shared<LetStmtNode>(let_var, let_value, rest_body));
        return out;
      }
    }
    return out;
  }

  Stmt parse_stmt(const ast::Stmt& s, Var& let_var, PrimExpr& let_value) {
    switch (s.kind) {
      case ast::StmtKind::Pass:
        return nullptr;
      case ast::StmtKind::Expr: {
        const auto& e = static_cast<const ast::ExprStmt&>(s);
        if (e.value->kind == ast::ExprKind::Constant) return nullptr;  // docstring
        Value v = ev_->eval(*e.value);
        if (auto* ev = v.as<ExprValue>()) return std::make_shared<EvaluateNode>(ev->expr);
        // `T.launch_thread(tx, n)` as a statement scopes over the rest of the block, as TVM's
        // frames do.
        if (auto* launch = v.as<LaunchThreadValue>()) {
          std::string name = launch->env_name.empty() ? launch->thread : launch->env_name;
          std::replace(name.begin(), name.end(), '.', '_');
          pending_launch_ = PendingLaunch{*launch, make_var(name, launch->extent->dtype)};
        }
        // `T.attr(node, key, value)` likewise (TVM's concise AttrStmt).
        if (auto* attr = v.as<AttrFrameValue>()) pending_attr_ = *attr;
        return nullptr;
      }
      case ast::StmtKind::Assign:
        return parse_assign(static_cast<const ast::Assign&>(s), let_var, let_value);
      case ast::StmtKind::AugAssign:
        return parse_aug_assign(static_cast<const ast::AugAssign&>(s));
      case ast::StmtKind::AnnAssign: {
        const auto& a = static_cast<const ast::AnnAssign&>(s);
        Value ann = ev_->eval(*a.annotation);
        auto* dt = ann.as<bindings::TirDTypeValue>();
        // `p: T.handle("float32") = T.address_of(...)`: a pointer variable (TVM's PointerType).
        const VarNode* pointer = bindings::pointer_var_annotation(ann);
        if ((!dt && !pointer) || a.target->kind != ast::ExprKind::Name || !a.value) {
          raise_at(ExcKind::TypeError, "a let binding is written `x: T.int32 = value`", s.loc);
        }
        DataType type = pointer ? pointer->dtype : dt->dtype;
        Value given = ev_->eval(*a.value);
        if (pointer) {
          auto* e = given.as<bindings::ExprValue>();
          if (!e || !e->expr->dtype.is_handle()) {
            raise_at(
                ExcKind::TypeError,
                "a pointer variable's value must be a handle such as T.address_of(A[0]), got " + interp_.repr(given),
                a.value->loc);
          }
        }
        PrimExpr value = bindings::to_expr_as(interp_, given, type, "let value");
        if (value->dtype != type) value = cast(type, value);
        Symbol name = static_cast<const ast::Name&>(*a.target).id;
        let_var = pointer ? copy_var(*pointer, symbol_name(name)) : make_var(symbol_name(name), type);
        let_value = value;
        scope_.locals->set(name, bindings::wrap(PrimExpr(let_var)));
        return nullptr;
      }
      case ast::StmtKind::For:
        return parse_for(static_cast<const ast::For&>(s));
      case ast::StmtKind::With:
        return parse_with(static_cast<const ast::With&>(s));
      case ast::StmtKind::If:
        return parse_if(static_cast<const ast::If&>(s));
      case ast::StmtKind::While:
        raise_at(ExcKind::NotImplementedError, "not supported yet: while loops in a prim_func", s.loc);
      case ast::StmtKind::Return:
        raise_at(ExcKind::NotImplementedError, "not supported yet: return in a prim_func", s.loc);
      default:
        raise_at(ExcKind::TypeError, "this statement is not allowed in a prim_func", s.loc);
    }
  }

  std::vector<PrimExpr> index_list(const Value& key, const Buffer& b, SourceLoc loc) {
    std::vector<Value> items = key.as<script::Tuple>() ? key.as<script::Tuple>()->items : std::vector<Value>{key};
    if (items.size() == 1 && items[0].as<script::Tuple>() && items[0].as<script::Tuple>()->items.empty()) items.clear();
    if (items.size() != b->shape.size()) {
      raise_at(ExcKind::IndexError,
               fmt::format("buffer {} has {} dimension{}, but {} ind{} given", b->name, b->shape.size(),
                           b->shape.size() == 1 ? "" : "s", items.size(), items.size() == 1 ? "ex was" : "ices were"),
               loc);
    }
    std::vector<PrimExpr> out;
    for (const auto& item : items) {
      if (item.as<script::SliceObject>())
        raise_at(ExcKind::TypeError, "a store needs a single element, not a slice", loc);
      PrimExpr idx = bindings::to_expr(interp_, item, "buffer index");
      if (!idx->dtype.is_integer()) {
        raise_at(ExcKind::TypeError, fmt::format("buffer index must be an integer, got {}", idx->dtype.to_string()),
                 loc);
      }
      out.push_back(idx);
    }
    return out;
  }

  Stmt make_store(const Buffer& b, std::vector<PrimExpr> indices, const Value& rhs, SourceLoc loc) {
    // A vector index (T.Ramp, lowered code) stores a vector; so does an element of a buffer of
    // a vector dtype: the lanes are the index's times the element's, as TVM's BufferStore.
    int lanes = 1;
    for (const auto& i : indices) lanes = std::max(lanes, static_cast<int>(i->dtype.lanes));
    DataType expected = b->dtype.with_lanes(lanes * b->dtype.lanes);
    PrimExpr value = bindings::to_expr_as(interp_, rhs, expected, "stored value");
    if (value->dtype != expected) {
      // As TVM's ir_builder: a value of another type with the same lanes is cast (with TVM's
      // warning where the cast may lose precision); other lanes are a TypeError.
      if (value->dtype.lanes != expected.lanes) {
        raise_at(
            ExcKind::TypeError,
            fmt::format("Incompatible types in BufferStore: LHS is `{}`, RHS is `{}`, indexing lanes: {} (buffer {})",
                        expected.to_string(), value->dtype.to_string(), lanes, b->name),
            loc);
      }
      bool lossy = expected.is_handle() || value->dtype.is_handle() ||
                   ((expected.is_int() || expected.is_uint()) &&
                    (value->dtype.is_float() || value->dtype.code == DataType::Code::BFloat));
      if (lossy && value->dtype.code != expected.code) {
        std::fprintf(
            stderr,
            "warning: Casting in BufferStore may lose precision: LHS is `%s`, RHS is `%s`, indexing lanes: %d\n",
            expected.to_string().c_str(), value->dtype.to_string().c_str(), lanes);
      }
      value = bindings::guard_ir([&] { return ir::cast(expected, value); });
    }
    return std::make_shared<BufferStoreNode>(b, value, std::move(indices));
  }

  Stmt parse_assign(const ast::Assign& a, Var& let_var, PrimExpr& let_value) {
    if (a.targets.size() == 1 && a.targets[0]->kind == ast::ExprKind::Subscript) {
      const auto& sub = static_cast<const ast::Subscript&>(*a.targets[0]);
      Value obj = ev_->eval(*sub.value);
      if (auto* bv = obj.as<BufferValue>()) {
        Value key = ev_->eval_index(*sub.index);
        std::vector<PrimExpr> idx = index_list(key, bv->buffer, sub.loc);
        Value rhs = ev_->eval(*a.value);
        return make_store(bv->buffer, idx, rhs, a.value->loc);
      }
      raise_at(ExcKind::TypeError,
               fmt::format("cannot assign to an element of {} in a prim_func", script::Interpreter::type_name(obj)),
               sub.loc);
    }
    Value value = ev_->eval(*a.value);
    // `x = T.meta_var(e)` binds the script value itself (TVM: a Python value, no variable).
    bool meta = false;
    if (a.value->kind == ast::ExprKind::Call) {
      const auto& call = static_cast<const ast::Call&>(*a.value);
      meta = call.func->kind == ast::ExprKind::Attribute &&
             symbol_name(static_cast<const ast::Attribute&>(*call.func).attr) == "meta_var";
    }
    for (const auto& target : a.targets) bind_target(*target, value, let_var, let_value, meta);
    return nullptr;
  }

  void bind_target(const ast::Expr& target, const Value& value, Var& let_var, PrimExpr& let_value, bool meta = false) {
    if (target.kind == ast::ExprKind::Tuple || target.kind == ast::ExprKind::List) {
      const auto& elts = target.kind == ast::ExprKind::Tuple ? static_cast<const ast::Tuple&>(target).elts
                                                             : static_cast<const ast::List&>(target).elts;
      std::vector<Value> items = interp_.to_vector(value);
      if (items.size() != elts.size()) {
        raise_at(ExcKind::ValueError, fmt::format("cannot unpack {} values into {} names", items.size(), elts.size()),
                 target.loc);
      }
      for (size_t i = 0; i < elts.size(); ++i) bind_target(*elts[i], items[i], let_var, let_value, meta);
      return;
    }
    if (target.kind != ast::ExprKind::Name) {
      raise_at(ExcKind::TypeError, "only names can be assigned in a prim_func (or buffer elements)", target.loc);
    }
    Symbol name = static_cast<const ast::Name&>(target).id;
    // `vi = T.axis.remap("S", [i])`: a one-element remap binds the iterator itself.
    if (auto* list = value.as<script::List>(); list && list->items.size() == 1 && list->items[0].as<AxisValue>()) {
      bind_target(target, list->items[0], let_var, let_value);
      return;
    }
    if (auto* env = value.as<EnvThreadValue>()) {
      env->name = symbol_name(name);
      scope_.locals->set(name, value);
      return;
    }
    if (auto* launch = value.as<LaunchThreadValue>()) {
      pending_launch_ = PendingLaunch{*launch, make_var(symbol_name(name), launch->extent->dtype)};
      scope_.locals->set(name, bindings::wrap(PrimExpr(pending_launch_->var)));
      return;
    }
    if (auto* axis = value.as<AxisValue>()) {
      BlockFrame& frame = builder_.block("a block iterator (T.axis.*)");
      if (!axis->dom.extent) {
        // T.axis.remap: the domain is the bound loop's range.
        auto* var = ir::as<VarNode>(axis->binding);
        auto it = var ? loop_ranges_.find(var) : loop_ranges_.end();
        if (it == loop_ranges_.end()) {
          raise_at(ExcKind::ValueError,
                   fmt::format("T.axis.remap: {} is not the variable of an enclosing loop", ir::script(axis->binding)),
                   target.loc);
        }
        axis->dom = it->second;
      }
      Var v = make_var(symbol_name(name), axis->dom.extent->dtype);
      frame.iter_vars.push_back(IterVar{v, axis->dom, axis->iter_type});
      if (axis->binding) {
        if (check_) frame.binding_checks.push_back({symbol_name(name), axis->binding, axis->dom, target.loc});
        frame.iter_values.push_back(axis->binding);
      }
      scope_.locals->set(name, bindings::wrap(PrimExpr(v)));
      return;
    }
    if (auto* bv = value.as<BufferValue>(); bv && bv->fresh) {
      bv->buffer->name = symbol_name(name);
      if (bv->owns_data) bv->buffer->data->name = symbol_name(name);
      if (auto* v = bv->buffer->elem_offset ? ir::as<VarNode>(bv->buffer->elem_offset) : nullptr;
          v && v->name == "elem_offset") {
        v->name = symbol_name(name) + "_elem_offset";
      }
      bv->fresh = false;
    } else if (auto* ev = value.as<ExprValue>()) {
      if (ev->fresh) {
        ir::as<VarNode>(ev->expr)->name = symbol_name(name);
        ev->fresh = false;
      } else if (!let_var && !meta) {
        // `x = expr` binds a new variable for the rest of the body.
        let_var = make_var(symbol_name(name), ev->expr->dtype);
        let_value = ev->expr;
        scope_.locals->set(name, bindings::wrap(PrimExpr(let_var)));
        return;
      }
    }
    scope_.locals->set(name, value);
  }

  // A binding must stay inside the iterator's domain; checked when both are constant.
  void check_binding(const std::string& name, const PrimExpr& binding, const Range& dom, SourceLoc loc) {
    arith::Interval range = arith::eval_interval(binding, loop_domains_);
    int64_t lo, hi, dmin, dext;
    if (!range.min || !as_const_int(range.min, &lo) || !as_const_int(range.max, &hi)) return;
    if (!as_const_int(dom.min, &dmin) || !as_const_int(dom.extent, &dext)) return;
    if (lo < dmin || hi >= dmin + dext) {
      raise_at(ExcKind::ValueError,
               fmt::format("block iterator {} is bound to {}, whose range [{}, {}) is outside its domain [{}, {})",
                           name, ir::script(binding), lo, hi + 1, dmin, dmin + dext),
               loc);
    }
  }

  Stmt parse_aug_assign(const ast::AugAssign& a) {
    if (a.target->kind != ast::ExprKind::Subscript) {
      raise_at(ExcKind::TypeError, "augmented assignment in a prim_func must update a buffer element", a.loc);
    }
    const auto& sub = static_cast<const ast::Subscript&>(*a.target);
    Value obj = ev_->eval(*sub.value);
    auto* bv = obj.as<BufferValue>();
    if (!bv) raise_at(ExcKind::TypeError, "augmented assignment in a prim_func must update a buffer element", sub.loc);
    Value key = ev_->eval_index(*sub.index);
    std::vector<PrimExpr> idx = index_list(key, bv->buffer, sub.loc);
    Value current = bindings::wrap(buffer_load(bv->buffer, idx));
    Value rhs = ev_->eval(*a.value);
    Value combined;
    try {
      combined = interp_.binary_op(a.op, current, rhs);
    } catch (ScriptError& e) {
      if (!e.pending.valid()) e.pending = a.op_loc;
      throw;
    }
    return make_store(bv->buffer, idx, combined, a.loc);
  }

  Stmt parse_for(const ast::For& f) {
    Value iter = ev_->eval(*f.iter);
    auto* loops = iter.as<LoopValue>();
    if (!loops) {
      raise_at(ExcKind::TypeError,
               fmt::format("a prim_func loop needs range(), T.grid(), T.serial(), T.parallel(), ...; got {}",
                           script::Interpreter::type_name(iter)),
               f.iter->loc);
    }
    std::vector<const ast::Expr*> targets;
    if (f.target->kind == ast::ExprKind::Tuple) {
      for (const auto& e : static_cast<const ast::Tuple&>(*f.target).elts) targets.push_back(e.get());
    } else {
      targets.push_back(f.target.get());
    }
    if (targets.size() != loops->loops.size()) {
      raise_at(ExcKind::ValueError, fmt::format("{} loop variables for {} loops", targets.size(), loops->loops.size()),
               f.target->loc);
    }
    NameScope names(*scope_.locals);
    std::vector<Var> vars;
    for (size_t i = 0; i < targets.size(); ++i) {
      if (targets[i]->kind != ast::ExprKind::Name)
        raise_at(ExcKind::TypeError, "loop variables must be names", targets[i]->loc);
      Symbol name = static_cast<const ast::Name&>(*targets[i]).id;
      const auto& loop = loops->loops[i];
      Var v = make_var(symbol_name(name), loop.extent->dtype);
      vars.push_back(v);
      names.bind(name, bindings::wrap(PrimExpr(v)));
      loop_domains_[v.get()] = arith::interval_of(Range{loop.min, loop.extent});
      loop_ranges_[v.get()] = Range{cast(v->dtype, loop.min), loop.extent};
    }
    Stmt body = make_seq(parse_body(f.body, 0));
    for (const auto& v : vars) {
      loop_domains_.erase(v.get());
      loop_ranges_.erase(v.get());
    }
    if (!body) body = std::make_shared<EvaluateNode>(make_int(0));
    for (size_t i = vars.size(); i-- > 0;) {
      const auto& loop = loops->loops[i];
      auto node = std::make_shared<ForNode>(vars[i], cast(vars[i]->dtype, loop.min), loop.extent, loop.kind, body);
      node->thread_tag = loop.thread;
      node->annotations = loop.annotations;
      node->step = loop.step;
      body = node;
    }
    return body;
  }

  Stmt parse_if(const ast::If& s) {
    Value cond = ev_->eval(*s.test);
    if (auto* e = cond.as<ExprValue>()) {
      Stmt then_case = make_seq(parse_body(s.body, 0));
      Stmt else_case = s.orelse.empty() ? nullptr : make_seq(parse_body(s.orelse, 0));
      if (!then_case) then_case = std::make_shared<EvaluateNode>(make_int(0));
      PrimExpr c = e->expr->dtype.is_bool() ? e->expr : cast(DataType::bool_(), e->expr);
      return std::make_shared<IfThenElseNode>(c, then_case, else_case);
    }
    // A Python condition selects a branch while parsing (meta-programming).
    return make_seq(parse_body(interp_.truthy(cond) ? s.body : s.orelse, 0));
  }

  Stmt parse_with(const ast::With& w) {
    if (w.items.size() != 1)
      raise_at(ExcKind::TypeError, "a prim_func `with` takes one T.block(...) or T.init()", w.loc);
    Value header = ev_->eval(*w.items[0].context);
    if (auto* launch = header.as<LaunchThreadValue>()) return parse_launch_with(w, *launch);
    if (auto* let = header.as<LetFrameValue>()) return parse_let_with(w, *let);
    if (auto* attr = header.as<AttrFrameValue>()) {
      if (w.items[0].target)
        raise_at(ExcKind::TypeError, "`with T.attr(...)` names no variable", w.items[0].target->loc);
      return attr_stmt(*attr, parse_body(w.body, 0));
    }
    if (w.items[0].target) raise_at(ExcKind::TypeError, "a prim_func `with` takes one T.block(...) or T.init()", w.loc);
    auto* h = header.as<BlockHeaderValue>();
    if (!h) {
      raise_at(ExcKind::TypeError,
               fmt::format("a prim_func `with` takes T.block(...) or T.init(), got {}",
                           script::Interpreter::type_name(header)),
               w.items[0].context->loc);
    }
    if (h->is_init) {
      BlockFrame& frame = builder_.block("T.init()");
      if (frame.init) raise_at(ExcKind::ValueError, "a block has at most one T.init()", w.loc);
      bool saved = builder_.in_init;
      builder_.in_init = true;
      Stmt init = make_seq(parse_body(w.body, 0));
      builder_.in_init = saved;
      builder_.block("T.init()").init = init ? init : std::make_shared<EvaluateNode>(make_int(0));
      return nullptr;
    }
    NameScope names(*scope_.locals);
    {
      BlockFrame frame;
      frame.name = h->name;
      frame.no_realize = h->no_realize;
      builder_.blocks.push_back(std::move(frame));
    }
    std::vector<Stmt> stmts;
    try {
      // Block iterators are bound in the block's own scope: restore names afterwards.
      for (const auto& st : w.body) {
        if (st->kind == ast::StmtKind::Assign) {
          for (const auto& t : static_cast<const ast::Assign&>(*st).targets) save_names(*t, names);
        }
      }
      stmts = parse_body(w.body, 0);
      // A predicate of this block or of one around it (loop_partition's containers carry the
      // T.where of an imperfect split) may keep the binding inside its domain.
      const BlockFrame& done = builder_.blocks.back();
      bool guarded = false;
      for (const BlockFrame& f : builder_.blocks) guarded = guarded || (f.predicate && !ir::is_one(f.predicate));
      if (!guarded) {
        for (const auto& c : done.binding_checks) check_binding(c.name, c.binding, c.dom, c.loc);
      }
    } catch (...) {
      builder_.blocks.pop_back();
      throw;
    }
    return builder_.close_block(std::move(stmts), w.loc);
  }

  // `with T.launch_thread("threadIdx.x", n) as tx:` (the name is optional with an env_thread).
  Stmt parse_launch_with(const ast::With& w, const LaunchThreadValue& launch) {
    std::string name = launch.env_name;
    const ast::Expr* target = w.items[0].target.get();
    if (target) {
      if (target->kind != ast::ExprKind::Name)
        raise_at(ExcKind::TypeError, "`with T.launch_thread(...) as x:` names one variable", target->loc);
      name = symbol_name(static_cast<const ast::Name&>(*target).id);
    }
    if (name.empty()) {
      name = launch.thread;
      std::replace(name.begin(), name.end(), '.', '_');
    }
    NameScope names(*scope_.locals);
    PendingLaunch pending{launch, make_var(name, launch.extent->dtype)};
    if (target) names.bind(static_cast<const ast::Name&>(*target).id, bindings::wrap(PrimExpr(pending.var)));
    return launched(pending, [&] { return make_seq(parse_body(w.body, 0)); });
  }

  Stmt parse_let_with(const ast::With& w, const LetFrameValue& let) {
    const ast::Expr* target = w.items[0].target.get();
    if (target && target->kind != ast::ExprKind::Name)
      raise_at(ExcKind::TypeError, "`with T.LetStmt(...) as x:` names one variable", target->loc);
    if (!target && !let.var) raise_at(ExcKind::TypeError, "`with T.LetStmt(value)` needs `as x` or var=", w.loc);
    Var v = let.var;
    NameScope names(*scope_.locals);
    if (target) {
      Symbol name = static_cast<const ast::Name&>(*target).id;
      if (!v)
        v = let.pointer ? make_pointer_var(symbol_name(name), let.pointer->element_type, let.pointer->storage_scope)
                        : make_var(symbol_name(name), let.value->dtype);
      names.bind(name, bindings::wrap(PrimExpr(v)));
    }
    Stmt body = make_seq(parse_body(w.body, 0));
    if (!body) body = std::make_shared<EvaluateNode>(make_int(0));
    return std::make_shared<LetStmtNode>(v, let.value, body);
  }

  static Stmt attr_stmt(const AttrFrameValue& attr, const std::vector<Stmt>& stmts) {
    Stmt body = make_seq(stmts);
    if (!body) body = std::make_shared<EvaluateNode>(make_int(0));
    return std::make_shared<AttrStmtNode>(attr.node, attr.attr_key, attr.value, body);
  }

  struct PendingLaunch {
    LaunchThreadValue launch;
    Var var;
  };

  // The launch of `launch` around the statements `parse_rest` parses: a ThreadBinding loop
  // marked as written. Through an env_thread, its name means the launched variable inside.
  Stmt launched(const PendingLaunch& pending, const std::function<Stmt()>& parse_rest) {
    const Var& v = pending.var;
    NameScope names(*scope_.locals);
    if (!pending.launch.env_name.empty()) names.bind(intern(pending.launch.env_name), bindings::wrap(PrimExpr(v)));
    PrimExpr zero = make_int(0, v->dtype);
    loop_domains_[v.get()] = arith::interval_of(Range{zero, pending.launch.extent});
    loop_ranges_[v.get()] = Range{zero, pending.launch.extent};
    Stmt body;
    try {
      body = parse_rest();
    } catch (...) {
      loop_domains_.erase(v.get());
      loop_ranges_.erase(v.get());
      throw;
    }
    loop_domains_.erase(v.get());
    loop_ranges_.erase(v.get());
    if (!body) body = std::make_shared<EvaluateNode>(make_int(0));
    auto loop = std::make_shared<ForNode>(v, zero, pending.launch.extent, ForKind::ThreadBinding, body);
    loop->thread_tag = pending.launch.thread;
    loop->launch_thread = true;
    return loop;
  }

  void save_names(const ast::Expr& target, NameScope& names) {
    if (target.kind == ast::ExprKind::Name) {
      Symbol n = static_cast<const ast::Name&>(target).id;
      Value* cur = scope_.locals->find(n);
      names.bind(n, cur ? *cur : Value());
      if (!cur) scope_.locals->erase(n);
    } else if (target.kind == ast::ExprKind::Tuple) {
      for (const auto& e : static_cast<const ast::Tuple&>(target).elts) save_names(*e, names);
    } else if (target.kind == ast::ExprKind::List) {
      for (const auto& e : static_cast<const ast::List&>(target).elts) save_names(*e, names);
    }
  }

  script::Interpreter& interp_;
  bool check_;  // report problems (bindings outside domains) where they are written
  script::Scope scope_;
  std::unique_ptr<script::Evaluator> ev_;
  TirBuilder builder_;
  arith::VarDomain loop_domains_;
  std::optional<PendingLaunch> pending_launch_;  // set by `x = T.launch_thread(...)`
  std::optional<AttrFrameValue> pending_attr_;   // set by a `T.attr(...)` statement
  std::unordered_map<const VarNode*, Range> loop_ranges_;
};

}  // namespace

PrimFunc parse_prim_func(script::Evaluator& defining, const ast::FunctionDef& def, bool is_private,
                         bool check_well_formed) {
  TirParser parser(defining, check_well_formed);
  PrimFunc f = parser.parse(def, is_private);
  if (check_well_formed) {
    // TVM's rules; reads past a buffer are refused when it is built (driver::build).
    std::vector<std::string> problems = arith::verify_well_formed(f, arith::kStructure);
    if (!problems.empty()) {
      std::string message = fmt::format("prim_func {} is not well formed: {}", symbol_name(def.name), problems[0]);
      if (problems.size() > 1) message += fmt::format(" (and {} more)", problems.size() - 1);
      raise_at(ExcKind::ValueError, message, def.name_loc);
    }
  }
  return f;
}

}  // namespace tsch::frontend
