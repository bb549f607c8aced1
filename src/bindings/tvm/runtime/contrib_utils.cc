// tvm.contrib.utils: tempdir() — a private temporary directory (support/files.h's TempDir)
// for the files a script writes with export_library and reads back with load_module; it is
// removed with what it holds when the script no longer refers to it. relpath only names
// files inside it.
#include <filesystem>

#include "script/exceptions.h"
#include "script/interpreter.h"
#include "script/modules.h"
#include "support/files.h"

namespace tsch::bindings {

using script::Args;
using script::ExcKind;
using script::raise;
using script::TypeObject;
using script::TypeRef;
using script::Value;

namespace {

class TempDirectoryValue : public script::Object {
 public:
  TempDirectoryValue() : dir(std::make_unique<TempDir>()) {}
  TypeObject* type() const override;
  std::string repr_hook(script::Interpreter&) override { return "<TempDirectory \"" + path() + "\">"; }
  const std::string& path() const {
    if (!dir) raise(ExcKind::RuntimeError, "the temporary directory was removed");
    return dir->path();
  }
  std::unique_ptr<TempDir> dir;
};

TypeObject* TempDirectoryValue::type() const {
  static TypeRef t = [] {
    auto type = std::make_shared<TypeObject>("TempDirectory");
    type->set_module("tvm.contrib.utils");
    type->def("relpath", "self, name", [](script::Interpreter&, Args& a) {
      std::string name = a.get_str(1);
      std::filesystem::path p(name);
      bool inside = !name.empty() && p.is_relative();
      for (const auto& part : p) inside = inside && part != "..";
      if (!inside) a.value_error(1, "relpath names a file inside the temporary directory, got '" + name + "'");
      return script::make_str(a[0].as<TempDirectoryValue>()->path() + "/" + name);
    });
    type->def("listdir", "self", [](script::Interpreter&, Args& a) {
      std::vector<Value> names;
      for (const auto& entry : std::filesystem::directory_iterator(a[0].as<TempDirectoryValue>()->path())) {
        names.push_back(script::make_str(entry.path().filename().string()));
      }
      return script::make_list(std::move(names));
    });
    type->def("remove", "self", [](script::Interpreter&, Args& a) {
      a[0].as<TempDirectoryValue>()->dir.reset();
      return Value();
    });
    type->def_property("temp_dir", [](script::Interpreter&, const Value& v) {
      return script::make_str(v.as<TempDirectoryValue>()->path());
    });
    return type;
  }();
  return t.get();
}

}  // namespace

void register_tvm_contrib_modules() {
  script::ModuleLoader::register_builtin("tvm.contrib.utils", [](script::Interpreter&, script::Module& m) {
    script::def_function(
        *m.globals, "tempdir", "custom_path=None, keep_for_debug=None",
        [](script::Interpreter&, Args& a) -> Value {
          if (!a[0].is_none())
            raise(ExcKind::NotImplementedError,
                  "not supported yet: tempdir(custom_path) (scripts write only to private temporary directories)");
          try {
            return Value(std::make_shared<TempDirectoryValue>());
          } catch (const std::runtime_error& e) {
            raise(ExcKind::OSError, std::string("tempdir: ") + e.what());
          }
        },
        "tempdir(): a private temporary directory, removed when no longer used; relpath(name) names a file in it.");
  });
  // tvm.contrib.cc: the system C compiler, started from an argv (never a shell).
  script::ModuleLoader::register_builtin("tvm.contrib.cc", [](script::Interpreter&, script::Module& m) {
    script::def_function(
        *m.globals, "create_shared", "output, objects, options=None, cc=None",
        [](script::Interpreter& interp, Args& a) -> Value {
          if (!a[3].is_none())
            raise(ExcKind::NotImplementedError,
                  "not supported yet: create_shared(cc=...) (tsch links with the system cc)");
          std::vector<std::string> argv = {"cc", "-shared", "-fPIC", "-o", a.get_path(0)};
          std::vector<Value> objects = a[1].as<script::Str>() ? std::vector<Value>{a[1]} : interp.to_vector(a[1]);
          for (const Value& o : objects) {
            auto* s = o.as<script::Str>();
            if (!s) a.type_error(1, "a list of file names");
            if (s->value.empty() || s->value[0] == '-' || s->value.find('\0') != std::string::npos)
              a.value_error(1, "an object file name, got '" + s->value + "'");
            argv.push_back(s->value);
          }
          if (!a[2].is_none()) {
            for (const Value& o : interp.to_vector(a[2])) {
              auto* s = o.as<script::Str>();
              // Only what links a library: options that run programs or read other files stay out.
              if (!s || !(s->value == "-O2" || s->value == "-O3" || s->value == "-g" || s->value == "-lm"))
                a.value_error(2, "not supported yet: the option '" + (s ? s->value : interp.repr(o)) +
                                     "' (tsch passes -O2, -O3, -g, -lm)");
              argv.push_back(s->value);
            }
          }
          argv.push_back("-lm");
          ProcessResult r = run_process(argv);
          if (r.exit_code != 0) raise(ExcKind::RuntimeError, "Compilation error:\n" + r.output);
          return Value();
        },
        "create_shared(output, objects, options=None): link object files into a shared library with the system "
        "compiler.");
  });
  script::ModuleLoader::register_builtin("tvm.contrib", [](script::Interpreter& interp, script::Module& m) {
    m.globals->set(intern("utils"), Value(interp.modules().import(interp, "tvm.contrib.utils", "")));
    m.globals->set(intern("cc"), Value(interp.modules().import(interp, "tvm.contrib.cc", "")));
  });
}

}  // namespace tsch::bindings
