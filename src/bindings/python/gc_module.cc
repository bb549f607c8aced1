// The `gc` module, as CPython's for scripts that call it (TVM's tests call gc.collect()
// before checking reference counts): collect, enable, disable, isenabled.
#include <memory>

#include "bindings/python/python_modules.h"
#include "script/exceptions.h"
#include "script/interpreter.h"
#include "script/modules.h"

namespace tsch::script {

void register_gc_module() {
  ModuleLoader::register_builtin("gc", [](Interpreter&, Module& m) {
    Namespace& ns = *m.globals;
    // One switch per imported module (per interpreter). It changes nothing but isenabled():
    // there is no cycle collector to switch off.
    auto enabled = std::make_shared<bool>(true);
    def_function(
        ns, "collect", "generation=2",
        [](Interpreter&, Args& a) {
          int64_t generation = a.get_int(0);
          if (generation < 0 || generation > 2) raise(ExcKind::ValueError, "invalid generation");
          // tsch frees a value by reference counting as soon as it becomes unreachable, so
          // there is never garbage left to collect: 0 objects found, as CPython says with none.
          return Value::integer(0);
        },
        "collect(generation=2): run a collection; returns the number of unreachable objects found "
        "(always 0: tsch frees values by reference counting as soon as they are unreachable).");
    def_function(
        ns, "enable", "",
        [enabled](Interpreter&, Args&) {
          *enabled = true;
          return Value();
        },
        "enable(): enable automatic garbage collection.");
    def_function(
        ns, "disable", "",
        [enabled](Interpreter&, Args&) {
          *enabled = false;
          return Value();
        },
        "disable(): disable automatic garbage collection.");
    def_function(
        ns, "isenabled", "", [enabled](Interpreter&, Args&) { return Value::boolean(*enabled); },
        "isenabled(): True if automatic garbage collection is enabled.");
  });
}

}  // namespace tsch::script
