// The `time` module: wall and monotonic clocks and sleep (interruptible by Ctrl-C).
#include <chrono>
#include <thread>

#include "script/exceptions.h"
#include "script/interpreter.h"
#include "script/modules.h"

namespace tsch::script {

void register_time_module() {
  ModuleLoader::register_builtin("time", [](Interpreter&, Module& m) {
    Namespace& ns = *m.globals;
    def_function(ns, "time", "", [](Interpreter&, Args&) {
      auto now = std::chrono::system_clock::now().time_since_epoch();
      return Value::real(std::chrono::duration<double>(now).count());
    });
    auto monotonic = [](Interpreter&, Args&) {
      auto now = std::chrono::steady_clock::now().time_since_epoch();
      return Value::real(std::chrono::duration<double>(now).count());
    };
    def_function(ns, "perf_counter", "", monotonic);
    def_function(ns, "monotonic", "", monotonic);
    def_function(ns, "sleep", "secs", [](Interpreter& interp, Args& a) {
      double secs = a.get_float(0);
      if (secs < 0) raise(ExcKind::ValueError, "sleep length must be non-negative");
      auto end = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(secs));
      while (std::chrono::steady_clock::now() < end) {
        interp.check_interrupt();
        auto left = end - std::chrono::steady_clock::now();
        std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(left, std::chrono::milliseconds(20)));
      }
      return Value();
    });
  });
}

}  // namespace tsch::script
