// TSCH_CHECK_ROUNDTRIP: print, parse back through tvm.script.from_source, compare. Apart from
// tvm_module.cc, which installs the prim_func hook, so the Relax front end can call it too.
#include "bindings/tvm/script/roundtrip_check.h"

#include <atomic>
#include <cstdlib>
#include <functional>

#include "ir/printer.h"
#include "ir/structural_equal.h"
#include "script/exceptions.h"
#include "script/interpreter.h"
#include "script/modules.h"
#include "values/ir_values.h"

namespace tsch::bindings {

using script::ExcKind;
using script::raise;

namespace {
std::atomic<int64_t> failed_roundtrips{0};
}  // namespace

int64_t roundtrip_failures() { return failed_roundtrips; }

// With TSCH_CHECK_ROUNDTRIP=1 every function (and every module holding functions other than
// prim_funcs) is printed, parsed back and compared as it is created: the test suite runs its
// TVMScript cases this way (printing is a fixed point).
namespace {

bool roundtrip_enabled() {
  static const bool on = std::getenv("TSCH_CHECK_ROUNDTRIP") != nullptr;
  return on;
}

void check_text_roundtrip(Interpreter& interp, const std::string& what, const std::string& text,
                          const std::function<std::string(const Value&)>& print_again,
                          const std::function<ir::StructuralDiff(const Value&)>& compare) {
  static thread_local bool inside = false;
  if (inside) return;
  inside = true;
  struct Reset {
    ~Reset() { inside = false; }
  } reset;
  script::CallArgs args;
  args.positional.push_back(script::make_str(text));
  auto tvm_script = interp.modules().import(interp, "tvm.script", "");
  Value again = interp.call(*tvm_script->globals->find(intern("from_source")), std::move(args));
  auto failed = [&](const std::string& why) {
    ++failed_roundtrips;
    raise(ExcKind::RuntimeError, "round trip of " + what + ": " + why);
  };
  std::string text2 = print_again(again);
  if (text2.empty()) failed("the printed text does not define the same kind of object");
  if (text2 != text) failed("printing is not a fixed point:\n" + text + "\n---\n" + text2);
  ir::StructuralDiff d = compare(again);
  if (!d.equal) failed("not structurally equal at " + d.path + ": " + d.lhs + " vs " + d.rhs);
}

}  // namespace

// Printed with their constants (show_meta), so modules holding arrays read back too.
ir::PrintOptions roundtrip_options() {
  ir::PrintOptions o;
  o.show_meta = true;
  return o;
}

void check_roundtrip(Interpreter& interp, const ir::BaseFunc& f, const std::string& name) {
  std::string text = ir::script(f, name, roundtrip_options());
  auto module_of = [&](const ir::BaseFunc& g) {
    auto m = std::make_shared<ir::IRModuleNode>();
    m->functions.emplace_back("main", g);
    return ir::IRModule(m);
  };
  check_text_roundtrip(
      interp, name, text,
      [&](const Value& v) {
        auto* g = v.as<FunctionValue>();
        return g && g->base_func()->func_kind() == f->func_kind()
                   ? ir::script(g->base_func(), g->name, roundtrip_options())
                   : std::string();
      },
      [&](const Value& v) { return ir::structural_diff(module_of(f), module_of(v.as<FunctionValue>()->base_func())); });
}

void check_module_roundtrip(Interpreter& interp, const ir::IRModule& mod) {
  if (!roundtrip_enabled() || mod->has_only_prim_funcs()) return;
  check_text_roundtrip(
      interp, "the module", ir::script(mod, roundtrip_options()),
      [&](const Value& v) {
        auto* m = v.as<IRModuleValue>();
        return m ? ir::script(m->module, roundtrip_options()) : std::string();
      },
      [&](const Value& v) { return ir::structural_diff(mod, v.as<IRModuleValue>()->module); });
}

}  // namespace tsch::bindings
