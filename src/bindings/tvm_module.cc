// The `tvm` package as scripts see it: tvm.script (ir_module, from_source), tvm.ir
// (structural equality, IRModule), tvm.tir (IR types); `I` is tvm.script.ir.
#include <fmt/format.h>

#include <cmath>

#include "arith/verify_well_formed.h"
#include "bindings/tvm/arith/arith_module.h"
#include "bindings/tvm/relax/relax_module.h"
#include "bindings/tvm/runtime/registry_values.h"
#include "bindings/tvm/runtime/runtime_values.h"
#include "bindings/tvm/script/roundtrip_check.h"
#include "bindings/tvm/script/tvmscript_decorators.h"
#include "bindings/tvm/target/target_values.h"
#include "bindings/tvm/tir/buffer_options.h"
#include "bindings/tvm/tir/index_map_values.h"
#include "bindings/tvm/tir/schedule_values.h"
#include "bindings/tvm/tir/tensor_intrin_values.h"
#include "bindings/tvm/tir/tir_module.h"
#include "bindings/tvm/tir/transform_values.h"
#include "bindings/tvm_build.h"
#include "frontend/ir_module_frame.h"
#include "frontend/tir_parser.h"
#include "ir/printer.h"
#include "ir/structural_equal.h"
#include "ir/structural_hash.h"
#include "relax/metadata_json.h"
#include "script/exceptions.h"
#include "script/interpreter.h"
#include "script/modules.h"
#include "syntax/parser.h"
#include "values/attr_values.h"
#include "values/expr_classes.h"
#include "values/ir_type_values.h"
#include "values/ir_values.h"
#include "values/relax_values.h"
#include "values/stmt_values.h"

namespace tsch::bindings {

using script::Args;
using script::ExcKind;
using script::Namespace;
using script::raise;

void register_tvmscript_tir_module();
void register_tvmscript_relax_module();
void register_tvm_te_module();
void register_tvm_contrib_modules();
void register_schedule_testing_modules();
void install_schedule(script::Namespace& tir_ns);
void install_schedule_module(script::Namespace& ns);

namespace {

// `@I.ir_module` (also tvm.script.ir_module): a class of decorated functions to an
// IRModule. Its own type, so the class hook can recognize it before the body runs.
class IRModuleDecorator : public script::Object {
 public:
  script::TypeObject* type() const override;
};

Value ir_module_from_class(Interpreter& interp, Args& a) {
  auto* cls = a[1].as<script::TypeObject>();
  if (!cls) a.type_error(1, "a class whose methods are @T.prim_func functions");
  auto mod = std::make_shared<ir::IRModuleNode>();
  for (const auto& [name, value] : cls->dict().values()) {
    if (auto* f = value.as<FunctionValue>()) mod->functions.emplace_back(symbol_name(name), f->base_func());
    // `my_ext = R.ExternFunc("my_ext")`: a function the module declares but does not define.
    if (ir::BaseFunc ext = as_extern_func_decl(value)) mod->functions.emplace_back(symbol_name(name), ext);
  }
  frontend::IRModuleFrame* frame = frontend::current_ir_module_frame();
  if (frame && !frame->consumed) {
    frame->consumed = true;
    if (frame->attrs) mod->attrs = *frame->attrs;
  }
  check_module_roundtrip(interp, mod);
  return Value(std::make_shared<IRModuleValue>(mod));
}

script::TypeObject* IRModuleDecorator::type() const {
  static script::TypeRef t = [] {
    auto type = std::make_shared<script::TypeObject>("ir_module");
    type->set_module("tvm.script.ir");
    type->def("__call__", "self, cls", ir_module_from_class,
              "@I.ir_module: turn a class of @T.prim_func methods into an IRModule.");
    return type;
  }();
  return t.get();
}

// I.module_attrs({...}) in an @I.ir_module class body.
Value module_attrs(Interpreter& interp, Args& a) {
  frontend::IRModuleFrame* frame = frontend::current_ir_module_frame();
  if (!frame || frame->consumed)
    raise(ExcKind::ValueError, "I.module_attrs is only valid in the body of an @I.ir_module class");
  if (frame->attrs && !interp.truthy(a[1])) {
    raise(ExcKind::ValueError, "Duplicate module attrs, previous one is:\n" + ir::script(*frame->attrs));
  }
  frame->attrs = to_attr_map(interp, a[0], "I.module_attrs");
  return Value();
}

std::shared_ptr<script::Module> import(Interpreter& interp, const std::string& name) {
  return interp.modules().import(interp, name, "");
}

Value from_source(Interpreter& interp, Args& a) {
  const std::string& text = a.get_str(0);
  const SourceFile* source = SourceFile::make("<from_source>", text);
  auto globals = std::make_shared<Namespace>();
  globals->set(intern("__name__"), script::make_str("__from_source__"));
  globals->set(intern("T"), Value(import(interp, "tvm.script.tir")));
  globals->set(intern("I"), Value(import(interp, "tvm.script.ir")));
  globals->set(intern("R"), Value(import(interp, "tvm.script.relax")));
  globals->set(intern("tvm"), Value(import(interp, "tvm")));
  try {
    interp.exec_source(source, globals);
  } catch (const SyntaxError& e) {
    raise(ExcKind::ValueError, fmt::format("from_source: line {}, column {}: {}", e.loc.line, e.loc.col, e.what()));
  }
  const auto& values = globals->values();
  for (auto it = values.rbegin(); it != values.rend(); ++it) {
    if (it->second.as<IRModuleValue>() || it->second.as<FunctionValue>()) return it->second;
  }
  raise(ExcKind::ValueError, "from_source: the text defines no IRModule or function");
}

bool is_sequence(const Value& v) { return v.as<script::List>() || v.as<script::Tuple>(); }

// TVM's Array equality (ir::structural_diff of two expression lists); a list and anything else
// differ, as TVM's Array and another node.
ir::StructuralDiff diff_expr_lists(Interpreter& interp, const Value& lhs, const Value& rhs) {
  if (!is_sequence(lhs) || !is_sequence(rhs)) return ir::StructuralDiff{false, "", interp.repr(lhs), interp.repr(rhs)};
  auto elements = [&](const Value& v, const char* side) {
    std::vector<ir::PrimExpr> out;
    for (const Value& x : interp.to_vector(v)) {
      if (!is_expr(x) && !x.is_int() && !x.is_float() && !x.is_bool()) {
        raise(ExcKind::NotImplementedError,
              fmt::format("not supported yet: structural equality of lists holding {}", interp.type_name(x)));
      }
      out.push_back(to_expr(interp, x, side));
    }
    return out;
  };
  std::vector<ir::PrimExpr> l = elements(lhs, "lhs");
  return ir::structural_diff(l, elements(rhs, "rhs"));
}

ir::StructuralDiff diff_values(Interpreter& interp, Args& a) {
  if (is_sequence(a[0]) || is_sequence(a[1])) return diff_expr_lists(interp, a[0], a[1]);
  if (auto* x = a[0].as<ExprValue>()) {
    return ir::structural_diff(x->expr, to_expr(interp, a[1], "rhs"));
  }
  // As TVM's: block names are not compared.
  ir::StructuralOptions tvm_equality{/*block_names=*/false};
  if (a[0].as<PrimFuncValue>() && a[1].as<PrimFuncValue>()) {
    return ir::structural_diff(a[0].as<PrimFuncValue>()->func, a[1].as<PrimFuncValue>()->func, tvm_equality);
  }
  if (a[0].as<StmtValue>() && a[1].as<StmtValue>()) {
    return ir::structural_diff(a[0].as<StmtValue>()->stmt, a[1].as<StmtValue>()->stmt, tvm_equality);
  }
  // One statement each: the left side's error comes first whatever order a compiler picks
  // for a call's arguments.
  ir::IRModule lhs = to_module(interp, a[0], "lhs");
  ir::IRModule rhs = to_module(interp, a[1], "rhs");
  return ir::structural_diff(lhs, rhs, tvm_equality);
}

std::string text_of(Interpreter& interp, const Value& v) { return interp.repr(v); }

void build_ir(Interpreter& interp, script::Module& m) {
  Namespace& ns = *m.globals;
  ns.set(intern("transform"), Value(import(interp, "tvm.ir.transform")));
  ns.set(intern("Range"), range_type_value());
  def_ir_types(ns);  // PrimType, PointerType
  def_function(
      ns, "structural_equal", "lhs, rhs, map_free_vars=False",
      [](Interpreter& interp, Args& a) { return Value::boolean(diff_values(interp, a).equal); },
      "structural_equal(lhs, rhs): True when the two IRs are equal up to variable renaming.");
  def_function(
      ns, "structural_hash", "node, map_free_vars=False",
      [](Interpreter& interp, Args& a) {
        uint64_t h;
        if (auto* x = a[0].as<ExprValue>())
          h = ir::structural_hash(x->expr);
        else if (auto* f = a[0].as<PrimFuncValue>())
          h = ir::structural_hash(f->func);
        else if (auto* st = a[0].as<StmtValue>())
          h = ir::structural_hash(st->stmt);
        else
          h = ir::structural_hash(to_module(interp, a[0], "node"));
        return Value::integer(static_cast<int64_t>(h & 0x7fffffffffffffffULL));  // a non-negative int, as TVM's
      },
      "structural_hash(node): a hash that agrees with structural_equal (equal IRs hash alike; names do not count).");
  def_function(
      ns, "assert_structural_equal", "lhs, rhs, map_free_vars=False",
      [](Interpreter& interp, Args& a) {
        ir::StructuralDiff d = diff_values(interp, a);
        if (d.equal) return Value();
        raise(ExcKind::ValueError,
              fmt::format("StructuralEqual check failed, caused by lhs at {}:\n  {}\nand rhs at {}:\n  {}\n"
                          "lhs:\n{}\nrhs:\n{}",
                          d.path, d.lhs, d.path, d.rhs, text_of(interp, a[0]), text_of(interp, a[1])));
      },
      "assert_structural_equal(lhs, rhs): raise ValueError naming the first difference.");
  ns.set(intern("IRModule"), Value(ir_module_type()));
  ns.set(intern("GlobalVar"), Value(global_var_type()));
  ns.set(intern("BaseFunc"), Value(base_func_type()));
  install_op_class(ns);
  def_function(
      ns, "load_json", "json_str",
      [](Interpreter& interp, Args& a) {
        auto groups = guard_core([&] { return relax::metadata_from_json_graph(a.get_str(0)); });
        auto d = std::make_shared<script::Dict>();
        for (auto& [key, exprs] : groups) {
          std::vector<Value> items;
          for (auto& e : exprs) items.push_back(wrap_relax(e));
          d->set(interp, script::make_str(key), script::make_list(std::move(items)));
        }
        return Value(d);
      },
      "load_json(text): the metadata of a module printed with show_meta=True (Relax constants by type key).");
}

void build_script_ir(Interpreter&, script::Module& m) {
  m.globals->set(intern("ir_module"), Value(std::make_shared<IRModuleDecorator>()));
  m.globals->set(intern("GlobalVar"), Value(global_var_type()));
  def_function(*m.globals, "module_attrs", "attrs, allow_overwrite=False", module_attrs,
               "I.module_attrs({...}): the attributes of the @I.ir_module class being defined.");
}

void build_script(Interpreter& interp, script::Module& m) {
  Namespace& ns = *m.globals;
  ns.set(intern("tir"), Value(import(interp, "tvm.script.tir")));
  ns.set(intern("tirx"), Value(import(interp, "tvm.script.tirx")));
  ns.set(intern("ir"), Value(import(interp, "tvm.script.ir")));
  ns.set(intern("relax"), Value(import(interp, "tvm.script.relax")));
  ns.set(intern("ir_module"), Value(std::make_shared<IRModuleDecorator>()));
  def_function(ns, "from_source", "text", from_source, "from_source(text): parse printed TVMScript back into IR.");
}

// tvm.topi is written in tsch (stdlib/tvm_topi): the built-in module holds what it defines.
void build_topi(Interpreter& interp, script::Module& m) {
  auto topi = import(interp, "tvm_topi");
  for (const auto& [name, v] : topi->globals->values()) m.globals->set(name, v);
}

// tvm.tir.tensor_intrin and its target modules are written in tsch
// (stdlib/tvm_tensor_intrin): importing one registers its intrinsics, as in TVM.
void mirror_module(Interpreter& interp, script::Module& m, const std::string& source) {
  auto src = import(interp, source);
  for (const auto& [name, v] : src->globals->values()) m.globals->set(name, v);
}

void build_tvm(Interpreter& interp, script::Module& m) {
  Namespace& ns = *m.globals;
  ns.set(intern("__version__"), script::make_str("0.23.0-tsch"));
  ns.set(intern("script"), Value(import(interp, "tvm.script")));
  ns.set(intern("ir"), Value(import(interp, "tvm.ir")));
  ns.set(intern("tir"), Value(import(interp, "tvm.tir")));
  ns.set(intern("s_tir"), Value(import(interp, "tvm.s_tir")));
  ns.set(intern("IRModule"), *import(interp, "tvm.ir")->globals->find(intern("IRModule")));
  ns.set(intern("error"), Value(import(interp, "tvm.error")));
  // v0.23's tvm.TVMError is Python's Exception (tvm/base.py); tvm.error.TVMError is the class.
  ns.set(intern("TVMError"), Value(script::exception_type_ref(ExcKind::Exception)));
  for (const char* sub :
       {"nd", "runtime", "target", "testing", "driver", "transform", "relax", "te", "contrib", "topi", "arith"})
    ns.set(intern(sub), Value(import(interp, std::string("tvm.") + sub)));
  install_build_functions(ns);
  install_runtime_devices(ns);
  install_registry(ns);
}

}  // namespace

void install_ir_module_hook() {
  static bool installed = false;
  if (installed) return;
  installed = true;
  script::DecoratorHook hook;
  hook.on_class = [](script::Evaluator&, const Value& decorator, const ast::ClassDef& cls) -> std::shared_ptr<void> {
    if (!decorator.as<IRModuleDecorator>()) return nullptr;
    return frontend::open_ir_module_frame(cls);
  };
  script::Interpreter::decorator_hooks().push_back(std::move(hook));
}

void install_prim_func_hook() {
  static bool installed = false;
  if (installed) return;
  installed = true;
  bool roundtrip = std::getenv("TSCH_CHECK_ROUNDTRIP") != nullptr;
  script::DecoratorHook hook;
  hook.on_function = [roundtrip](script::Evaluator& defining, const Value& decorator, const ast::FunctionDef& def,
                                 Value& result) {
    auto* deco = decorator.as<PrimFuncDecorator>();
    if (!deco) return false;
    ir::PrimFunc f =
        guard_ir([&] { return frontend::parse_prim_func(defining, def, deco->is_private, deco->check_well_formed); });
    std::string name = symbol_name(def.name);
    if (roundtrip && deco->check_well_formed) check_roundtrip(defining.interp, ir::BaseFunc(f), name);
    result = Value(std::make_shared<PrimFuncValue>(f, name));
    return true;
  };
  script::Interpreter::decorator_hooks().push_back(std::move(hook));
}

void register_tvm_modules() {
  register_tvm_runtime_modules();
  register_tvm_transform_modules();
  register_tvm_target_module();
  register_tvm_build_modules();
  install_prim_func_hook();
  install_ir_module_hook();
  register_tvmscript_tir_module();
  register_tvmscript_relax_module();
  register_tvm_relax_modules();
  register_tvm_te_module();
  register_tvm_contrib_modules();
  register_schedule_testing_modules();
  register_tvm_tir_modules();
  script::ModuleLoader::register_builtin("tvm", build_tvm);
  script::ModuleLoader::register_builtin("tvm.script", build_script);
  script::ModuleLoader::register_builtin("tvm.script.ir", build_script_ir);
  script::ModuleLoader::register_builtin("tvm.ir", build_ir);
  // `from tvm.ir.module import IRModule`: the first line of the MLC course's notebooks.
  script::ModuleLoader::register_builtin("tvm.ir.module", [](Interpreter&, script::Module& m) {
    m.globals->set(intern("IRModule"), Value(ir_module_type()));
  });
  script::ModuleLoader::register_builtin("tvm.tir.schedule.schedule",
                                         [](Interpreter&, script::Module& m) { install_schedule_module(*m.globals); });
  script::ModuleLoader::register_builtin("tvm.error", [](Interpreter&, script::Module& m) {
    m.globals->set(intern("TVMError"), Value(tvm_error_type()));
    m.globals->set(intern("InternalError"), Value(internal_error_type()));
  });
  script::ModuleLoader::register_builtin("tvm.topi", build_topi);
  script::ModuleLoader::register_builtin("tvm.tir.schedule.transform", [](Interpreter& interp, script::Module& m) {
    mirror_module(interp, m, "tvm_schedule_transform");
  });
  // tvm.testing.tir: TVM's schedule helpers for its tests (mma_schedule), written in tsch.
  script::ModuleLoader::register_builtin(
      "tvm.testing.tir", [](Interpreter& interp, script::Module& m) { mirror_module(interp, m, "tvm_testing_tir"); });
  script::ModuleLoader::register_builtin("tvm.tir.tensor_intrin", [](Interpreter& interp, script::Module& m) {
    mirror_module(interp, m, "tvm_tensor_intrin");
  });
  for (const char* target : {"x86", "arm_cpu", "hexagon", "rocm", "cuda", "dot_product_common"}) {
    std::string name = target;
    script::ModuleLoader::register_builtin(
        "tvm.tir.tensor_intrin." + name,
        [name](Interpreter& interp, script::Module& m) { mirror_module(interp, m, "tvm_tensor_intrin." + name); });
  }
  // tvm.meta_schedule: only its testing workloads (stdlib/tvm_meta_schedule); other names
  // raise "not supported yet" from the package's __getattr__.
  for (const char* sub : {"", ".testing", ".testing.te_workload"}) {
    std::string suffix = sub;
    script::ModuleLoader::register_builtin(
        "tvm.meta_schedule" + suffix,
        [suffix](Interpreter& interp, script::Module& m) { mirror_module(interp, m, "tvm_meta_schedule" + suffix); });
  }
  // TVM 0.24+ spelling: tvm.s_tir.Schedule.
  script::ModuleLoader::register_builtin("tvm.s_tir",
                                         [](Interpreter&, script::Module& m) { install_schedule(*m.globals); });
}

}  // namespace tsch::bindings
