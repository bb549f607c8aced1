#include "relax/op.h"

#include <fmt/format.h>

#include <map>
#include <unordered_map>

#include "arith/simplify.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "support/error.h"

namespace tsch::relax {
namespace {

using ir::DataType;
using ir::PrimExpr;

void expect_args(const CallNode& call, const std::string& op, size_t lo, size_t hi) {
  size_t n = call.args.size();
  TSCH_USER_ASSERT(n >= lo && n <= hi, TypeError)
      << (lo == hi ? fmt::format("{} takes {} argument{}, got {}", op, lo, lo == 1 ? "" : "s", n)
                   : fmt::format("{} takes {} to {} arguments, got {}", op, lo, hi, n));
}

StructInfo one_sinfo_arg(const CallNode& call, const std::string& op) {
  TSCH_USER_ASSERT(call.sinfo_args.size() == 1, TypeError)
      << op << " needs exactly one output struct info (out_sinfo), got " << call.sinfo_args.size();
  return call.sinfo_args[0];
}

void expect_tensors(const StructInfo& out, const std::string& op) {
  auto ok = [](const StructInfo& s) { return s->kind == SInfoKind::Tensor; };
  if (auto* t = as<TupleSInfoNode>(out)) {
    for (const auto& f : t->fields) {
      TSCH_USER_ASSERT(ok(f), TypeError) << op << ": out_sinfo must be R.Tensor(...) or a list of them, got "
                                         << sinfo_text(out);
    }
    return;
  }
  TSCH_USER_ASSERT(ok(out), TypeError) << op << ": out_sinfo must be R.Tensor(...) or a list of them, got "
                                       << sinfo_text(out);
}

void expect_tuple(const Expr& e, const std::string& op) {
  TSCH_USER_ASSERT(sinfo_of(e)->kind == SInfoKind::Tuple, TypeError)
      << op << ": the arguments must be a tuple, got " << sinfo_text(sinfo_of(e));
}

StructInfo infer_call_tir(const CallNode& call) {
  expect_args(call, "R.call_tir", 2, 3);
  TSCH_USER_ASSERT(call.args[0]->kind == ExprKind::GlobalVar, TypeError)
      << "R.call_tir calls a prim_func of the module (cls.name), got a " << sinfo_text(sinfo_of(call.args[0]));
  expect_tuple(call.args[1], "R.call_tir");
  if (call.args.size() == 3) {
    TSCH_USER_ASSERT(sinfo_of(call.args[2])->kind == SInfoKind::Shape, TypeError)
        << "R.call_tir: tir_vars must be a shape (R.shape([...])), got " << sinfo_text(sinfo_of(call.args[2]));
  }
  StructInfo out = one_sinfo_arg(call, "R.call_tir");
  expect_tensors(out, "R.call_tir");
  return out;
}

StructInfo infer_call_dps_packed(const CallNode& call) {
  expect_args(call, "R.call_dps_packed", 2, 2);
  TSCH_USER_ASSERT(call.args[0]->kind == ExprKind::ExternFunc || call.args[0]->kind == ExprKind::GlobalVar, TypeError)
      << "R.call_dps_packed calls a function by name (a string)";
  expect_tuple(call.args[1], "R.call_dps_packed");
  StructInfo out = one_sinfo_arg(call, "R.call_dps_packed");
  expect_tensors(out, "R.call_dps_packed");
  return out;
}

StructInfo infer_call_packed_like(const CallNode& call, const std::string& op) {
  TSCH_USER_ASSERT(!call.args.empty() && call.args[0]->kind == ExprKind::ExternFunc, TypeError)
      << op << " calls a function by name (a string) first";
  if (call.sinfo_args.empty()) return object_sinfo();
  TSCH_USER_ASSERT(call.sinfo_args.size() == 1, TypeError)
      << op << " takes one sinfo_args entry, got " << call.sinfo_args.size();
  return call.sinfo_args[0];
}

StructInfo infer_void(const CallNode&) { return void_sinfo(); }

StructInfo infer_print(const CallNode& call) {
  TSCH_USER_ASSERT(!call.args.empty() && call.args[0]->kind == ExprKind::StringImm, TypeError)
      << "R.print takes its format string first";
  return void_sinfo();
}

StructInfo infer_assert(const CallNode& call) {
  TSCH_USER_ASSERT(call.args.size() >= 2 && call.args[1]->kind == ExprKind::StringImm, TypeError)
      << "R.assert_op takes a condition and a format string";
  const StructInfo& c = sinfo_of(call.args[0]);
  bool ok = false;
  if (auto* t = as<TensorSInfoNode>(c))
    ok = (t->unknown_dtype() || t->dtype.is_bool()) && (t->ndim == 0 || t->ndim == -1);
  if (auto* p = as<PrimSInfoNode>(c)) ok = p->dtype.is_bool();
  TSCH_USER_ASSERT(ok, TypeError) << "R.assert_op: the condition must be a boolean scalar, got " << sinfo_text(c);
  return void_sinfo();
}

StructInfo infer_shape_of(const CallNode& call) {
  expect_args(call, "R.shape_of", 1, 1);
  auto* t = as<TensorSInfoNode>(sinfo_of(call.args[0]));
  TSCH_USER_ASSERT(t, TypeError) << "R.shape_of takes a tensor, got " << sinfo_text(sinfo_of(call.args[0]));
  if (t->shape) return shape_sinfo(*t->shape);
  return shape_sinfo_ndim(t->ndim);
}

// A shape argument (a ShapeExpr, or a variable holding a shape after VMShapeLower): its
// struct info.
const ShapeSInfoNode& shape_arg(const CallNode& call, size_t i, const std::string& op) {
  auto* s = as<ShapeSInfoNode>(sinfo_of(call.args.at(i)));
  TSCH_USER_ASSERT(s, TypeError) << op << ": argument " << i + 1 << " must be a shape (R.shape([...]))";
  return *s;
}

StructInfo tensor_of_shape(const ShapeSInfoNode& s, DataType dtype) {
  if (s.values) return tensor_sinfo(*s.values, dtype);
  return tensor_sinfo_ndim(s.ndim, dtype);
}

DataType dtype_arg(const CallNode& call, size_t i, const std::string& op) {
  auto* d = as<DataTypeImmNode>(call.args.at(i));
  TSCH_USER_ASSERT(d, TypeError) << op << ": argument " << i + 1 << " must be a dtype (R.dtype(\"float32\"))";
  return d->value;
}

StructInfo infer_builtin_alloc_tensor(const CallNode& call) {
  expect_args(call, "R.builtin.alloc_tensor", 3, 4);
  return tensor_of_shape(shape_arg(call, 0, "R.builtin.alloc_tensor"), dtype_arg(call, 1, "R.builtin.alloc_tensor"));
}

StructInfo infer_memory_alloc_tensor(const CallNode& call, const std::string& op) {
  expect_args(call, op, 4, 5);
  return tensor_of_shape(shape_arg(call, 2, op), dtype_arg(call, 3, op));
}

StructInfo infer_storage(const CallNode& call, const std::string& op) {
  expect_args(call, op, 4, 4);
  shape_arg(call, 0, op);
  return object_sinfo();
}

StructInfo infer_call_builtin_with_ctx(const CallNode& call) {
  expect_args(call, "R.call_builtin_with_ctx", 2, 2);
  if (call.sinfo_args.empty()) return object_sinfo();
  return call.sinfo_args[0];
}

const std::unordered_map<std::string, OpInfo>& op_table() {
  static const std::unordered_map<std::string, OpInfo> table = [] {
    std::unordered_map<std::string, OpInfo> t;
    auto add = [&](const std::string& name, std::function<StructInfo(const CallNode&)> infer, bool pure) {
      t.emplace(name, OpInfo{name, std::move(infer), pure});
    };
    add("relax.call_tir", infer_call_tir, true);
    add("relax.call_dps_packed", infer_call_dps_packed, true);
    add(
        "relax.call_pure_packed", [](const CallNode& c) { return infer_call_packed_like(c, "R.call_pure_packed"); },
        true);
    add("relax.print", infer_print, false);
    add("relax.assert_op", infer_assert, false);
    add("relax.shape_of", infer_shape_of, true);
    add("relax.null_value", [](const CallNode&) { return object_sinfo(); }, true);
    add("relax.builtin.alloc_tensor", infer_builtin_alloc_tensor, true);
    add(
        "relax.memory.alloc_storage", [](const CallNode& c) { return infer_storage(c, "R.memory.alloc_storage"); },
        true);
    add(
        "relax.memory.alloc_tensor",
        [](const CallNode& c) { return infer_memory_alloc_tensor(c, "R.memory.alloc_tensor"); }, true);
    add("relax.memory.kill_storage", infer_void, false);
    add("relax.memory.kill_tensor", infer_void, false);
    add("relax.vm.alloc_storage", [](const CallNode& c) { return infer_storage(c, "R.vm.alloc_storage"); }, true);
    add(
        "relax.vm.alloc_tensor", [](const CallNode& c) { return infer_memory_alloc_tensor(c, "R.vm.alloc_tensor"); },
        true);
    add("relax.vm.kill_object", infer_void, false);
    add("relax.vm.call_tir_dyn", infer_void, false);
    add("relax.call_builtin_with_ctx", infer_call_builtin_with_ctx, false);
    return t;
  }();
  return table;
}

// Binds the symbolic variables of `param` from the argument's struct info `arg`.
void bind_symbolic(const StructInfo& param, const StructInfo& arg,
                   std::unordered_map<const ir::VarNode*, PrimExpr>& vmap) {
  auto bind_dims = [&](const std::vector<PrimExpr>& p, const std::vector<PrimExpr>& a) {
    if (p.size() != a.size()) return;
    for (size_t i = 0; i < p.size(); ++i) {
      if (auto* v = ir::as<ir::VarNode>(p[i]); v && !vmap.count(v)) vmap[v] = a[i];
    }
  };
  if (auto* p = as<TensorSInfoNode>(param)) {
    auto* a = as<TensorSInfoNode>(arg);
    if (a && p->shape && a->shape) bind_dims(*p->shape, *a->shape);
  } else if (auto* p = as<ShapeSInfoNode>(param)) {
    auto* a = as<ShapeSInfoNode>(arg);
    if (a && p->values && a->values) bind_dims(*p->values, *a->values);
  } else if (auto* p = as<PrimSInfoNode>(param)) {
    auto* a = as<PrimSInfoNode>(arg);
    if (auto* v = ir::as<ir::VarNode>(p->value); v && a && a->value && !vmap.count(v)) vmap[v] = a->value;
  } else if (auto* p = as<TupleSInfoNode>(param)) {
    auto* a = as<TupleSInfoNode>(arg);
    if (a && a->fields.size() == p->fields.size()) {
      for (size_t i = 0; i < p->fields.size(); ++i) bind_symbolic(p->fields[i], a->fields[i], vmap);
    }
  }
}

}  // namespace

const OpInfo* find_op(const std::string& name) {
  const auto& t = op_table();
  auto it = t.find(name);
  if (it == t.end()) it = t.find("relax." + name);
  return it == t.end() ? nullptr : &it->second;
}

std::string op_name_of(const Expr& e) {
  auto* op = as<OpNode>(e);
  return op ? op->name : "";
}

StructInfo derive_call_ret_sinfo(const FuncSInfoNode& f, const std::vector<Expr>& args, const std::string& callee) {
  if (!f.params) return f.ret;
  TSCH_USER_ASSERT(f.params->size() == args.size(), TypeError) << fmt::format(
      "{} takes {} argument{}, got {}", callee, f.params->size(), f.params->size() == 1 ? "" : "s", args.size());
  std::unordered_map<const ir::VarNode*, PrimExpr> vmap;
  for (size_t i = 0; i < args.size(); ++i) bind_symbolic((*f.params)[i], sinfo_of(args[i]), vmap);
  for (size_t i = 0; i < args.size(); ++i) {
    StructInfo expected =
        map_sinfo_dims((*f.params)[i], [&](const PrimExpr& e) { return arith::simplify(ir::substitute(e, vmap)); });
    bool maybe = false;
    TSCH_USER_ASSERT(sinfo_is_base_of(expected, sinfo_of(args[i]), &maybe), TypeError) << fmt::format(
        "argument {} of {}: expected {}, got {}", i + 1, callee, sinfo_text(expected), sinfo_text(sinfo_of(args[i])));
  }
  // Variables of the result that no parameter binds stay unknown.
  StructInfo ret = map_sinfo_dims(f.ret, [&](const PrimExpr& e) { return arith::simplify(ir::substitute(e, vmap)); });
  std::vector<ir::Var> param_vars;
  for (const auto& p : *f.params) collect_sinfo_vars(p, param_vars);
  return erase_to_well_defined(ret, [&](const ir::VarNode* v) {
    for (const auto& pv : param_vars) {
      if (pv.get() == v) return false;  // a parameter variable that was not bound
    }
    return true;
  });
}

Expr make_call(Expr op, std::vector<Expr> args, ir::AttrMap attrs, std::vector<StructInfo> sinfo_args) {
  auto call = std::make_shared<CallNode>(std::move(op), std::move(args), std::move(attrs), std::move(sinfo_args));
  if (auto* o = as<OpNode>(call->op)) {
    const OpInfo* info = find_op(o->name);
    TSCH_USER_ASSERT(info, NotImplementedError) << "not supported yet: the Relax operator " << o->name;
    call->struct_info = info->infer(*call);
  } else if (call->op->kind == ExprKind::ExternFunc) {
    // R.call_packed: the result is what sinfo_args says.
    TSCH_USER_ASSERT(call->sinfo_args.size() <= 1, TypeError) << "R.call_packed takes at most one sinfo_args entry";
    call->struct_info = call->sinfo_args.empty() ? object_sinfo() : call->sinfo_args[0];
  } else {
    const StructInfo& callee = sinfo_of(call->op);
    auto* f = as<FuncSInfoNode>(callee);
    std::string name = call->op->kind == ExprKind::GlobalVar ? as<GlobalVarNode>(call->op)->name
                       : call->op->kind == ExprKind::Var     ? as<VarNode>(call->op)->name
                                                             : "the callee";
    TSCH_USER_ASSERT(f, TypeError) << name << " is not callable: its struct info is " << sinfo_text(callee);
    call->struct_info = derive_call_ret_sinfo(*f, call->args, name);
  }
  return call;
}

Expr make_op_call(const std::string& op_name, std::vector<Expr> args, ir::AttrMap attrs,
                  std::vector<StructInfo> sinfo_args) {
  return make_call(make_op(op_name), std::move(args), std::move(attrs), std::move(sinfo_args));
}

bool is_pure_call(const CallNode& call) {
  if (auto* o = as<OpNode>(call.op)) {
    const OpInfo* info = find_op(o->name);
    return info && info->pure;
  }
  if (call.op->kind == ExprKind::ExternFunc) return false;
  auto* f = as<FuncSInfoNode>(call.op->struct_info);
  return f && f->purity;
}

}  // namespace tsch::relax
