// tvm.nd, tvm.runtime, devices, compiled modules and functions, time_evaluator.
#include "bindings/tvm/runtime/runtime_values.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>

#include "arith/simplify.h"
#include "bindings/tvm/runtime/registry_values.h"
#include "codegen/llvm/llvm_build.h"
#include "driver/differential.h"
#include "numpy/ndarray_value.h"
#include "runtime/call.h"
#include "runtime/cuda/cuda_driver.h"
#include "runtime/time_evaluator.h"
#include "script/exceptions.h"
#include "script/modules.h"
#include "values/device_value.h"
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

std::function<Value(const std::string&)>& exported_module_loader() {
  static std::function<Value(const std::string&)> loader;
  return loader;
}

// TVM's BenchmarkResult: per-repeat mean seconds and their statistics.
class BenchmarkResult : public script::Object {
 public:
  explicit BenchmarkResult(std::vector<double> r) : results(std::move(r)), stats(runtime::benchmark_stats(results)) {}
  TypeObject* type() const override;
  std::string repr_hook(Interpreter&) override { return runtime::benchmark_repr(stats, results.size()); }
  std::vector<double> results;
  runtime::BenchmarkStats stats;
};

TypeObject* BenchmarkResult::type() const {
  static TypeRef t = [] {
    auto t = std::make_shared<TypeObject>("BenchmarkResult");
    t->set_module("tvm.runtime.module");
    auto self = [](const Value& v) { return v.as<BenchmarkResult>(); };
    t->def_property("mean", [self](Interpreter&, const Value& v) { return Value::real(self(v)->stats.mean); });
    t->def_property("median", [self](Interpreter&, const Value& v) { return Value::real(self(v)->stats.median); });
    t->def_property("min", [self](Interpreter&, const Value& v) { return Value::real(self(v)->stats.min); });
    t->def_property("max", [self](Interpreter&, const Value& v) { return Value::real(self(v)->stats.max); });
    t->def_property("std", [self](Interpreter&, const Value& v) { return Value::real(self(v)->stats.std); });
    t->def_property("results", [self](Interpreter&, const Value& v) {
      std::vector<Value> out;
      for (double x : self(v)->results) out.push_back(Value::real(x));
      return script::make_tuple(std::move(out));
    });
    t->def("__str__", "self",
           [self](Interpreter&, Args& a) { return script::make_str(runtime::benchmark_summary(self(a[0])->stats)); });
    return t;
  }();
  return t.get();
}

Value function_of(const RuntimeModuleValue& m, const std::string& name) {
  runtime::PackedFunc f = runtime::get_function(m.module, name, false);
  return f ? wrap_packed_func(f) : Value();
}

// TVM's Module.entry_name: the name that stands for the module's entry function — "main",
// or its only function.
constexpr const char* kEntryName = "__tvm_main__";

std::string entry_function(const RuntimeModuleValue& m) {
  const auto& functions = m.module->code->functions();
  std::string names;
  for (const auto& sig : functions) {
    if (sig.name == "main") return "main";
    names += (names.empty() ? "" : ", ") + sig.name;
  }
  if (functions.size() == 1) return functions[0].name;
  raise(ExcKind::TypeError, "Module has no entry function (it has: " + names + "); call lib[\"name\"](...)");
}

std::string function_name(const RuntimeModuleValue& m, const std::string& name) {
  return name == kEntryName ? entry_function(m) : name;
}

Value lookup_function(RuntimeModuleValue& m, const std::string& given) {
  std::string name = function_name(m, given);
  Value f = function_of(m, name);
  if (f.is_none()) {
    std::string names;
    for (const auto& sig : m.module->code->functions()) names += (names.empty() ? "" : ", ") + sig.name;
    raise(ExcKind::AttributeError, "Module has no function '" + name + "' (it has: " + names + ")");
  }
  return f;
}

template <typename F>
auto guard_build(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const runtime::BuildError& e) {
    raise(ExcKind::RuntimeError, e.what());
  }
}

Value time_evaluator(Interpreter& interp, Args& a) {
  auto* m = a[0].as<RuntimeModuleValue>();
  runtime::PackedFunc fn = runtime::get_function(m->module, function_name(*m, a.get_str(1)), false);
  if (!fn) lookup_function(*m, a.get_str(1));  // raises, naming the module's functions
  runtime::Device dev = device_arg(interp, a[2]);
  runtime::TimeEvaluatorOptions options{a.get_int(3), a.get_int(4), a.get_int(5), a.get_int(6), a.get_int(7)};
  if (options.number < 1 || options.repeat < 1)
    raise(ExcKind::ValueError, "time_evaluator: number and repeat must be at least 1");
  auto evaluator = [fn, dev, options](Interpreter& interp, Args& call) {
    std::vector<runtime::Any> args;
    for (const auto& v : call.varargs()) args.push_back(value_to_any(interp, v));
    std::vector<double> results = guard_core([&] { return runtime::time_evaluate(fn, args, dev, options); });
    return Value(std::make_shared<BenchmarkResult>(std::move(results)));
  };
  return Value(std::make_shared<script::NativeFunction>("time_evaluator.<locals>.evaluator",
                                                        script::Signature::parse("*args"), evaluator));
}

TypeRef make_module_type() {
  auto t = std::make_shared<TypeObject>("Module");
  t->set_module("tvm.runtime.module");  // the Python class TVM defines it as
  t->def("__getitem__", "self, name",
         [](Interpreter&, Args& a) { return lookup_function(*a[0].as<RuntimeModuleValue>(), a.get_str(1)); });
  // lib(a, b, c) calls the entry function, as TVM's Module does: "main", or the only one.
  t->def("__call__", "self, *args", [](Interpreter& interp, Args& a) {
    auto& m = *a[0].as<RuntimeModuleValue>();
    return interp.call(lookup_function(m, entry_function(m)), a.varargs());
  });
  t->def_property("entry_name", [](Interpreter&, const Value&) { return script::make_str(kEntryName); });
  t->def("get_function", "self, name, query_imports=False", [](Interpreter&, Args& a) {
    auto& m = *a[0].as<RuntimeModuleValue>();
    if (!a.get_bool(2)) return lookup_function(m, a.get_str(1));
    runtime::PackedFunc f = runtime::get_function(m.module, function_name(m, a.get_str(1)), true);
    if (!f) raise(ExcKind::AttributeError, "Module has no function '" + a.get_str(1) + "' (imports searched too)");
    return wrap_packed_func(f);
  });
  t->def(
      "import_module", "self, module",
      [](Interpreter&, Args& a) {
        auto* other = a[1].as<RuntimeModuleValue>();
        if (!other)
          raise(ExcKind::TypeError,
                "import_module: expected a tvm.runtime.Module, got " + Interpreter::type_name(a[1]));
        auto& self = *a[0].as<RuntimeModuleValue>();
        // A module importing itself (directly or through its imports) would make lookups loop.
        std::vector<runtime::Module> pending{other->module};
        while (!pending.empty()) {
          runtime::Module m = pending.back();
          pending.pop_back();
          if (m == self.module) raise(ExcKind::ValueError, "import_module: the import would make a cycle");
          pending.insert(pending.end(), m->imports.begin(), m->imports.end());
        }
        self.module->imports.push_back(other->module);
        return Value();
      },
      "import_module(module): add a module this one imports (searched by get_function(name, query_imports=True)).");
  t->def_property("imported_modules", [](Interpreter&, const Value& v) {
    std::vector<Value> items;
    for (const auto& m : v.as<RuntimeModuleValue>()->module->imports) items.push_back(wrap_module(m));
    return script::make_list(std::move(items));
  });
  t->def("time_evaluator",
         "self, func_name, dev, number=10, repeat=1, min_repeat_ms=0, cooldown_interval_ms=0, repeats_to_cooldown=1, "
         "f_preproc=''",
         time_evaluator,
         "time_evaluator(func_name, dev, number=10, repeat=1, min_repeat_ms=0): a function that runs func_name and "
         "returns timing statistics (seconds).");
  t->def("get_source", "self, fmt=''", [](Interpreter&, Args& a) {
    std::string fmt = a.get_str(1);
    return script::make_str(guard_build([&] { return a[0].as<RuntimeModuleValue>()->module->code->source(fmt); }));
  });
  t->def("export_library", "self, file_name, fcompile=None", [](Interpreter&, Args& a) {
    guard_build([&] {
      a[0].as<RuntimeModuleValue>()->module->code->export_library(a.get_path(1));
      return 0;
    });
    return Value();
  });
  // TVM's Module.save(file_name, fmt=""): the format from the extension — an object file
  // (".o", which tvm.contrib.cc.create_shared links), LLVM IR (".ll") or assembly (".s").
  t->def(
      "save", "self, file_name, fmt=''",
      [](Interpreter&, Args& a) {
        std::string path = a.get_path(1), fmt = a.get_str(2);
        if (fmt.empty())
          fmt = path.substr(path.find_last_of('.') == std::string::npos ? path.size() : path.find_last_of('.') + 1);
        const runtime::CompiledModuleRef& code = a[0].as<RuntimeModuleValue>()->module->code;
        guard_build([&] {
          if (fmt == "o" || fmt == "obj") {
            if (path.size() < 2 || path.compare(path.size() - 2, 2, ".o") != 0)
              throw runtime::BuildError("save: an object file's name ends in .o, got " + path);
            code->export_library(path);
            return 0;
          }
          std::string text;
          if (fmt == "ll")
            text = code->source("ll");
          else if (fmt == "s" || fmt == "asm")
            text = code->source("asm");
          else if (fmt == "c" || fmt == "cc")
            text = code->source("c");
          else
            throw runtime::BuildError("not supported yet: saving a module in format \"" + fmt +
                                      "\" (tsch saves o, ll, s and c)");
          std::ofstream out(path, std::ios::binary | std::ios::trunc);
          out << text;
          if (!out.flush()) throw runtime::BuildError("save: cannot write " + path);
          return 0;
        });
        return Value();
      },
      "save(file_name, fmt=''): the module as an object file (.o), LLVM IR (.ll) or assembly (.s).");
  t->def_property("type_key", [](Interpreter&, const Value& v) {
    return script::make_str(v.as<RuntimeModuleValue>()->module->code->type_key());
  });
  t->def_property("mod", [](Interpreter&, const Value& v) { return v; });  // tvm.compile's Executable.mod
  return t;
}

}  // namespace

TypeRef module_type() {
  static TypeRef t = make_module_type();
  return t;
}

TypeObject* RuntimeModuleValue::type() const { return module_type().get(); }

std::string RuntimeModuleValue::repr_hook(Interpreter&) {
  return "Module(" + module->code->type_key() + ", " + module->code->target_text() + ")";
}

bool RuntimeModuleValue::get_attr_hook(Interpreter&, Symbol name, Value& out) {
  out = function_of(*this, symbol_name(name));
  return !out.is_none();
}

Value wrap_module(runtime::Module m) { return Value(std::make_shared<RuntimeModuleValue>(std::move(m))); }
// A host module imports the device modules its kernels come from.
Value wrap_module(runtime::CompiledModuleRef m) {
  runtime::Module module = runtime::make_module(m);
  for (auto& device : m->device_modules()) module->imports.push_back(runtime::make_module(device));
  return wrap_module(module);
}

namespace {

void build_nd(Interpreter&, script::Module& m) {
  Namespace& ns = *m.globals;
  script::def_function(
      ns, "array", "arr, device=None",
      [](Interpreter& interp, Args& a) {
        runtime::Device dev = device_arg(interp, a[1]);
        runtime::NDArrayRef src = to_array(interp, a[0]);
        if (dev.type == runtime::DeviceType::CPU) return wrap_array(src->copy(), true);
        return wrap_array(guard_core([&] {
                            runtime::NDArrayRef out = runtime::make_device_array(src->dtype(), src->shape(), dev);
                            runtime::copy_array(*src, *out);
                            return out;
                          }),
                          true);
      },
      "array(arr, device=tvm.cpu(0)): a tvm.nd.NDArray holding a copy of arr, on the device.");
  script::def_function(
      ns, "empty", "shape, dtype='float32', device=None",
      [](Interpreter& interp, Args& a) {
        runtime::Device dev = device_arg(interp, a[2]);
        ir::DataType dtype = dtype_arg(interp, a[1]);
        runtime::Shape shape = shape_arg(interp, a[0]);
        if (dev.type == runtime::DeviceType::CPU) return wrap_array(runtime::make_array(dtype, shape), true);
        return wrap_array(guard_core([&] {
                            // Zero-filled like a host array, so a kernel that writes only part of it reads the same.
                            runtime::NDArrayRef out = runtime::make_device_array(dtype, shape, dev);
                            runtime::copy_array(*runtime::make_array(dtype, shape), *out);
                            return out;
                          }),
                          true);
      },
      "empty(shape, dtype='float32', device=tvm.cpu(0)): a new array (zero-filled), on the device.");
  ns.set(intern("NDArray"), Value(tvm_ndarray_type()));
}

void install_devices(Namespace& ns) {
  static const std::pair<const char*, runtime::DeviceType> constructors[] = {
      {"cpu", runtime::DeviceType::CPU},        {"cuda", runtime::DeviceType::CUDA},
      {"gpu", runtime::DeviceType::CUDA},       {"opencl", runtime::DeviceType::OpenCL},
      {"cl", runtime::DeviceType::OpenCL},      {"vulkan", runtime::DeviceType::Vulkan},
      {"metal", runtime::DeviceType::Metal},    {"rocm", runtime::DeviceType::ROCM},
      {"ext_dev", runtime::DeviceType::ExtDev}, {"hexagon", runtime::DeviceType::Hexagon},
      {"webgpu", runtime::DeviceType::WebGPU},  {"vpi", runtime::DeviceType::VPI},
  };
  for (const auto& [name, type] : constructors) {
    runtime::DeviceType t = type;
    script::def_function(ns, name, "dev_id=0",
                         [t](Interpreter&, Args& a) { return wrap_device({t, static_cast<int32_t>(a.get_int(0))}); });
  }
  script::def_function(
      ns, "device", "dev_type, dev_id=0",
      [](Interpreter&, Args& a) {
        auto id = static_cast<int32_t>(a.get_int(1));
        if (a[0].is_int()) return wrap_device(guard_core([&] { return runtime::device_from_code(a.get_int(0), id); }));
        return wrap_device(guard_core([&] { return runtime::device_from_name(a.get_str(0), id); }));
      },
      "device(dev_type, dev_id=0): a device from its name (\"cpu\", \"llvm\", \"cuda\", ...) or DLPack type code.");
  ns.set(intern("Device"), Value(device_type()));
}

}  // namespace

void install_runtime_devices(Namespace& ns) { install_devices(ns); }

Value make_benchmark_result(std::vector<double> seconds) {
  return Value(std::make_shared<BenchmarkResult>(std::move(seconds)));
}

void set_exported_module_loader(std::function<Value(const std::string&)> loader) {
  exported_module_loader() = std::move(loader);
}

void register_tvm_runtime_modules() {
  script::ModuleLoader::register_builtin("tvm.nd", build_nd);
  script::ModuleLoader::register_builtin("tvm.runtime", [](Interpreter& interp, script::Module& m) {
    Namespace& ns = *m.globals;
    install_devices(ns);
    install_function_type(ns);
    ns.set(intern("Module"), Value(module_type()));
    // tvm.runtime.convert(value): a Python number as TVM's object (int -> IntImm int32 or int64,
    // float -> FloatImm float32, bool -> IntImm bool); other values are returned as they are.
    def_function(
        ns, "convert", "value, span=None",
        [](Interpreter& interp, Args& a) -> Value {
          if (a[0].is_number()) return wrap(to_expr(interp, a[0], "tvm.runtime.convert"));
          return a[0];
        },
        "convert(value): a Python number as a TVM constant; other values unchanged.");
    auto nd = interp.modules().import(interp, "tvm.nd", "");
    ns.set(intern("ndarray"), Value(nd));
    // TVM 0.23's names: tvm.runtime.tensor(arr, device=) and tvm.runtime.Tensor.
    ns.set(intern("tensor"), *nd->globals->find(intern("array")));
    ns.set(intern("empty"), *nd->globals->find(intern("empty")));
    ns.set(intern("Tensor"), Value(tvm_ndarray_type()));
    ns.set(intern("NDArray"), Value(tvm_ndarray_type()));
    script::def_function(
        ns, "load_module", "path, fmt=''",
        [](Interpreter&, Args& a) {
          // An executable from relax.build's export_library carries its bytecode.
          if (exported_module_loader()) {
            Value ex = exported_module_loader()(a.get_path(0));
            if (!ex.is_none()) return ex;
          }
          return wrap_module(guard_build([&] { return codegen::load_llvm_library(a.get_path(0)); }));
        },
        "load_module(path): load a library written by export_library.");
  });
  register_tvm_testing_module();
}

}  // namespace tsch::bindings
