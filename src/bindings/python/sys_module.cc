// The `sys` module: argv, stdout/stderr, path, exit().
#include <cstdio>

#include "bindings/python/python_modules.h"
#include "script/exceptions.h"
#include "script/interpreter.h"
#include "script/modules.h"

namespace tsch::script {

Value make_stream(FILE* file);

// Set by main before scripts run.
std::vector<std::string>& script_argv() {
  static std::vector<std::string> argv;
  return argv;
}

namespace {}  // namespace

void register_sys_module() {
  ModuleLoader::register_builtin("sys", [](Interpreter& interp, Module& m) {
    std::vector<Value> argv;
    for (const auto& a : script_argv()) argv.push_back(make_str(a));
    m.globals->set(intern("argv"), make_list(std::move(argv)));
    m.globals->set(intern("stdout"), make_stream(stdout));
    m.globals->set(intern("stderr"), make_stream(stderr));
    m.globals->set(intern("version"), make_str(std::string("tsch ") + TSCH_VERSION));
    m.globals->set(intern("maxsize"), Value::integer(INT64_MAX));
    std::vector<Value> path;
    for (const auto& p : interp.modules().search_path("")) path.push_back(make_str(p));
    m.globals->set(intern("path"), make_list(std::move(path)));
    def_function(*m.globals, "exit", "status=None", [](Interpreter&, Args& a) -> Value {
      throw ScriptError(make_exception(exception_type(ExcKind::SystemExit), {a[0]}));
    });
    def_function(*m.globals, "getrecursionlimit", "",
                 [](Interpreter&, Args&) { return Value::integer(Interpreter::kMaxDepth); });
  });
}

}  // namespace tsch::script
