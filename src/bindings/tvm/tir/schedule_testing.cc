// tvm.tir.schedule.testing (v0.24+: tvm.s_tir.schedule.testing): the helpers every one of
// TVM's schedule tests imports. verify_trace_roundtrip replays a schedule's trace on a fresh
// schedule of the original module, through the Python text of the trace and through its JSON
// form, and checks that the module and the trace come out the same.
#include "bindings/tvm/tir/schedule_values.h"
#include "schedule/analysis.h"
#include "script/exceptions.h"
#include "script/modules.h"
#include "support/source.h"

namespace tsch::bindings {

using script::Args;
using script::ExcKind;
using script::raise;

void install_schedule_analysis(script::Namespace& ns);       // tvm_schedule.cc
void install_auto_tensorize_mapping(script::Namespace& ns);  // auto_tensorize_values.cc

namespace {

Value attr(Interpreter& interp, const Value& obj, const char* name) { return interp.get_attr(obj, intern(name)); }

Value import_attr(Interpreter& interp, const char* module, const char* name) {
  return *interp.modules().import(interp, module, "")->globals->find(intern(name));
}

std::string python_text(Interpreter& interp, const Value& sch) {
  Value lines = interp.call(attr(interp, attr(interp, sch, "trace"), "as_python"), std::vector<Value>{});
  std::string text;
  for (const Value& line : interp.to_vector(lines)) text += interp.str(line) + "\n";
  return text;
}

// One round trip through `format` ("python" or "json"); returns the fresh schedule.
Value roundtrip_once(Interpreter& interp, const Value& sch, const Value& mod, const Value& debug_mask,
                     const std::string& format) {
  script::CallArgs args;
  args.positional.push_back(mod);
  args.keywords.emplace_back(intern("debug_mask"), debug_mask);
  Value fresh = interp.call(Value(schedule_type()), std::move(args));
  std::string text = python_text(interp, sch);
  if (format == "json") {
    Value json = interp.call(attr(interp, attr(interp, sch, "trace"), "as_json"), std::vector<Value>{});
    Value trace_type = import_attr(interp, "tvm.tir.schedule", "Trace");
    interp.call(attr(interp, trace_type, "apply_json_to_schedule"), {json, fresh});
  } else if (format == "python") {
    // As TVM's exec of the trace text with T and tvm.tir's names in scope and `sch` bound.
    script::NamespaceRef scope = interp.make_main_globals("<trace>");
    interp.exec_source(SourceFile::make("<trace-setup>", "from tvm.script import tir as T\n"), scope);
    for (const auto& [name, value] : interp.modules().import(interp, "tvm.tir", "")->globals->values())
      scope->set(name, value);
    scope->set(intern("sch"), fresh);
    interp.exec_source(SourceFile::make("<trace>", text), scope);
  } else {
    raise(ExcKind::AssertionError, "Unknown text format: " + format);
  }
  Value check = import_attr(interp, "tvm.ir", "assert_structural_equal");
  interp.call(check, {attr(interp, fresh, "mod"), attr(interp, sch, "mod")});
  if (python_text(interp, fresh) != text) {
    raise(ExcKind::AssertionError, "verify_trace_roundtrip: the replayed trace prints differently:\n" + text + "---\n" +
                                       python_text(interp, fresh));
  }
  return fresh;
}

void build_schedule_testing(Interpreter&, script::Module& m) {
  script::Namespace& ns = *m.globals;
  script::def_function(
      ns, "verify_trace_roundtrip", "sch, mod, *, debug_mask=\"all\", text_format=None",
      [](Interpreter& interp, Args& a) {
        if (!a[0].as<ScheduleValue>()) a.type_error(0, "a tvm.tir.Schedule");
        std::vector<std::string> formats;
        if (a[3].is_none()) {
          formats = {"python", "json"};
        } else if (a[3].as<script::Str>()) {
          formats = {a.get_str(3)};
        } else {
          for (const Value& f : interp.to_vector(a[3])) formats.push_back(interp.str(f));
        }
        Value fresh;
        for (const std::string& format : formats) fresh = roundtrip_once(interp, a[0], a[1], a[2], format);
        return fresh;
      },
      "verify_trace_roundtrip(sch, mod, *, debug_mask=\"all\", text_format=[\"python\", \"json\"]) -> Schedule: replay "
      "sch's "
      "trace on a fresh schedule of mod through each text form; the module and the trace must come out the same.");
  script::def_function(
      ns, "assert_structural_equal_ignore_global_symbol", "func1, func2, map_free_vars=False",
      [](Interpreter& interp, Args& a) {
        // Both functions named "main" first, as TVM's helper does.
        auto named_main = [&](const Value& f) {
          return interp.call(attr(interp, f, "with_attr"),
                             {script::make_str("global_symbol"), script::make_str("main")});
        };
        interp.call(import_attr(interp, "tvm.ir", "assert_structural_equal"),
                    {named_main(a[0]), named_main(a[1]), a[2]});
        return Value();
      },
      "assert_structural_equal_ignore_global_symbol(func1, func2): assert_structural_equal with both named main.");
}

// tvm.tir.schedule.analysis: what a schedule's analyses answer about a block.
void build_schedule_analysis(Interpreter&, script::Module& m) {
  install_schedule_analysis(*m.globals);
  install_auto_tensorize_mapping(*m.globals);
  script::def_function(
      *m.globals, "is_output_block", "sch, block",
      [](Interpreter&, Args& a) {
        auto* sch = a[0].as<ScheduleValue>();
        auto* rv = a[1].as<RVValue>();
        if (!sch) a.type_error(0, "a tvm.tir.Schedule");
        if (!rv || rv->rv->kind != schedule::RVNode::Kind::Block) a.type_error(1, "a BlockRV");
        schedule::BlockSid sid = sch->sch.block_sid(schedule::TraceArg::of_ref(rv->rv));
        return Value::boolean(schedule::is_output_block(sch->sch.state(), sid));
      },
      "is_output_block(sch, block): whether the block writes a buffer its scope does not allocate.");
}

}  // namespace

void register_schedule_testing_modules() {
  script::ModuleLoader::register_builtin("tvm.tir.schedule.analysis", build_schedule_analysis);
  script::ModuleLoader::register_builtin("tvm.tir.schedule.testing", build_schedule_testing);
  script::ModuleLoader::register_builtin("tvm.s_tir.schedule.testing", build_schedule_testing);
}

}  // namespace tsch::bindings
