// tvm.build / tvm.compile / tvm.lower and tvm.target: lowering through src/transform and
// code generation through src/codegen. Builds are cached by (lowered IR text, target).
#include <cstdio>
#include <cstdlib>
#include <list>

#include "bindings/ir_values.h"
#include "bindings/runtime_values.h"
#include "bindings/tvm_build.h"
#include "codegen/llvm/llvm_build.h"
#include "ir/printer.h"
#include "runtime/thread_pool.h"
#include "script/exceptions.h"
#include "support/diagnostics.h"
#include "script/modules.h"
#include "transform/pipeline.h"

namespace tsch::bindings {

using script::Args;
using script::ExcKind;
using script::Namespace;
using script::raise;
using script::TypeObject;
using script::TypeRef;
using tsch::intern;

namespace {

class TargetValue : public script::Object {
 public:
  TargetValue(std::string text, Value host) : text(std::move(text)), host(std::move(host)) {}
  TypeObject* type() const override {
    static TypeRef t = [] {
      auto t = std::make_shared<TypeObject>("Target");
      t->set_module("tvm.target");
      t->def("__str__", "self", [](Interpreter&, Args& a) { return script::make_str(a[0].as<TargetValue>()->text); });
      t->def_property("kind", [](Interpreter&, const Value& v) {
        const std::string& s = v.as<TargetValue>()->text;
        return script::make_str(s.substr(0, s.find(' ')));
      });
      t->def_property("host", [](Interpreter&, const Value& v) { return v.as<TargetValue>()->host; });
      return t;
    }();
    return t.get();
  }
  std::string repr_hook(Interpreter&) override { return "T.target(\"" + text + "\")"; }
  std::string text;
  Value host;
};

bool print_after_all() {
  const char* env = std::getenv("TSCH_PRINT_AFTER_ALL");
  return env && *env && std::string(env) != "0";
}

// The module to build, with functions named by their global symbol.
ir::IRModule module_arg(Interpreter& interp, const Value& v) {
  if (auto* f = v.as<PrimFuncValue>()) {
    auto mod = std::make_shared<ir::IRModuleNode>();
    mod->functions.emplace_back(f->name, f->func);
    return mod;
  }
  // Compiled functions are named by their global symbol (a scheduled PrimFunc lives under
  // "main" in sch.mod but keeps its own name), as TVM does.
  ir::IRModule m = to_module(interp, v, "tvm.build");
  auto out = std::make_shared<ir::IRModuleNode>();
  for (const auto& [name, f] : m->functions) {
    const ir::AttrValue* symbol = ir::find_attr(f->attrs, "global_symbol");
    out->functions.emplace_back(symbol && symbol->kind == ir::AttrValue::Kind::Str ? symbol->s : name, f);
  }
  return out;
}

ir::IRModule lower_module(Interpreter& interp, const ir::IRModule& mod) {
  transform::LowerOptions options;
  if (print_after_all()) {
    options.after_pass = [&interp](const std::string& pass, const std::string& func, const ir::PrimFunc& f) {
      interp.write_stdout("# IR after " + pass + " (" + func + "):\n" + ir::script(f, func));
    };
  }
  transform::lowering_notes().clear();
  ir::IRModule lowered = guard_ir([&] { return transform::lower(mod, options); });
  std::fflush(stdout);  // keep the notes in order with what the script printed
  for (const auto& note : transform::lowering_notes()) std::fprintf(stderr, "note: %s\n", note.c_str());
  std::fflush(stderr);
  transform::lowering_notes().clear();
  return lowered;
}

std::string target_text(Interpreter& interp, const Value& v) {
  if (v.is_none()) return "llvm";
  if (auto* t = v.as<TargetValue>()) return t->text;
  if (auto* s = v.as<script::Str>()) return s->value;
  if (auto* d = v.as<script::Dict>()) {
    if (d->size() == 1) return target_text(interp, d->items()[0].first);
  }
  raise(ExcKind::TypeError, "target: expected a str or tvm.target.Target, got " + Interpreter::type_name(v));
}

Value build(Interpreter& interp, const Value& mod_value, const Value& target_value) {
  std::string text = target_text(interp, target_value);
  std::string kind = text.substr(0, text.find(' '));
  if (kind == "cuda" || kind == "nvptx")
    raise(ExcKind::RuntimeError, "not supported yet: target \"" + kind + "\" (CUDA code generation); build with target=\"llvm\"");
  ir::IRModule lowered = lower_module(interp, module_arg(interp, mod_value));
  codegen::LLVMTarget target;
  try {
    target = codegen::parse_llvm_target(text);
  } catch (const runtime::BuildError& e) {
    raise(ExcKind::ValueError, e.what());
  }
  if (target.num_cores > 0) runtime::set_num_threads(target.num_cores);
  // Repeated builds of the same code (REPL, tuning) reuse the compiled module. The cache is
  // bounded (oldest dropped first) so a long search does not keep every JIT module alive.
  constexpr size_t kCacheSize = 64;
  static std::list<std::pair<std::string, runtime::CompiledModuleRef>> cache;
  std::string key = text + "\n" + ir::script(lowered);
  for (auto it = cache.begin(); it != cache.end(); ++it) {
    if (it->first != key) continue;
    cache.splice(cache.begin(), cache, it);  // most recently used first
    return wrap_module(cache.front().second);
  }
  try {
    runtime::CompiledModuleRef m = codegen::build_llvm(lowered, target);
    cache.emplace_front(key, m);
    if (cache.size() > kCacheSize) cache.pop_back();
    return wrap_module(m);
  } catch (const runtime::BuildError& e) {
    raise(ExcKind::RuntimeError, e.what());
  } catch (const std::exception& e) {
    internal_fail(__FILE__, __LINE__, std::string("code generation: ") + e.what());
  }
}

}  // namespace

void install_build_functions(Namespace& ns) {
  script::def_function(ns, "build", "inputs, target=None, target_host=None, name=None", [](Interpreter& interp, Args& a) {
    return build(interp, a[0], a[1]);
  }, "build(mod, target=\"llvm\"): lower and compile a PrimFunc or IRModule; returns a module whose functions take arrays.");
  script::def_function(ns, "compile", "mod, target=None", [](Interpreter& interp, Args& a) {
    return build(interp, a[0], a[1]);
  }, "compile(mod, target=\"llvm\"): as build; the result's .mod is the module itself.");
  script::def_function(ns, "lower", "inp, args=None, name='main', binds=None, simple_mode=False", [](Interpreter& interp, Args& a) {
    return Value(std::make_shared<IRModuleValue>(lower_module(interp, module_arg(interp, a[0]))));
  }, "lower(mod): the module after the lowering passes (blocks removed, buffers flattened).");
}

void register_tvm_build_modules() {
  script::ModuleLoader::register_builtin("tvm.target", [](Interpreter&, script::Module& m) {
    script::def_function(*m.globals, "Target", "target, host=None", [](Interpreter& interp, Args& a) {
      std::string text = target_text(interp, a[0]);
      return Value(std::make_shared<TargetValue>(text, a[1]));
    });
  });
  script::ModuleLoader::register_builtin("tvm.driver", [](Interpreter&, script::Module& m) { install_build_functions(*m.globals); });
}

}  // namespace tsch::bindings
