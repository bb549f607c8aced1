// The R.* calls of Relax operators (tvmscript_relax_ops.h).
#include "bindings/tvm/script/tvmscript_relax_ops.h"

#include <fmt/format.h>

#include "frontend/relax_specs.h"
#include "ir/op.h"
#include "numpy/ndarray_value.h"
#include "relax/op.h"
#include "script/exceptions.h"
#include "script/modules.h"
#include "values/dtype_value.h"
#include "values/relax_values.h"

namespace tsch::bindings {

using script::Args;
using script::Namespace;

std::vector<relax::StructInfo> sinfo_args_arg(Interpreter& interp, const Value& v) {
  if (v.is_none()) return {};
  if (v.as<script::Tuple>() || v.as<script::List>()) {
    std::vector<relax::StructInfo> out;
    for (const auto& f : interp.to_vector(v)) out.push_back(frontend::to_struct_info(interp, f, "sinfo_args"));
    return out;
  }
  return {frontend::to_struct_info(interp, v, "sinfo_args")};
}

Value call_op(const std::string& op, std::vector<relax::Expr> args, std::vector<relax::StructInfo> sinfo_args) {
  return wrap_relax(guard_core([&] { return relax::make_op_call(op, std::move(args), {}, std::move(sinfo_args)); }));
}

namespace {

// The Relax ops written `R.<group>.<name>(...)` in printed modules after lowering, with the
// kinds of their arguments: s shape, d dtype, p prim value (int), t string, e expression;
// a trailing default for optional ones.
struct OpSpec {
  const char* name;
  const char* kinds;
};
constexpr OpSpec kLoweredOps[] = {
    {"relax.builtin.alloc_tensor", "sdpt"},
    {"relax.memory.alloc_storage", "sptd"},
    {"relax.memory.alloc_tensor", "epsdp"},
    {"relax.memory.kill_storage", "e"},
    {"relax.memory.kill_tensor", "e"},
    {"relax.vm.alloc_storage", "spdt"},
    {"relax.vm.alloc_tensor", "epsdp"},
    {"relax.vm.kill_object", "e"},
    {"relax.vm.call_tir_dyn", "ee"},
    {"relax.shape_of", "e"},
    {"relax.null_value", ""},
};

relax::Expr spec_arg(Interpreter& interp, char kind, const Value& v, const std::string& what) {
  switch (kind) {
    case 's':
      if (v.as<script::Tuple>() || v.as<script::List>())
        return relax::make_shape_expr(frontend::to_dims(interp, v, what));
      break;
    case 'd':
      if (v.as<script::Str>() || v.as<DTypeValue>() || v.as<TirDTypeValue>())
        return std::make_shared<relax::DataTypeImmNode>(to_dtype(interp, v, what));
      break;
    case 'p':
      if (v.is_integral()) return relax::make_prim_value(ir::make_int(v.as_int(), ir::DataType::int64()));
      break;
    case 't':
      if (auto* s = v.as<script::Str>()) return relax::make_string_imm(s->value);
      break;
    default:
      break;
  }
  return to_relax_expr(interp, v, what);
}

void def_lowered_op(Namespace& ns, const OpSpec& spec, const std::string& short_name) {
  std::string op = spec.name;
  std::string kinds = spec.kinds;
  std::string sig;
  for (size_t i = 0; i < kinds.size(); ++i) sig += fmt::format("{}a{}", i ? ", " : "", i);
  sig += kinds.empty() ? "sinfo_args=None" : ", sinfo_args=None";
  // Optional trailing arguments (TVM's defaults): a runtime device index of 0, scope "global".
  if (op == "relax.builtin.alloc_tensor") sig = "a0, a1, a2, a3=\"global\", sinfo_args=None";
  if (op == "relax.memory.alloc_tensor" || op == "relax.vm.alloc_tensor") sig = "a0, a1, a2, a3, a4=0, sinfo_args=None";
  if (op == "relax.vm.alloc_storage") sig = "a0, a1, a2, a3=\"global\", sinfo_args=None";
  def_function(ns, short_name, sig, [op, kinds](Interpreter& interp, Args& a) {
    std::vector<relax::Expr> args;
    for (size_t i = 0; i < kinds.size(); ++i) args.push_back(spec_arg(interp, kinds[i], a[i], "R." + op.substr(6)));
    return call_op(op, std::move(args), sinfo_args_arg(interp, a[kinds.size()]));
  });
}

}  // namespace

void def_lowered_ops(Namespace& ns) {
  auto group = [&](const char* name) {
    auto sub = std::make_shared<script::Module>(std::string("tvm.script.relax.") + name);
    ns.set(intern(name), Value(sub));
    return sub;
  };
  auto builtin = group("builtin");
  auto memory = group("memory");
  auto vm = group("vm");
  for (const auto& spec : kLoweredOps) {
    std::string full = spec.name;
    std::string rest = full.substr(6);
    size_t dot = rest.find('.');
    if (dot == std::string::npos) {
      def_lowered_op(ns, spec, rest);
      continue;
    }
    std::string g = rest.substr(0, dot), fn = rest.substr(dot + 1);
    Namespace& target = g == "builtin" ? *builtin->globals : g == "memory" ? *memory->globals : *vm->globals;
    def_lowered_op(target, spec, fn);
  }
}

}  // namespace tsch::bindings
