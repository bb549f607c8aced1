// VMShapeLower: symbolic shapes to run-time work on the VM's shape heap (an int64 tensor,
// one slot per symbolic variable and per computed dimension).
//  - Each parameter is checked (vm.builtin.check_tensor_info / check_shape_info / ...) and
//    its dims matched (vm.builtin.match_shape): a constant dim must be equal, a variable seen
//    first is stored to its slot, a variable seen before must equal what is stored — so `m`
//    in two parameters is one value, and a mismatch names the parameter and the dimension.
//  - R.match_cast does the same on its value, then binds the variable to the value.
//  - Dimensions computed from variables (`n * 2`) are evaluated by a generated prim_func
//    (`shape_func`, built with the others) as soon as their variables are known.
//  - Shapes with symbolic values become vm.builtin.make_shape calls reading the heap.
// The codes and the error context strings are TVM's (MatchShapeCode, MakeShapeCode).
#include <fmt/format.h>

#include <unordered_map>
#include <unordered_set>

#include "arith/simplify.h"
#include "ir/expr_equal.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "relax/op.h"
#include "relax/transform/passes.h"
#include "relax/transform/utils.h"
#include "runtime/vm/builtin.h"
#include "support/error.h"

namespace tsch::relax::transform {
namespace {

using ir::PrimExpr;

using runtime::vm::MakeShapeCode;
using runtime::vm::MatchShapeCode;
constexpr int64_t code(MatchShapeCode c) { return static_cast<int64_t>(c); }
constexpr int64_t code(MakeShapeCode c) { return static_cast<int64_t>(c); }

Expr prim(int64_t v) { return make_prim_value(ir::make_int(v, ir::DataType::int64())); }

Expr packed(const std::string& name, std::vector<Expr> args, StructInfo ret) {
  return make_call(make_extern_func(name), std::move(args), {}, {std::move(ret)});
}

bool is_const(const PrimExpr& e) {
  int64_t c;
  return ir::as_const_int(e, &c);
}

class ShapeLowerer {
 public:
  ShapeLowerer(const std::string& fn_name, const Function& f,
               std::vector<std::pair<std::string, ir::PrimFunc>>& shape_funcs,
               const std::function<std::string()>& fresh_name)
      : name_(fn_name), f_(f), shape_funcs_(shape_funcs), fresh_name_(fresh_name) {}

  Function run() {
    // Step 1. Slots: every symbolic variable, then every computed dimension.
    collect_slots();
    if (slots_.empty() && !needs_checks()) return f_;
    // Step 2. The prologue: the heap, the parameters' checks and matches.
    bb_.begin_block(false);
    if (!slots_.empty()) {
      StructInfo heap_sinfo = tensor_sinfo_ndim(1, ir::DataType::int64());
      heap_ = bb_.emit(make_op_call("relax.call_builtin_with_ctx",
                                    {make_extern_func("vm.builtin.alloc_shape_heap"),
                                     make_tuple({prim(static_cast<int64_t>(slots_.size()))})},
                                    {}, {heap_sinfo}),
                       "shape_heap");
    } else {
      // Static shapes: the matches only compare with constants and need no heap (TVM's null).
      heap_ = bb_.emit(make_op_call("relax.null_value", {}), "shape_heap");
    }
    for (size_t i = 0; i < f_->params.size(); ++i) {
      const Var& p = f_->params[i];
      std::string ctx = fmt::format("ErrorContext(fn={}, loc=param[{}], param={}, annotation={}) ", name_, i, p->name,
                                    sinfo_text(p->struct_info));
      check_info(p, p->struct_info, ctx);
    }
    for (size_t i = 0; i < f_->params.size(); ++i) {
      const Var& p = f_->params[i];
      std::string ctx = fmt::format("ErrorContext(fn={}, loc=param[{}], param={}, annotation={}) ", name_, i, p->name,
                                    sinfo_text(p->struct_info));
      match(p, p->struct_info, ctx);
    }
    compute_ready();
    // Step 3. The body.
    SeqExpr body = lower_seq(f_->body, /*top=*/true);
    return with_body(f_, body);
  }

 private:
  bool needs_checks() const {
    for (const auto& p : f_->params) {
      if (p->struct_info->kind != SInfoKind::Object) return true;
    }
    return false;
  }

  // ------------------------------------------------------------------ slots

  int slot_of(const PrimExpr& e) const {
    for (size_t i = 0; i < slots_.size(); ++i) {
      if (ir::expr_deep_equal(slots_[i], e)) return static_cast<int>(i);
    }
    return -1;
  }

  void add_slot(const PrimExpr& e) {
    if (is_const(e) || slot_of(e) >= 0) return;
    if (!ir::as<ir::VarNode>(e)) {
      ir::for_each_expr(e, [&](const PrimExpr& x) {
        if (ir::as<ir::VarNode>(x) && slot_of(x) < 0) slots_.push_back(x);
      });
    }
    slots_.push_back(e);
  }

  void add_sinfo_slots(const StructInfo& s) {
    std::vector<ir::Var> vars;
    collect_sinfo_vars(s, vars);
    for (const auto& v : vars) add_slot(v);
  }

  void add_expr_slots(const Expr& e) {
    if (!e) return;
    switch (e->kind) {
      case ExprKind::ShapeExpr:
        for (const auto& d : as<ShapeExprNode>(e)->values) add_slot(d);
        break;
      case ExprKind::PrimValue:
        add_slot(as<PrimValueNode>(e)->value);
        break;
      case ExprKind::Tuple:
        for (const auto& x : as<TupleNode>(e)->fields) add_expr_slots(x);
        break;
      case ExprKind::Call:
        for (const auto& x : as<CallNode>(e)->args) add_expr_slots(x);
        break;
      case ExprKind::If:
        add_seq_slots(*as<IfNode>(e)->true_branch);
        add_seq_slots(*as<IfNode>(e)->false_branch);
        break;
      case ExprKind::Var:
      case ExprKind::Constant:
      case ExprKind::TupleGetItem:
      case ExprKind::StringImm:
      case ExprKind::DataTypeImm:
      case ExprKind::SeqExpr:
      case ExprKind::GlobalVar:
      case ExprKind::ExternFunc:
      case ExprKind::Op:
        break;
    }
  }

  void add_seq_slots(const SeqExprNode& s) {
    for (const auto& b : s.blocks) {
      for (const auto& binding : b.bindings) {
        if (binding.is_match_cast()) add_sinfo_slots(binding.match_sinfo);
        add_expr_slots(binding.value);
      }
    }
    add_expr_slots(s.body);
  }

  void collect_slots() {
    for (const auto& p : f_->params) add_sinfo_slots(p->struct_info);
    add_seq_slots(*f_->body);
  }

  bool known(const PrimExpr& e) const {
    bool ok = true;
    ir::for_each_expr(e, [&](const PrimExpr& x) {
      if (auto* v = ir::as<ir::VarNode>(x); v && !stored_.count(v)) ok = false;
    });
    return ok;
  }

  // ------------------------------------------------------------------ checks and matches

  void check_info(const Expr& value, const StructInfo& s, const std::string& ctx) {
    switch (s->kind) {
      case SInfoKind::Tensor: {
        auto* t = as<TensorSInfoNode>(s);
        bb_.emit(packed("vm.builtin.check_tensor_info",
                        {value, prim(t->ndim), std::make_shared<DataTypeImmNode>(t->dtype), make_string_imm(ctx)},
                        void_sinfo()),
                 "_");
        break;
      }
      case SInfoKind::Shape:
        bb_.emit(packed("vm.builtin.check_shape_info", {value, prim(as<ShapeSInfoNode>(s)->ndim), make_string_imm(ctx)},
                        void_sinfo()),
                 "_");
        break;
      case SInfoKind::Prim:
        bb_.emit(packed("vm.builtin.check_prim_value_info",
                        {value, std::make_shared<DataTypeImmNode>(as<PrimSInfoNode>(s)->dtype), make_string_imm(ctx)},
                        void_sinfo()),
                 "_");
        break;
      case SInfoKind::Tuple: {
        auto* t = as<TupleSInfoNode>(s);
        bb_.emit(packed("vm.builtin.check_tuple_info",
                        {value, prim(static_cast<int64_t>(t->fields.size())), make_string_imm(ctx)}, void_sinfo()),
                 "_");
        for (size_t i = 0; i < t->fields.size(); ++i) {
          Var item = bb_.emit(make_tuple_get_item(value, static_cast<int>(i)), "item");
          check_info(item, t->fields[i], ctx);
        }
        break;
      }
      case SInfoKind::Func:
        bb_.emit(packed("vm.builtin.check_func_info", {value, make_string_imm(ctx)}, void_sinfo()), "_");
        break;
      case SInfoKind::Object:
        break;
    }
  }

  // One dim of a match: its code and value.
  void match_dim(const PrimExpr& d, std::vector<Expr>& args, const std::string& ctx) {
    int64_t c;
    if (ir::as_const_int(d, &c)) {
      args.push_back(prim(code(MatchShapeCode::kAssertEqualToImm)));
      args.push_back(prim(c));
      return;
    }
    auto* v = ir::as<ir::VarNode>(d);
    TSCH_USER_ASSERT(v, NotImplementedError)
        << "not supported yet: a computed dimension (" << sinfo_text(shape_sinfo({d}))
        << ") in a parameter or match_cast; " << ctx;
    int slot = slot_of(d);
    if (stored_.count(v)) {
      args.push_back(prim(code(MatchShapeCode::kAssertEqualToLoad)));
    } else {
      stored_.insert(v);
      args.push_back(prim(code(MatchShapeCode::kStoreToHeap)));
    }
    args.push_back(prim(slot));
  }

  void match(const Expr& value, const StructInfo& s, const std::string& ctx) {
    const std::vector<PrimExpr>* dims = nullptr;
    if (auto* t = as<TensorSInfoNode>(s); t && t->shape) dims = &*t->shape;
    if (auto* sh = as<ShapeSInfoNode>(s); sh && sh->values) dims = &*sh->values;
    if (auto* t = as<TupleSInfoNode>(s)) {
      for (size_t i = 0; i < t->fields.size(); ++i) {
        Var item = bb_.emit(make_tuple_get_item(value, static_cast<int>(i)), "item");
        match(item, t->fields[i], ctx);
      }
      return;
    }
    if (!dims || dims->empty()) return;
    std::vector<Expr> args{value, heap_, prim(static_cast<int64_t>(dims->size()))};
    for (const auto& d : *dims) match_dim(d, args, ctx);
    args.push_back(make_string_imm(ctx));
    bb_.emit(packed("vm.builtin.match_shape", std::move(args), void_sinfo()), "_");
  }

  // Computed dims whose variables are all known: one shape_func call evaluates them.
  void compute_ready() {
    std::vector<size_t> ready;
    for (size_t i = 0; i < slots_.size(); ++i) {
      if (ir::as<ir::VarNode>(slots_[i]) || computed_.count(i) || !known(slots_[i])) continue;
      ready.push_back(i);
    }
    if (ready.empty()) return;
    ir::Buffer heap = ir::make_buffer("H", ir::DataType::int64(),
                                      {ir::make_int(static_cast<int64_t>(slots_.size()), ir::DataType::int64())});
    std::unordered_map<const ir::VarNode*, PrimExpr> loads;
    for (size_t i = 0; i < slots_.size(); ++i) {
      if (auto* v = ir::as<ir::VarNode>(slots_[i])) {
        loads[v] = ir::buffer_load(heap, {ir::make_int(static_cast<int64_t>(i), ir::DataType::int64())});
      }
    }
    std::vector<ir::Stmt> stores;
    for (size_t i : ready) {
      PrimExpr value = ir::cast(ir::DataType::int64(), ir::substitute(slots_[i], loads));
      stores.push_back(std::make_shared<ir::BufferStoreNode>(
          heap, value, std::vector<PrimExpr>{ir::make_int(static_cast<int64_t>(i), ir::DataType::int64())}));
      computed_.insert(i);
    }
    auto func = std::make_shared<ir::PrimFuncNode>();
    ir::Var handle = ir::make_var("H", ir::DataType::handle());
    func->params = {handle};
    func->buffer_map = {{handle, heap}};
    func->body = ir::make_seq(stores);
    std::string name = fresh_name_();
    func->attrs.emplace_back("global_symbol", ir::AttrValue::of_str(name));
    shape_funcs_.emplace_back(name, func);
    bb_.emit(make_call(make_global_var(name, opaque_func_sinfo(void_sinfo(), false)), {heap_}), "_");
  }

  // ------------------------------------------------------------------ the body

  // A shape with symbolic values is built at run time.
  Expr lower_shape(const ShapeExprNode& s) {
    bool all_const = true;
    for (const auto& d : s.values) all_const &= is_const(d);
    if (all_const) return nullptr;
    std::vector<Expr> args{heap_, prim(static_cast<int64_t>(s.values.size()))};
    for (const auto& d : s.values) {
      int64_t c;
      if (ir::as_const_int(d, &c)) {
        args.push_back(prim(code(MakeShapeCode::kUseImm)));
        args.push_back(prim(c));
        continue;
      }
      int slot = slot_of(d);
      TSCH_INTERNAL_ASSERT(slot >= 0) << "VMShapeLower: a dimension without a slot";
      TSCH_USER_ASSERT(known(d), ValueError)
          << "VMShapeLower: the dimension " << sinfo_text(shape_sinfo({d}))
          << " is used before its variables are bound (by a parameter or R.match_cast)";
      args.push_back(prim(code(MakeShapeCode::kLoadShape)));
      args.push_back(prim(slot));
    }
    return bb_.emit(
        packed("vm.builtin.make_shape", std::move(args), shape_sinfo_ndim(static_cast<int>(s.values.size()))), "shape");
  }

  Expr lower_leaf(const Expr& e) {
    if (auto* s = as<ShapeExprNode>(e)) {
      if (Expr v = lower_shape(*s)) return v;
      return e;
    }
    if (auto* p = as<PrimValueNode>(e)) {
      TSCH_USER_ASSERT(is_const(p->value), NotImplementedError)
          << "not supported yet: a symbolic R.prim_value in a function built for the VM";
      return e;
    }
    if (auto* t = as<TupleNode>(e)) {
      std::vector<Expr> fields;
      bool changed = false;
      for (const auto& f : t->fields) {
        Expr g = lower_leaf(f);
        changed |= g != f;
        fields.push_back(g);
      }
      return changed ? make_tuple(std::move(fields)) : e;
    }
    return e;
  }

  Expr lower_value(const Expr& e) {
    if (auto* c = as<CallNode>(e)) {
      std::vector<Expr> args;
      bool changed = false;
      for (const auto& a : c->args) {
        Expr b = lower_leaf(a);
        changed |= b != a;
        args.push_back(b);
      }
      if (!changed) return e;
      auto n = std::make_shared<CallNode>(c->op, std::move(args), c->attrs, c->sinfo_args);
      n->struct_info = e->struct_info;
      return n;
    }
    if (auto* i = as<IfNode>(e)) {
      auto n = std::make_shared<IfNode>(i->cond, lower_branch(i->true_branch), lower_branch(i->false_branch));
      n->struct_info = e->struct_info;
      return n;
    }
    return lower_leaf(e);
  }

  SeqExpr lower_branch(const SeqExpr& s) {
    BlockBuilder saved = std::move(bb_);
    bb_ = saved.nested();
    SeqExpr out = lower_seq(s, false);
    bb_ = std::move(saved);
    return out;
  }

  SeqExpr lower_seq(const SeqExpr& s, bool top) {
    if (!top) bb_.begin_block(false);
    for (const auto& block : s->blocks) {
      bb_.begin_block(block.is_dataflow);
      for (const auto& binding : block.bindings) {
        if (binding.is_match_cast()) {
          std::string ctx = fmt::format("ErrorContext(fn={}, loc=match_cast {}, annotation={}) ", name_,
                                        binding.var->name, sinfo_text(binding.match_sinfo));
          check_info(binding.value, binding.match_sinfo, ctx);
          match(binding.value, binding.match_sinfo, ctx);
          compute_ready();
          bb_.emit_binding(Binding{binding.var, binding.value, nullptr});
          continue;
        }
        Binding b = binding;
        b.value = lower_value(binding.value);
        bb_.emit_binding(std::move(b));
      }
    }
    Expr body = lower_leaf(s->body);
    auto n = std::make_shared<SeqExprNode>(bb_.finish(), body);
    n->struct_info = s->struct_info;
    return n;
  }

  std::string name_;
  Function f_;
  std::vector<std::pair<std::string, ir::PrimFunc>>& shape_funcs_;
  std::function<std::string()> fresh_name_;
  BlockBuilder bb_;
  Var heap_;
  std::vector<PrimExpr> slots_;
  std::unordered_set<const ir::VarNode*> stored_;
  std::unordered_set<size_t> computed_;
};

}  // namespace

Pass vm_shape_lower() {
  return relax_module_pass("VMShapeLower", 0, [](const ir::IRModule& mod) {
    std::vector<std::pair<std::string, ir::PrimFunc>> shape_funcs;
    auto fresh_name = [&]() {
      for (int k = 0;; ++k) {
        std::string name = k == 0 ? "shape_func" : "shape_func" + std::to_string(k);
        bool taken = mod->lookup(name) != nullptr;
        for (const auto& [n, f] : shape_funcs) taken |= n == name;
        if (!taken) return name;
      }
    };
    ir::IRModule out = map_relax_functions(mod, [&](const std::string& name, const Function& f) {
      return ShapeLowerer(name, f, shape_funcs, fresh_name).run();
    });
    if (shape_funcs.empty()) return out;
    auto m = std::make_shared<ir::IRModuleNode>(*out);
    for (auto& [name, f] : shape_funcs) m->functions.emplace_back(name, f);
    return ir::IRModule(m);
  });
}

}  // namespace tsch::relax::transform
