// VMCodeGen (TVM's relax/backend/vm/codegen_vm.cc): each Relax function, lowered by the
// pipeline, becomes a VM function. Parameters take the first registers; each binding's value
// is an instruction argument (a register, an immediate, a constant, a function), calls are
// Call instructions into packed functions (compiled prim_funcs, registered functions, the
// VM's builtins) or other VM functions; if/else is If + Goto with both branches copying
// their result into one register.
#include "relax/vm_codegen.h"

#include <fmt/format.h>

#include <unordered_map>

#include "ir/op.h"
#include "relax/op.h"
#include "support/error.h"

namespace tsch::relax {
namespace {

using runtime::Any;
using runtime::vm::ExecBuilder;
using runtime::vm::Index;
using runtime::vm::Instruction;
using runtime::vm::RegName;
using runtime::vm::VMFuncInfo;
using Arg = Instruction::Arg;

class CodeGenVM {
 public:
  CodeGenVM(ExecBuilder& builder, const ir::IRModule& mod) : b_(builder), mod_(mod) {}

  void function(const std::string& name, const Function& f) {
    std::vector<std::string> names;
    for (const auto& p : f->params) names.push_back(p->name);
    b_.emit_function(name, static_cast<int64_t>(f->params.size()), names);
    vars_.clear();
    next_reg_ = 0;
    for (const auto& p : f->params) vars_[p.get()] = Arg::Register(next_reg_++);
    Arg result = seq(*f->body);
    b_.emit_ret(to_register(result));
    b_.end_function(name);
  }

 private:
  RegName new_register() { return next_reg_++; }

  RegName to_register(const Arg& a) {
    if (a.kind() == Instruction::ArgKind::kRegister) return a.value();
    RegName r = new_register();
    b_.emit_call("vm.builtin.copy", {a}, r);
    return r;
  }

  Arg seq(const SeqExprNode& s) {
    for (const auto& block : s.blocks) {
      for (const auto& binding : block.bindings) vars_[binding.var.get()] = value(binding.value);
    }
    return value(s.body);
  }

  Arg emit(const std::string& fn, std::vector<Arg> args) {
    RegName dst = new_register();
    b_.emit_call(fn, std::move(args), dst);
    return Arg::Register(dst);
  }

  Arg constant_dtype(ir::DataType t) { return b_.convert_constant(Any::of_str(t.is_void() ? "" : t.to_string())); }

  Arg value(const Expr& e) {
    switch (e->kind) {
      case ExprKind::Var: {
        auto it = vars_.find(e.get());
        TSCH_INTERNAL_ASSERT(it != vars_.end())
            << "VMCodeGen: variable " << as<VarNode>(e)->name << " used before its binding";
        return it->second;
      }
      case ExprKind::Constant:
        return b_.convert_constant(Any::of_ndarray(as<ConstantNode>(e)->data));
      case ExprKind::ShapeExpr: {
        std::vector<int64_t> dims;
        for (const auto& d : as<ShapeExprNode>(e)->values) {
          int64_t c;
          TSCH_INTERNAL_ASSERT(ir::as_const_int(d, &c)) << "VMCodeGen: a symbolic shape left after VMShapeLower";
          dims.push_back(c);
        }
        return b_.convert_constant(Any::of_shape(std::move(dims)));
      }
      case ExprKind::PrimValue: {
        const ir::PrimExpr& v = as<PrimValueNode>(e)->value;
        int64_t c;
        if (ir::as_const_int(v, &c))
          return v->dtype.is_bool() ? b_.convert_constant(Any::of_bool(c != 0)) : Arg::Immediate(c);
        if (auto* f = ir::as<ir::FloatImmNode>(v)) return b_.convert_constant(Any::of_float(f->value));
        TSCH_INTERNAL_ASSERT(false) << "VMCodeGen: a symbolic prim value left after VMShapeLower";
        return Arg();
      }
      case ExprKind::StringImm:
        return b_.convert_constant(Any::of_str(as<StringImmNode>(e)->value));
      case ExprKind::DataTypeImm:
        return constant_dtype(as<DataTypeImmNode>(e)->value);
      case ExprKind::GlobalVar:
        return b_.function_arg(as<GlobalVarNode>(e)->name);
      case ExprKind::ExternFunc:
        return b_.function_arg(as<ExternFuncNode>(e)->global_symbol);
      case ExprKind::Tuple: {
        std::vector<Arg> fields;
        for (const auto& f : as<TupleNode>(e)->fields) fields.push_back(value(f));
        return emit("vm.builtin.make_tuple", std::move(fields));
      }
      case ExprKind::TupleGetItem: {
        auto* t = as<TupleGetItemNode>(e);
        return emit("vm.builtin.tuple_getitem", {value(t->tuple), Arg::Immediate(t->index)});
      }
      case ExprKind::If:
        return if_else(*as<IfNode>(e));
      case ExprKind::SeqExpr:
        return seq(*as<SeqExprNode>(e));
      case ExprKind::Call:
        return call(*as<CallNode>(e));
      case ExprKind::Op:
        break;
    }
    TSCH_USER_ASSERT(false, NotImplementedError) << "not supported yet: VM code for this Relax expression";
    return Arg();
  }

  Arg if_else(const IfNode& i) {
    Arg cond = value(i.cond);
    RegName cond_reg = new_register();
    b_.emit_call("vm.builtin.read_if_cond", {cond}, cond_reg);
    Index if_pc = b_.next_pc();
    b_.emit_if(cond_reg, 3);
    Arg t = seq(*i.true_branch);
    RegName merge = new_register();
    b_.emit_call("vm.builtin.copy", {t}, merge);
    Index goto_pc = b_.next_pc();
    b_.emit_goto(1);
    b_.patch_if(if_pc, b_.next_pc() - if_pc);
    Arg f = seq(*i.false_branch);
    b_.emit_call("vm.builtin.copy", {f}, merge);
    b_.patch_goto(goto_pc, b_.next_pc() - goto_pc);
    return Arg::Register(merge);
  }

  std::vector<Arg> args_of(const std::vector<Expr>& args, size_t from = 0) {
    std::vector<Arg> out;
    for (size_t i = from; i < args.size(); ++i) out.push_back(value(args[i]));
    return out;
  }

  Arg call(const CallNode& c) {
    if (auto* gv = as<GlobalVarNode>(c.op)) {
      ir::BaseFunc f = mod_->lookup(gv->name);
      TSCH_USER_ASSERT(f, ValueError) << "the module has no function named " << gv->name;
      return emit(gv->name, args_of(c.args));
    }
    if (auto* ext = as<ExternFuncNode>(c.op)) return emit(ext->global_symbol, args_of(c.args));
    std::string op = op_name_of(c.op);
    Arg vm = Arg::Register(Instruction::kVMRegister);
    if (op == "relax.vm.alloc_storage") {
      // vm.builtin.alloc_storage(vm, size, device index, dtype hint, scope)
      return emit("vm.builtin.alloc_storage",
                  {vm, value(c.args[0]), value(c.args[1]), value(c.args[2]), value(c.args[3])});
    }
    if (op == "relax.vm.alloc_tensor") {
      return emit("vm.builtin.alloc_tensor", {value(c.args[0]), value(c.args[1]), value(c.args[2]), value(c.args[3])});
    }
    if (op == "relax.vm.kill_object") {
      // The register is cleared, which drops the VM's reference.
      Arg target = value(c.args[0]);
      if (target.kind() == Instruction::ArgKind::kRegister) b_.emit_call("vm.builtin.null_value", {}, target.value());
      return Arg();
    }
    if (op == "relax.vm.call_tir_dyn") {
      std::vector<Arg> args{value(c.args[0])};
      for (const auto& a : as<TupleNode>(c.args[1])->fields) args.push_back(value(a));
      return emit("vm.builtin.call_tir_dyn", std::move(args));
    }
    if (op == "relax.call_builtin_with_ctx") {
      auto* fn = as<ExternFuncNode>(c.args[0]);
      TSCH_INTERNAL_ASSERT(fn) << "call_builtin_with_ctx calls a function by name";
      std::vector<Arg> args{vm};
      for (const auto& a : as<TupleNode>(c.args[1])->fields) args.push_back(value(a));
      return emit(fn->global_symbol, std::move(args));
    }
    if (op == "relax.null_value") return emit("vm.builtin.null_value", {});
    if (op == "relax.shape_of") return emit("vm.builtin.shape_of", args_of(c.args));
    if (op == "relax.print") return emit("relax.run.print", args_of(c.args));
    if (op == "relax.assert_op") return emit("relax.run.assert_op", args_of(c.args));
    if (op == "relax.call_pure_packed") {
      auto* fn = as<ExternFuncNode>(c.args[0]);
      TSCH_INTERNAL_ASSERT(fn) << "call_pure_packed calls a function by name";
      return emit(fn->global_symbol, args_of(c.args, 1));
    }
    if (op == "relax.call_tir" || op == "relax.call_dps_packed" || op == "relax.builtin.alloc_tensor" ||
        op.rfind("relax.memory.", 0) == 0) {
      TSCH_INTERNAL_ASSERT(false) << "VMCodeGen: " << op << " must be lowered by the pipeline first";
    }
    TSCH_USER_ASSERT(false, NotImplementedError) << "not supported yet: VM code for the operator " << op;
    return Arg();
  }

  ExecBuilder& b_;
  ir::IRModule mod_;
  std::unordered_map<const ExprNode*, Arg> vars_;
  RegName next_reg_ = 0;
};

}  // namespace

std::shared_ptr<runtime::vm::Executable> vm_codegen(const ir::IRModule& mod) {
  ExecBuilder builder;
  // Every Relax function is declared first, so a call may precede the callee's code.
  for (const auto& [name, f] : mod->functions) {
    if (as_relax_function(f)) builder.declare_function(name, VMFuncInfo::FuncKind::kVMFunc);
  }
  CodeGenVM gen(builder, mod);
  for (const auto& [name, f] : mod->functions) {
    if (Function rf = as_relax_function(f)) gen.function(name, rf);
  }
  return builder.get();
}

}  // namespace tsch::relax
