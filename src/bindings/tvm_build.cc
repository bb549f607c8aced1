// tvm.build / tvm.compile / tvm.lower: the script side of driver::build (the target as given,
// else the `with target:` scope's, else llvm; lowering notes printed; errors raised).
#include "bindings/tvm_build.h"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>

#include "bindings/tvm/relax/relax_module.h"
#include "bindings/tvm/runtime/runtime_values.h"
#include "bindings/tvm/target/build_options.h"
#include "bindings/tvm/target/target_values.h"
#include "bindings/tvm/te/te_values.h"
#include "driver/build.h"
#include "driver/differential.h"
#include "ir/printer.h"
#include "runtime/thread_pool.h"
#include "script/exceptions.h"
#include "script/modules.h"
#include "support/checked_size.h"
#include "support/diagnostics.h"
#include "transform/pass.h"
#include "transform/pipeline.h"
#include "values/ir_values.h"

namespace tsch::bindings {

using script::Args;
using script::ExcKind;
using script::Namespace;
using script::raise;
using script::TypeObject;
using script::TypeRef;
using tsch::intern;

namespace {

// The module to build, with functions named by their global symbol.
ir::IRModule module_arg(Interpreter& interp, const Value& v) {
  if (auto* f = v.as<PrimFuncValue>()) {
    return ir::module_of(f->name, f->func);
  }
  // Compiled functions are named by their global symbol (a scheduled PrimFunc lives under
  // "main" in sch.mod but keeps its own name), as TVM does.
  ir::IRModule m = to_module(interp, v, "tvm.build");
  auto out = std::make_shared<ir::IRModuleNode>();
  out->attrs = m->attrs;
  for (const auto& [name, f] : m->functions) {
    std::string symbol = ir::global_symbol(*f);
    out->functions.emplace_back(symbol.empty() ? name : symbol, f);
  }
  return out;
}

}  // namespace

namespace {

Value lower(Interpreter& interp, const Value& mod_value, const Value& args, const std::string& name) {
  std::vector<std::string> notes;
  std::optional<ir::IRModule> te_mod = te_schedule_module(interp, mod_value, args, name);
  ir::IRModule mod = te_mod ? *te_mod : module_arg(interp, mod_value);
  target::Target target = build_target(interp, Value());
  ir::IRModule lowered = guard_ir([&] { return driver::lower(mod, target, build_options(interp, &notes)); });
  print_notes(notes);
  return Value(std::make_shared<IRModuleValue>(lowered));
}

Value build(Interpreter& interp, const Value& mod_value, const Value& target_value, const Value& args = Value(),
            const std::string& name = "default_function") {
  target::Target target = build_target(interp, target_value);
  std::optional<ir::IRModule> te_mod = te_schedule_module(interp, mod_value, args, name);
  ir::IRModule mod = te_mod ? *te_mod : module_arg(interp, mod_value);
  std::vector<std::string> notes;
  runtime::CompiledModuleRef m;
  try {
    m = guard_ir([&] { return driver::build(mod, target, build_options(interp, &notes)); });
  } catch (const runtime::BuildError& e) {
    print_notes(notes);
    raise(ExcKind::RuntimeError, e.what());
  } catch (const UserError& e) {
    raise(script::exception_kind_of(e.kind), e.what());
  }
  print_notes(notes);
  guard_core([&] { driver::check_built(mod, target); });
  return wrap_module(m);
}

// The second argument is the target; what the third (or target=) is tells what went wrong:
// another target, or TVM 0.23's pipeline (`tvm.build(mod, "llvm", "main")`, meant as a name).
std::string second_target_message(Interpreter& interp, const Value& target, const Value& third) {
  bool a_target = third.as<TargetValue>() != nullptr;
  if (auto* text = third.as<script::Str>()) {
    try {
      target::parse_target(text->value);
      a_target = true;
    } catch (const UserError&) {
    }
  }
  if (a_target) {
    return fmt::format("build: two targets: {} (the second argument) and {} (the third, or target=)",
                       interp.repr(target), interp.repr(third));
  }
  return fmt::format(
      "build: the second argument {} is the target, so the third, {}, would be TVM 0.23's pipeline (not supported "
      "yet: tsch builds with the default pipeline); to name the function, pass name=",
      interp.repr(target), interp.repr(third));
}

}  // namespace

void install_build_functions(Namespace& ns) {
  // TVM 0.18's tvm.build(inputs, args, target, ...) and 0.23's tvm.build(mod, target): the
  // second argument is the argument list of a te schedule, else the target.
  script::def_function(
      ns, "build", "inputs, args=None, target=None, target_host=None, runtime=None, name=None, binds=None",
      [](Interpreter& interp, Args& a) {
        bool arg_list = a[1].as<script::List>() || a[1].as<script::Tuple>();
        if (!a[1].is_none() && !arg_list) {
          if (!a[2].is_none()) raise(ExcKind::TypeError, second_target_message(interp, a[1], a[2]));
          return build(interp, a[0], a[1]);
        }
        if (!a[6].is_none()) raise(ExcKind::NotImplementedError, "not supported yet: tvm.build binds=");
        return build(interp, a[0], a[2], a[1], a[5].is_none() ? "default_function" : a.get_str(5));
      },
      "build(mod, target=\"llvm\") / build(s, [A, B, C], target, name=): lower and compile a PrimFunc, IRModule or te "
      "schedule; "
      "returns a module whose functions take arrays.");
  script::def_function(
      ns, "compile", "mod, target=None, relax_pipeline=\"default\", tir_pipeline=\"default\"",
      [](Interpreter& interp, Args& a) {
        if (has_relax_functions(interp, a[0])) return compile_relax_module(interp, a[0], a[1]);
        return build(interp, a[0], a[1]);
      },
      "compile(mod, target=\"llvm\"): as build; the result's .mod is the module itself.");
  script::def_function(
      ns, "lower", "inp, args=None, name='main', binds=None, simple_mode=False",
      [](Interpreter& interp, Args& a) {
        if (!a[3].is_none()) raise(ExcKind::NotImplementedError, "not supported yet: tvm.lower binds=");
        return lower(interp, a[0], a[1], a.get_str(2));
      },
      "lower(mod) / lower(s, [A, B, C], simple_mode=True): the module after the lowering passes (blocks removed, "
      "buffers flattened).");
}

void register_tvm_build_modules() {
  script::ModuleLoader::register_builtin("tvm.driver",
                                         [](Interpreter&, script::Module& m) { install_build_functions(*m.globals); });
}

}  // namespace tsch::bindings
