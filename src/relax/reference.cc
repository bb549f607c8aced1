// The reference interpretation of a Relax module (TSCH_CHECK_RELAX): bindings evaluated in
// order on the source module, before any pass — call_tir and call_dps_packed allocate their
// outputs from out_sinfo (symbolic dims bound from the arguments' shapes) and call the
// compiled prim_func or the registered function directly, calls of module functions recurse,
// if/else picks its branch, match_cast binds and checks. Nothing of the pipeline or the VM is
// involved, so comparing the two checks both.
#include "relax/reference.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <unordered_map>

#include "arith/simplify.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "relax/expr.h"
#include "relax/op.h"
#include "runtime/call.h"
#include "runtime/registry.h"
#include "support/error.h"

namespace tsch::relax {
namespace {

using runtime::Any;
using runtime::NDArray;

class Interpreter {
 public:
  Interpreter(const ir::IRModule& mod, const runtime::Module& lib) : mod_(mod), lib_(lib) {}

  Any call_function(const std::string& name, const std::vector<Any>& args) {
    Function f = as_relax_function(mod_->lookup(name));
    TSCH_USER_ASSERT(f, ValueError) << "reference: no Relax function " << name;
    TSCH_USER_ASSERT(args.size() == f->params.size(), TypeError)
        << "reference: " << name << " takes " << f->params.size() << " arguments";
    Frame frame;
    for (size_t i = 0; i < args.size(); ++i) {
      frame.vars[f->params[i].get()] = args[i];
      bind(frame, f->params[i]->struct_info, args[i]);
    }
    return seq(frame, *f->body);
  }

 private:
  struct Frame {
    std::unordered_map<const ExprNode*, Any> vars;
    std::unordered_map<const ir::VarNode*, ir::PrimExpr> dims;
  };

  // Binds the symbolic dims of `s` from the value (the first sight of each), checking the rest.
  void bind(Frame& frame, const StructInfo& s, const Any& v) {
    const std::vector<ir::PrimExpr>* dims = nullptr;
    std::vector<int64_t> actual;
    if (auto* t = as<TensorSInfoNode>(s); t && t->shape && v.kind() == Any::Kind::NDArray) {
      dims = &*t->shape;
      actual = v.as_ndarray()->shape();
    } else if (auto* sh = as<ShapeSInfoNode>(s); sh && sh->values && v.kind() == Any::Kind::Shape) {
      dims = &*sh->values;
      actual = v.as_shape();
    } else if (auto* tu = as<TupleSInfoNode>(s); tu && v.kind() == Any::Kind::Tuple) {
      for (size_t i = 0; i < tu->fields.size() && i < v.as_tuple().size(); ++i)
        bind(frame, tu->fields[i], v.as_tuple()[i]);
      return;
    }
    if (!dims || dims->size() != actual.size()) return;
    for (size_t i = 0; i < dims->size(); ++i) {
      if (auto* var = ir::as<ir::VarNode>((*dims)[i]); var && !frame.dims.count(var)) {
        frame.dims[var] = ir::make_int(actual[i], ir::DataType::int64());
      }
    }
  }

  int64_t dim(Frame& frame, const ir::PrimExpr& e) {
    int64_t c;
    ir::PrimExpr v = arith::simplify(ir::substitute(e, frame.dims));
    TSCH_USER_ASSERT(ir::as_const_int(v, &c), ValueError)
        << "reference: a dimension is not known: " << sinfo_text(shape_sinfo({e}));
    return c;
  }

  std::vector<int64_t> dims(Frame& frame, const std::vector<ir::PrimExpr>& ds) {
    std::vector<int64_t> out;
    for (const auto& d : ds) out.push_back(dim(frame, d));
    return out;
  }

  Any seq(Frame& frame, const SeqExprNode& s) {
    for (const auto& block : s.blocks) {
      for (const auto& b : block.bindings) {
        Any v = eval(frame, b.value);
        if (b.is_match_cast()) bind(frame, b.match_sinfo, v);
        frame.vars[b.var.get()] = v;
      }
    }
    return eval(frame, s.body);
  }

  std::vector<Any> outputs_for(Frame& frame, const StructInfo& out) {
    std::vector<Any> outs;
    auto alloc = [&](const StructInfo& s) {
      auto* t = as<TensorSInfoNode>(s);
      TSCH_USER_ASSERT(t && t->shape, ValueError) << "reference: an output without a shape";
      outs.push_back(Any::of_ndarray(std::make_shared<NDArray>(t->dtype, dims(frame, *t->shape))));
    };
    if (auto* tu = as<TupleSInfoNode>(out)) {
      for (const auto& f : tu->fields) alloc(f);
    } else {
      alloc(out);
    }
    return outs;
  }

  runtime::PackedFunc find(const std::string& name) {
    if (lib_) {
      if (runtime::PackedFunc f = runtime::get_function(lib_, name, true)) return f;
    }
    return runtime::get_global_func(name);
  }

  Any call(Frame& frame, const CallNode& c) {
    std::string op = op_name_of(c.op);
    if (op == "relax.call_tir" || op == "relax.call_dps_packed") {
      std::vector<Any> args;
      for (const auto& a : as<TupleNode>(c.args[1])->fields) args.push_back(eval(frame, a));
      std::vector<Any> outs = outputs_for(frame, c.sinfo_args.at(0));
      args.insert(args.end(), outs.begin(), outs.end());
      if (c.args.size() == 3) {
        for (int64_t v : eval(frame, c.args[2]).as_shape()) args.push_back(Any::of_int(v));
      }
      std::string callee = c.args[0]->kind == ExprKind::GlobalVar ? as<GlobalVarNode>(c.args[0])->name
                                                                  : as<ExternFuncNode>(c.args[0])->global_symbol;
      (*find(callee))(args);
      return outs.size() == 1 && c.sinfo_args[0]->kind != SInfoKind::Tuple ? outs[0] : Any::of_tuple(outs);
    }
    if (op == "relax.call_pure_packed") {
      std::vector<Any> args;
      for (size_t i = 1; i < c.args.size(); ++i) args.push_back(eval(frame, c.args[i]));
      return (*find(as<ExternFuncNode>(c.args[0])->global_symbol))(args);
    }
    // Effects are the VM run's to show: the reference does not print or assert again.
    if (op == "relax.print" || op == "relax.assert_op") return Any();
    if (op == "relax.shape_of") return Any::of_shape(eval(frame, c.args[0]).as_ndarray()->shape());
    if (op == "relax.null_value") return Any();
    TSCH_USER_ASSERT(op.empty(), NotImplementedError) << "reference: not supported yet: " << op;
    std::vector<Any> args;
    for (const auto& a : c.args) args.push_back(eval(frame, a));
    if (auto* ext = as<ExternFuncNode>(c.op)) return (*find(ext->global_symbol))(args);
    if (auto* gv = as<GlobalVarNode>(c.op)) {
      if (as_relax_function(mod_->lookup(gv->name))) return call_function(gv->name, args);
      return (*find(gv->name))(args);
    }
    TSCH_USER_ASSERT(false, NotImplementedError) << "reference: not supported yet: calling a local function";
    return Any();
  }

  Any eval(Frame& frame, const Expr& e) {
    switch (e->kind) {
      case ExprKind::Var: {
        auto it = frame.vars.find(e.get());
        TSCH_INTERNAL_ASSERT(it != frame.vars.end()) << "reference: unbound variable " << as<VarNode>(e)->name;
        return it->second;
      }
      case ExprKind::Constant:
        return Any::of_ndarray(as<ConstantNode>(e)->data);
      case ExprKind::Tuple: {
        std::vector<Any> items;
        for (const auto& f : as<TupleNode>(e)->fields) items.push_back(eval(frame, f));
        return Any::of_tuple(std::move(items));
      }
      case ExprKind::TupleGetItem: {
        auto* t = as<TupleGetItemNode>(e);
        return eval(frame, t->tuple).as_tuple().at(static_cast<size_t>(t->index));
      }
      case ExprKind::ShapeExpr:
        return Any::of_shape(dims(frame, as<ShapeExprNode>(e)->values));
      case ExprKind::PrimValue: {
        const ir::PrimExpr& v = as<PrimValueNode>(e)->value;
        if (auto* f = ir::as<ir::FloatImmNode>(v)) return Any::of_float(f->value);
        return Any::of_int(dim(frame, v));
      }
      case ExprKind::StringImm:
        return Any::of_str(as<StringImmNode>(e)->value);
      case ExprKind::DataTypeImm:
        return Any::of_str(as<DataTypeImmNode>(e)->value.to_string());
      case ExprKind::Call:
        return call(frame, *as<CallNode>(e));
      case ExprKind::If: {
        auto* i = as<IfNode>(e);
        Any c = eval(frame, i->cond);
        bool taken = c.kind() == Any::Kind::NDArray ? c.as_ndarray()->get_i(0) != 0 : c.as_bool();
        return seq(frame, taken ? *i->true_branch : *i->false_branch);
      }
      case ExprKind::SeqExpr:
        return seq(frame, *as<SeqExprNode>(e));
      case ExprKind::GlobalVar:
      case ExprKind::ExternFunc:
      case ExprKind::Op:
        break;
    }
    TSCH_USER_ASSERT(false, NotImplementedError) << "reference: not supported yet: this expression";
    return Any();
  }

  ir::IRModule mod_;
  runtime::Module lib_;
};

std::string compare(const Any& vm, const Any& ref, const std::string& path) {
  if (vm.kind() != ref.kind())
    return fmt::format("{}: the VM returned a {}, the reference a {}", path, vm.type_name(), ref.type_name());
  switch (vm.kind()) {
    case Any::Kind::Tuple: {
      const auto &a = vm.as_tuple(), &b = ref.as_tuple();
      if (a.size() != b.size()) return fmt::format("{}: tuples of {} and {} fields", path, a.size(), b.size());
      for (size_t i = 0; i < a.size(); ++i) {
        std::string d = compare(a[i], b[i], fmt::format("{}[{}]", path, i));
        if (!d.empty()) return d;
      }
      return "";
    }
    case Any::Kind::Shape:
      return vm.as_shape() == ref.as_shape()
                 ? ""
                 : fmt::format("{}: shapes {} and {}", path, runtime::shape_string(vm.as_shape()),
                               runtime::shape_string(ref.as_shape()));
    case Any::Kind::NDArray: {
      const NDArray &a = *vm.as_ndarray(), &b = *ref.as_ndarray();
      if (a.dtype() != b.dtype() || a.shape() != b.shape()) {
        return fmt::format("{}: {}{} and {}{}", path, a.dtype().to_string(), runtime::shape_string(a.shape()),
                           b.dtype().to_string(), runtime::shape_string(b.shape()));
      }
      for (int64_t i = 0; i < a.size(); ++i) {
        double x = a.get_f(i), y = b.get_f(i);
        if (std::isnan(x) && std::isnan(y)) continue;
        if (std::fabs(x - y) > 1e-6 + 1e-5 * std::fabs(y))
          return fmt::format("{}: element {} is {} in the VM, {} in the reference", path, i, x, y);
      }
      return "";
    }
    case Any::Kind::Int:
      return vm.as_int() == ref.as_int() ? "" : fmt::format("{}: {} and {}", path, vm.as_int(), ref.as_int());
    default:
      return "";
  }
}

}  // namespace

Any reference_call(const ir::IRModule& mod, const runtime::Module& lib, const std::string& fn,
                   const std::vector<Any>& args) {
  return Interpreter(mod, lib).call_function(fn, args);
}

std::string compare_results(const Any& vm, const Any& reference) { return compare(vm, reference, "result"); }

namespace {

bool check_relax_enabled() {
  static const bool on = [] {
    const char* env = std::getenv("TSCH_CHECK_RELAX");
    return env && *env && std::string(env) != "0";
  }();
  return on;
}

}  // namespace

runtime::PackedFunc checked_vm_function(runtime::PackedFunc f, const Executable& ex, const std::string& name) {
  if (!f || !check_relax_enabled() || !ex.source || !as_relax_function(ex.source->lookup(name))) return f;
  ir::IRModule source = ex.source;
  runtime::Module lib = ex.library;
  return runtime::make_packed_func(
      [f, source, lib, name](const std::vector<runtime::Any>& args) {
        runtime::Any out = (*f)(args);
        runtime::Any ref = reference_call(source, lib, name, args);
        std::string diff = compare_results(out, ref);
        TSCH_USER_ASSERT(diff.empty(), RuntimeError)
            << "TSCH_CHECK_RELAX: " << name << ": the VM and the reference interpretation differ: " << diff;
        return out;
      },
      name);
}

}  // namespace tsch::relax
