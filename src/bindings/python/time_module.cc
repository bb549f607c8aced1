// The `time` module: wall and monotonic clocks and sleep (interruptible by Ctrl-C); and
// `timeit` (timeit.timeit / repeat / default_timer), as TVM's tutorials time numpy with it.
#include <chrono>
#include <thread>

#include "bindings/python/python_modules.h"
#include "script/exceptions.h"
#include "script/interpreter.h"
#include "script/modules.h"
#include "support/source.h"

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
      auto end = std::chrono::steady_clock::now() +
                 std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(secs));
      while (std::chrono::steady_clock::now() < end) {
        interp.check_interrupt();
        auto left = end - std::chrono::steady_clock::now();
        std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(left, std::chrono::milliseconds(20)));
      }
      return Value();
    });
  });
  ModuleLoader::register_builtin("timeit", [](Interpreter&, Module& m) {
    Namespace& ns = *m.globals;
    def_function(ns, "default_timer", "", [](Interpreter&, Args&) {
      return Value::real(std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count());
    });
    // Python's timeit: `setup` runs once, then `stmt` `number` times; the seconds the loop
    // took. Statements given as text run as script code in a namespace of their own (or
    // `globals`), as Python's do.
    auto time_it = [](Interpreter& interp, const Value& stmt, const Value& setup, int64_t number,
                      const Value& globals) -> double {
      if (number < 0) raise(ExcKind::ValueError, "timeit: number must be non-negative");
      NamespaceRef scope = interp.make_main_globals("");
      if (!globals.is_none()) {
        auto* d = globals.as<Dict>();
        if (!d) raise(ExcKind::TypeError, "timeit: globals must be a dict");
        for (const auto& [k, v] : d->items()) {
          if (auto* key = k.as<Str>()) scope->set(intern(key->value), v);
        }
      }
      auto run_text = [&](const Value& code, const std::string& name, int64_t times) {
        std::string text = code.as<Str>()->value;
        if (times >= 0) {
          std::string body;
          size_t start = 0;
          while (start <= text.size()) {
            size_t end = text.find('\n', start);
            body += "    " + text.substr(start, end == std::string::npos ? std::string::npos : end - start) + "\n";
            if (end == std::string::npos) break;
            start = end + 1;
          }
          text = "for _timeit_i in range(" + std::to_string(times) + "):\n" + body;
        }
        interp.exec_source(SourceFile::make(name, text + "\n"), scope);
      };
      if (setup.as<Str>()) {
        run_text(setup, "<timeit-setup>", -1);
      } else if (!setup.is_none()) {
        interp.call(setup, std::vector<Value>{});
      }
      auto start = std::chrono::steady_clock::now();
      if (stmt.as<Str>()) {
        run_text(stmt, "<timeit-src>", number);
      } else {
        for (int64_t i = 0; i < number; ++i) interp.call(stmt, std::vector<Value>{});
      }
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    def_function(ns, "timeit", "stmt=\"pass\", setup=\"pass\", timer=None, number=1000000, globals=None",
                 [time_it](Interpreter& interp, Args& a) {
                   return Value::real(time_it(interp, a[0], a[1], a.get_int(3), a[4]));
                 });
    def_function(ns, "repeat", "stmt=\"pass\", setup=\"pass\", timer=None, repeat=5, number=1000000, globals=None",
                 [time_it](Interpreter& interp, Args& a) {
                   std::vector<Value> out;
                   for (int64_t r = 0; r < a.get_int(3); ++r)
                     out.push_back(Value::real(time_it(interp, a[0], a[1], a.get_int(4), a[5])));
                   return make_list(std::move(out));
                 });
  });
}

}  // namespace tsch::script
