// The `tvm.relax` package in scripts: relax.build (and tvm.compile for modules with Relax
// functions) over relax/build.h, the Executable it returns (export_library, as_text,
// stats), relax.VirtualMachine over runtime/vm (vm["main"](...), set_input /
// invoke_stateful / get_outputs, time_evaluator, memory statistics), relax.transform.<Pass>()
// for each pass of the pipeline, and the Relax types scripts name (relax.Function ...).
#include "bindings/tvm/relax/relax_module.h"

#include <fmt/format.h>

#include <cstdio>

#include "bindings/tvm/runtime/registry_values.h"
#include "bindings/tvm/runtime/runtime_values.h"
#include "bindings/tvm/target/build_options.h"
#include "bindings/tvm/target/target_values.h"
#include "bindings/tvm/tir/transform_values.h"
#include "ir/printer.h"
#include "numpy/ndarray_value.h"
#include "relax/build.h"
#include "relax/expr.h"
#include "relax/reference.h"
#include "relax/transform/passes.h"
#include "runtime/registry.h"
#include "runtime/time_evaluator.h"
#include "runtime/vm/vm.h"
#include "script/exceptions.h"
#include "script/modules.h"
#include "values/relax_values.h"

namespace tsch::bindings {

using script::Args;
using script::ExcKind;
using script::Namespace;
using script::raise;
using script::TypeObject;
using script::TypeRef;

namespace {

class ExecutableValue : public script::Object {
 public:
  explicit ExecutableValue(relax::Executable e) : ex(std::move(e)) {}
  TypeObject* type() const override;
  std::string repr_hook(Interpreter&) override { return "<tvm.relax.Executable>"; }
  relax::Executable ex;
};

class VirtualMachineValue : public script::Object {
 public:
  VirtualMachineValue(std::shared_ptr<runtime::vm::VirtualMachine> v, relax::Executable e)
      : vm(std::move(v)), ex(std::move(e)) {}
  TypeObject* type() const override;
  std::string repr_hook(Interpreter&) override { return "<tvm.relax.VirtualMachine>"; }
  std::shared_ptr<runtime::vm::VirtualMachine> vm;
  relax::Executable ex;
};

// The module to build: Relax and TIR functions under their names.
ir::IRModule relax_module_arg(Interpreter& interp, const Value& v) { return to_module(interp, v, "relax.build"); }

Value relax_build(Interpreter& interp, const Value& mod_value, const Value& target_value) {
  ir::IRModule mod = relax_module_arg(interp, mod_value);
  target::Target target = build_target(interp, target_value);
  relax::RelaxBuildOptions options;
  std::vector<std::string> notes;
  options.tir = build_options(interp, &notes);
  if (print_after_all()) {
    options.after_pass = [&interp](const std::string& pass, const ir::IRModule& m) {
      interp.write_stdout("# IR after " + pass + ":\n" + ir::script(m));
    };
  }
  relax::Executable ex;
  try {
    ex = guard_ir([&] { return relax::build(mod, target, options); });
  } catch (const runtime::BuildError& e) {
    raise(ExcKind::RuntimeError, e.what());
  }
  print_notes(notes);
  return Value(std::make_shared<ExecutableValue>(std::move(ex)));
}

std::vector<runtime::Any> any_args(Interpreter& interp, const std::vector<Value>& values) {
  std::vector<runtime::Any> out;
  for (const auto& v : values) out.push_back(value_to_any(interp, v));
  return out;
}

runtime::vm::VirtualMachine& vm_of(const Value& v) { return *v.as<VirtualMachineValue>()->vm; }

runtime::PackedFunc vm_function(const Value& self, const std::string& name) {
  auto& vm = vm_of(self);
  runtime::PackedFunc f = relax::checked_vm_function(vm.get_function(name), self.as<VirtualMachineValue>()->ex, name);
  if (!f) {
    std::string names;
    for (const auto& info : vm.executable().func_table) {
      if (info.kind == runtime::vm::VMFuncInfo::FuncKind::kVMFunc) names += (names.empty() ? "" : ", ") + info.name;
    }
    raise(ExcKind::AttributeError, fmt::format("the VM has no function '{}' (it has: {})", name, names));
  }
  return f;
}

TypeRef executable_type() {
  static TypeRef t = [] {
    auto type = std::make_shared<TypeObject>("Executable");
    type->set_module("tvm.relax");
    type->def(
        "as_text", "self",
        [](Interpreter&, Args& a) { return script::make_str(a[0].as<ExecutableValue>()->ex.bytecode->as_text()); },
        "as_text(): the VM bytecode, one instruction per line.");
    type->def("as_python", "self", [](Interpreter&, Args& a) {
      return script::make_str(a[0].as<ExecutableValue>()->ex.bytecode->as_python());
    });
    type->def("stats", "self",
              [](Interpreter&, Args& a) { return script::make_str(a[0].as<ExecutableValue>()->ex.bytecode->stats()); });
    type->def(
        "export_library", "self, file_name, fcompile=None, workspace_dir=None",
        [](Interpreter&, Args& a) {
          const auto& ex = a[0].as<ExecutableValue>()->ex;
          std::string path = a.get_path(1);
          guard_core([&] { relax::export_executable(ex, path); });
          return Value();
        },
        "export_library(path): the compiled prim_funcs and the bytecode in one file; tvm.runtime.load_module reads "
        "it.");
    type->def_property("mod", [](Interpreter&, const Value& v) {
      const auto& ex = v.as<ExecutableValue>()->ex;
      if (!ex.library) raise(ExcKind::AttributeError, "this executable has no compiled prim_funcs");
      return wrap_module(ex.library);
    });
    return type;
  }();
  return t;
}

TypeObject* ExecutableValue::type() const { return executable_type().get(); }

Value make_vm(Interpreter& interp, Args& a) {
  auto* ex = a[0].as<ExecutableValue>();
  if (!ex) a.type_error(0, "an Executable from relax.build / tvm.compile");
  std::vector<runtime::Device> devices;
  if (a[1].as<script::List>() || a[1].as<script::Tuple>()) {
    for (const auto& d : interp.to_vector(a[1])) devices.push_back(device_arg(interp, d));
  } else {
    devices.push_back(device_arg(interp, a[1]));
  }
  for (const auto& d : devices) {
    if (d.type != runtime::DeviceType::CPU) {
      raise(ExcKind::NotImplementedError,
            "not supported yet: running the Relax VM on " + d.str() + " (only tvm.cpu())");
    }
  }
  auto vm = guard_core(
      [&] { return std::make_shared<runtime::vm::VirtualMachine>(ex->ex.bytecode, ex->ex.library, devices); });
  return Value(std::make_shared<VirtualMachineValue>(vm, ex->ex));
}

TypeRef vm_type() {
  static TypeRef t = [] {
    auto type = std::make_shared<TypeObject>("VirtualMachine");
    type->set_module("tvm.relax");
    type->constructor = [](Interpreter& interp, TypeObject*, script::CallArgs& call) {
      static const script::Signature sig = script::Signature::parse("rt_mod, device, memory_cfg=None, profile=False");
      Args a(interp, "VirtualMachine", sig, std::move(call));
      return make_vm(interp, a);
    };
    type->def("__getitem__", "self, name",
              [](Interpreter&, Args& a) { return wrap_packed_func(vm_function(a[0], a.get_str(1))); });
    type->def("__getattr__", "self, name",
              [](Interpreter&, Args& a) { return wrap_packed_func(vm_function(a[0], a.get_str(1))); });
    type->def("set_input", "self, func_name, *args", [](Interpreter& interp, Args& a) {
      auto args = any_args(interp, a.varargs());
      guard_core([&] { vm_of(a[0]).set_input(a.get_str(1), std::move(args)); });
      return Value();
    });
    type->def("invoke_stateful", "self, func_name", [](Interpreter&, Args& a) {
      guard_core([&] { vm_of(a[0]).invoke_stateful(a.get_str(1)); });
      return Value();
    });
    type->def("get_outputs", "self, func_name", [](Interpreter& interp, Args& a) {
      return any_to_value(interp, guard_core([&] { return vm_of(a[0]).get_outputs(a.get_str(1)); }));
    });
    type->def(
        "time_evaluator",
        "self, func_name, dev, number=10, repeat=1, min_repeat_ms=0, cooldown_interval_ms=0, repeats_to_cooldown=1",
        [](Interpreter& interp, Args& a) {
          runtime::PackedFunc fn = vm_function(a[0], a.get_str(1));
          runtime::Device dev = device_arg(interp, a[2]);
          runtime::TimeEvaluatorOptions options{a.get_int(3), a.get_int(4), a.get_int(5), a.get_int(6), a.get_int(7)};
          if (options.number < 1 || options.repeat < 1)
            raise(ExcKind::ValueError, "time_evaluator: number and repeat must be at least 1");
          auto evaluator = [fn, dev, options](Interpreter& interp, Args& call) {
            auto args = any_args(interp, call.varargs());
            std::vector<double> results = guard_core([&] { return runtime::time_evaluate(fn, args, dev, options); });
            return make_benchmark_result(std::move(results));
          };
          return Value(std::make_shared<script::NativeFunction>("time_evaluator.<locals>.evaluator",
                                                                script::Signature::parse("*args"), evaluator));
        },
        "time_evaluator(name, dev, number=10, repeat=1, min_repeat_ms=0): time vm[name] as TVM's "
        "Module.time_evaluator.");
    type->def(
        "memory_stats", "self",
        [](Interpreter& interp, Args& a) {
          runtime::vm::MemoryStats s = vm_of(a[0]).memory_stats();
          auto d = std::make_shared<script::Dict>();
          d->set(interp, script::make_str("total_bytes"), Value::integer(s.total_bytes));
          d->set(interp, script::make_str("live_bytes"), Value::integer(s.live_bytes));
          d->set(interp, script::make_str("peak_bytes"), Value::integer(s.peak_bytes));
          d->set(interp, script::make_str("num_allocations"), Value::integer(s.num_allocations));
          return Value(d);
        },
        "memory_stats() (tsch extension): bytes of storage the VM allocated — total, live now, peak — and how many "
        "allocations.");
    return type;
  }();
  return t;
}

TypeObject* VirtualMachineValue::type() const { return vm_type().get(); }

// How relax.run.print shows a value: arrays as numpy prints them, tuples of them in parens.
std::string render(Interpreter& interp, const Value& v) {
  if (auto* t = v.as<script::Tuple>()) {
    std::string s = "(";
    for (size_t i = 0; i < t->items.size(); ++i) s += (i ? ", " : "") + render(interp, t->items[i]);
    return s + ")";
  }
  if (auto* arr = v.as<ArrayValue>()) return interp.str(wrap_array(arr->array, false));
  return interp.str(v);
}

// `format` with each "{}" replaced by the next value ("" prints the values space-separated).
std::string format_values(Interpreter& interp, const std::string& format, const std::vector<Value>& values) {
  std::vector<std::string> rendered;
  for (const auto& v : values) rendered.push_back(render(interp, v));
  if (format.empty()) {
    std::string s;
    for (size_t i = 0; i < rendered.size(); ++i) s += (i ? " " : "") + rendered[i];
    return s;
  }
  std::string out;
  size_t next = 0;
  for (size_t i = 0; i < format.size(); ++i) {
    if (format.compare(i, 2, "{}") == 0 && next < rendered.size()) {
      out += rendered[next++];
      ++i;
    } else {
      out += format[i];
    }
  }
  return out;
}

// R.print and R.assert_op at run time (TVM registers them from Python: relax.run.print,
// relax.run.assert_op); they print and raise through this interpreter.
void register_run_functions(Interpreter& interp) {
  auto ns = std::make_shared<Namespace>();
  def_function(*ns, "print", "format, *values", [](Interpreter& interp, Args& a) {
    interp.write_stdout(format_values(interp, a.get_str(0), a.varargs()) + "\n");
    return Value();
  });
  def_function(*ns, "assert_op", "condition, format, *values", [](Interpreter& interp, Args& a) {
    Value cond = a[0];
    if (auto* arr = cond.as<ArrayValue>()) cond = Value::boolean(arr->array->get_i(0) != 0);
    if (interp.truthy(cond)) return Value();
    std::string message = a.get_str(1).empty() && a.varargs().empty()
                              ? "Assertion Failed"
                              : format_values(interp, a.get_str(1), a.varargs());
    if (a.get_str(1).empty() && !a.varargs().empty()) {
      message.clear();
      for (size_t i = 0; i < a.varargs().size(); ++i) message += (i ? ", " : "") + render(interp, a.varargs()[i]);
    }
    raise(ExcKind::AssertionError, message);
  });
  for (const char* name : {"print", "assert_op"}) {
    runtime::register_global_func(std::string("relax.run.") + name,
                                  script_packed_func(interp, *ns->find(intern(name)), std::string("relax.run.") + name),
                                  true);
  }
}

void build_relax(Interpreter& interp, script::Module& m) {
  register_run_functions(interp);
  Namespace& ns = *m.globals;
  def_function(
      ns, "build", "mod, target=None, params=None, relax_pipeline=None, exec_mode=\"bytecode\"",
      [](Interpreter& interp, Args& a) { return relax_build(interp, a[0], a[1]); },
      "relax.build(mod, target=\"llvm\"): run the Relax pipeline, compile the prim_funcs and generate VM bytecode.");
  ns.set(intern("VirtualMachine"), Value(vm_type()));
  ns.set(intern("transform"), Value(interp.modules().import(interp, "tvm.relax.transform", "")));
  ns.set(intern("Function"), Value(relax_function_type()));
  ns.set(intern("Executable"), Value(executable_type()));
  ns.set(intern("ExternFunc"),
         *interp.modules().import(interp, "tvm.script.relax", "")->globals->find(intern("ExternFunc")));
}

void build_relax_transform(Interpreter&, script::Module& m) {
  for (const auto& [name, make] : relax::transform::named_relax_passes()) {
    auto factory = make;
    def_function(*m.globals, name, "", [factory](Interpreter&, Args&) { return wrap_transform_pass(factory()); });
  }
}

}  // namespace

Value compile_relax_module(Interpreter& interp, const Value& mod, const Value& target) {
  return relax_build(interp, mod, target);
}

bool has_relax_functions(Interpreter& interp, const Value& v) {
  if (!v.as<IRModuleValue>() && !v.as<FunctionValue>()) return false;
  ir::IRModule m = to_module(interp, v, "tvm.compile");
  return !m->has_only_prim_funcs();
}

void register_tvm_relax_modules() {
  // tvm.runtime.load_module of relax.build's export_library: the executable with its bytecode.
  set_exported_module_loader([](const std::string& path) {
    if (!relax::is_exported_executable(path)) return Value();
    return Value(std::make_shared<ExecutableValue>(guard_core([&] { return relax::load_executable(path); })));
  });
  script::ModuleLoader::register_builtin("tvm.relax", build_relax);
  script::ModuleLoader::register_builtin("tvm.relax.transform", build_relax_transform);
}

}  // namespace tsch::bindings
