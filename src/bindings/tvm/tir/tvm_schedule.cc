// tvm.tir.Schedule: the script face of schedule::Schedule. Every primitive method is
// generated from its instruction kind: arguments are converted by the parameter types the
// kind declares (schedule_args.cc), the C++ schedule applies and records the instruction,
// and the outputs come back as BlockRV / LoopRV / ExprRV handles. A refused primitive raises
// tvm.tir.ScheduleError and leaves mod and trace exactly as they were.
#include <fmt/format.h>

#include "bindings/tvm/tir/index_map_values.h"
#include "bindings/tvm/tir/schedule_values.h"
#include "driver/differential.h"
#include "ir/printer.h"
#include "ir/structural_equal.h"
#include "runtime/module.h"
#include "schedule/primitives.h"
#include "schedule/suggest_index_map.h"
#include "schedule/tensorize_mapping.h"
#include "script/exceptions.h"
#include "script/modules.h"
#include "values/ir_values.h"
#include "values/stmt_values.h"

namespace tsch::bindings {

using schedule::RV;
using schedule::RVNode;
using script::Args;
using script::ExcKind;
using script::raise;
using script::TypeObject;
using script::TypeRef;

namespace {

schedule::Schedule& self(Args& a) { return a[0].as<ScheduleValue>()->sch; }

// TVM's TensorizeInfo (tvm.tir.schedule.analysis): which block loop a tensor intrinsic's
// description loop maps to. loop_map: StmtSRef -> the description's For; desc_loop_indexer:
// For -> its position; block_iter_paddings: None, or a padding per block iterator.
// A handle this schedule gave out, else IndexError (TVM's symbol-table lookup).
const schedule::RV& known_rv(Args& a, size_t i) {
  auto* rv = a[i].as<RVValue>();
  if (!rv) a.type_error(i, "a BlockRV, LoopRV or ExprRV");
  if (!self(a).has_rv(rv->rv)) {
    raise(ExcKind::IndexError,
          "Cannot find the corresponding RandomVariable: the handle was made by another schedule, or removed "
          "with remove_rv");
  }
  return rv->rv;
}

// With TSCH_CHECK_BUILD=1 (the schedule tests), every primitive that changes the module is
// checked by building the module before and after it and comparing results on random inputs.
// A failed check rolls the primitive back, as a refusal does.
void install_build_check() {
  if (!std::getenv("TSCH_CHECK_BUILD")) return;
  schedule::Schedule::set_change_check([](const schedule::Schedule& sch, const schedule::ScheduleState&) {
    driver::DifferentialResult r;
    try {
      r = driver::compare_execution(sch.original(), sch.mod());
    } catch (const runtime::BuildError& e) {
      throw UserError(UserErrorKind::RuntimeError,
                      std::string("TSCH_CHECK_BUILD: the scheduled module does not build: ") + e.what());
    } catch (const UserError& e) {
      throw UserError(UserErrorKind::RuntimeError,
                      std::string("TSCH_CHECK_BUILD: the scheduled module does not build: ") + e.what());
    }
    if (!r.equal)
      throw UserError(UserErrorKind::RuntimeError, "TSCH_CHECK_BUILD: the schedule changed the results: " + r.note);
  });
}

// With TSCH_CHECK_TRACE=1 (the schedule tests), after every primitive the whole trace goes
// through TVM's JSON form as text and is replayed on a fresh schedule of the original module:
// the module and the trace must come out the same.
void check_trace(Interpreter& interp, const schedule::Schedule& sch) {
  static const bool enabled = std::getenv("TSCH_CHECK_TRACE") != nullptr;
  if (!enabled || sch.edited_outside_trace()) return;
  std::string text = sch.trace().as_json().dump();
  schedule::Schedule fresh(sch.original(), 1);
  schedule::Trace::apply_json_to_schedule(nlohmann::json::parse(text), fresh, [&interp](const std::string& lambda) {
    return parse_index_map(interp, lambda);
  });
  if (!(ir::structural_diff(fresh.mod(), sch.mod()).equal)) {
    raise(ExcKind::RuntimeError, "TSCH_CHECK_TRACE: the trace replayed from JSON gives another module: " +
                                     ir::structural_diff(fresh.mod(), sch.mod()).path + "\n" + text);
  }
  if (fresh.trace().as_json().dump() != text)
    raise(ExcKind::RuntimeError, "TSCH_CHECK_TRACE: the replayed trace differs:\n" + text);
}

Value wrap_outputs(const schedule::InstructionKind& kind, const std::vector<RV>& outs) {
  if (kind.outputs == schedule::OutputForm::None) return Value();
  if (kind.outputs == schedule::OutputForm::Single) return wrap_rv(outs.at(0));
  std::vector<Value> items;
  for (const RV& rv : outs) items.push_back(wrap_rv(rv));
  return script::make_list(std::move(items));
}

// The method of one instruction kind. A call that fails leaves the trace as it was: the
// get_block of a block given by name (recorded while converting arguments) goes too.
std::function<Value(Interpreter&, Args&)> primitive_method(const schedule::InstructionKind* kind) {
  return [kind](Interpreter& interp, Args& a) -> Value {
    schedule::Schedule& sch = self(a);
    size_t mark = sch.trace().size();
    try {
      ConvertedCall c = convert_call(interp, a, *a[0].as<ScheduleValue>(), *kind);
      // An index map with IndexMap.AXIS_SEPARATOR: the layout, then the separators (two
      // instructions, as TVM's Python transform_layout issues them).
      std::vector<schedule::TraceArg> separator_inputs, separator_attrs;
      if (!c.axis_separators.empty()) {
        separator_inputs = {c.inputs[0]};
        std::vector<schedule::TraceArg> seps;
        for (int64_t v : c.axis_separators) seps.push_back(schedule::TraceArg::of_int(v));
        separator_attrs = {c.attrs[0], c.attrs[1], schedule::TraceArg::of_list(seps)};
      }
      Value out = wrap_outputs(*kind, sch.apply(*kind, std::move(c.inputs), std::move(c.attrs), std::move(c.decision)));
      if (!separator_inputs.empty()) {
        sch.apply(*schedule::InstructionKind::find("SetAxisSeparator"), std::move(separator_inputs),
                  std::move(separator_attrs), {});
      }
      check_trace(interp, sch);
      return out;
    } catch (const schedule::RenderedScheduleError& e) {
      sch.truncate_trace(mark);
      throw script::ScriptError(make_schedule_error(e));
    } catch (const UserError& e) {
      sch.truncate_trace(mark);
      std::vector<std::string> names;
      for (const auto& p : kind->params) names.push_back(p.name);
      raise_user_error(e, kind->method, names);
    } catch (...) {
      sch.truncate_trace(mark);
      throw;
    }
  };
}

TypeRef make_schedule_type() {
  auto t = std::make_shared<TypeObject>("Schedule");
  t->set_module("tvm.tir.schedule.schedule");  // the Python class TVM defines it as
  t->constructor = [](Interpreter& interp, TypeObject*, script::CallArgs& call) {
    static const script::Signature sig = script::Signature::parse(
        "mod, *, seed=None, debug_mask=\"none\", error_render_level=\"detail\", enable_check=True");
    Args a(interp, "Schedule", sig, std::move(call));
    int64_t seed = a[1].is_none() ? -1 : a.get_int(1);
    try {
      return Value(std::make_shared<ScheduleValue>(
          schedule::Schedule(to_module(interp, a[0], "Schedule"), seed, debug_mask_of(a, 2),
                             schedule::parse_error_render_level(a.get_str(3)))));
    } catch (const UserError& e) {
      raise_user_error(e, "Schedule", {"mod", "seed", "debug_mask", "error_render_level"});
    }
  };
  t->def_property("mod", [](Interpreter&, const Value& v) {
    return Value(std::make_shared<IRModuleValue>(v.as<ScheduleValue>()->sch.mod()));
  });
  t->def_property("trace",
                  [](Interpreter&, const Value& v) { return make_trace_value(v.as<ScheduleValue>()->sch.trace()); });
  // TVM's: the GlobalVar of the function worked on (None while the module has several and
  // work_on was not called).
  t->def_property("func_working_on", [](Interpreter&, const Value& v) -> Value {
    const std::string& f = v.as<ScheduleValue>()->sch.func_working_on();
    return f.empty() ? Value() : Value(std::make_shared<GlobalVarValue>(f));
  });
  t->def(
      "show", "self",
      [](Interpreter& interp, Args& a) {
        interp.write_stdout(ir::script(self(a).mod()));
        return Value();
      },
      "show(): print the current module.");
  t->def(
      "copy", "self", [](Interpreter&, Args& a) { return Value(std::make_shared<ScheduleValue>(self(a).copy())); },
      "copy(): an independent schedule with the same module, trace and handles, sampling from a seed forked off this "
      "one's.");
  t->def(
      "seed", "self, seed",
      [](Interpreter&, Args& a) {
        try {
          self(a).seed(a.get_int(1));
        } catch (const UserError& e) {
          raise_user_error(e, "seed", {"seed"});
        }
        return Value();
      },
      "seed(n): make the following sampling decisions deterministic.");
  t->def(
      "fork_seed", "self", [](Interpreter&, Args& a) { return Value::integer(self(a).fork_seed()); },
      "fork_seed() -> int: a seed for a child schedule, drawn from this one's random state.");
  t->def("work_on", "self, func_name", [](Interpreter&, Args& a) {
    try {
      self(a).work_on(a.get_str(1));
    } catch (const UserError& e) {
      raise_user_error(e, "work_on", {"func_name"});
    }
    return Value();
  });
  t->def(
      "get_sref", "self, rv",
      [](Interpreter&, Args& a) -> Value {
        const schedule::RV& rv = known_rv(a, 1);
        if (rv->kind == RVNode::Kind::Expr) a.type_error(1, "a BlockRV or LoopRV");
        if (!self(a).state().info(rv->sid))
          raise(ExcKind::ValueError, "get_sref: the handle is no longer in the schedule");
        return Value(std::make_shared<StmtSRefValue>(a[0].as_ref<ScheduleValue>(), rv->sid));
      },
      "get_sref(rv) -> StmtSRef: the loop or block the handle names in this schedule's state.");
  t->def(
      "remove_rv", "self, rand_var",
      [](Interpreter&, Args& a) -> Value {
        self(a).remove_rv(known_rv(a, 1));
        return Value();
      },
      "remove_rv(rv): forget a handle; using it afterwards is an IndexError.");
  // TVM's CanDecomposePadding: not an instruction (nothing is traced or changed).
  t->def(
      "can_decompose_padding", "self, block, loop",
      [](Interpreter&, Args& a) -> Value {
        const schedule::RV& block = known_rv(a, 1);
        const schedule::RV& loop = known_rv(a, 2);
        if (block->kind != RVNode::Kind::Block) a.type_error(1, "a BlockRV");
        if (loop->kind != RVNode::Kind::Loop) a.type_error(2, "a LoopRV");
        schedule::ScheduleState& state = self(a).state();
        if (!state.block(block->sid) || !state.loop(loop->sid))
          raise(ExcKind::ValueError, "can_decompose_padding: the handle is no longer in the schedule");
        return Value::boolean(schedule::can_decompose_padding(state, block->block_sid(), loop->loop_sid()));
      },
      "can_decompose_padding(block, loop) -> bool: whether decompose_padding(block, loop) would be accepted.");
  t->def_property("state", [](Interpreter&, const Value& v) { return make_schedule_state(v.as_ref<ScheduleValue>()); });
  t->def("get", "self, rv", [](Interpreter&, Args& a) -> Value {
    // A StmtSRef of this schedule: its statement (TVM's Schedule.get takes both).
    if (auto* sref = a[1].as<StmtSRefValue>()) {
      if (sref->owner->identity != a[0].as<ScheduleValue>()->identity)
        raise(ExcKind::ValueError, "get: the StmtSRef belongs to another schedule");
      const ir::StmtNode* node = sref_stmt(*sref);
      if (!node) raise(ExcKind::ValueError, "get: the StmtSRef is no longer in the schedule");
      return wrap(self(a).state().stmt_ref(sref->sid));
    }
    // An expression of ExprRVs: its value under this schedule's decisions (TVM substitutes
    // and simplifies; a result that is not constant comes back as an expression).
    if (auto* e = a[1].as<ExprValue>()) {
      ir::PrimExpr v;
      try {
        v = self(a).evaluate(e->expr);
      } catch (const UserError& err) {
        raise_user_error(err, "get", {"rv"});
      }
      if (auto* i = ir::as<ir::IntImmNode>(v))
        return v->dtype.is_bool() ? Value::boolean(i->value != 0) : Value::integer(i->value);
      if (auto* f = ir::as<ir::FloatImmNode>(v)) return Value::real(f->value);
      return wrap(v);
    }
    auto* rv = a[1].as<RVValue>();
    if (!rv) a.type_error(1, "a BlockRV, LoopRV, ExprRV, an expression of ExprRVs or StmtSRef");
    known_rv(a, 1);
    if (rv->rv->kind == RVNode::Kind::Expr) return Value::integer(rv->rv->value);
    const schedule::NodeInfo* info = self(a).state().info(rv->rv->sid);
    if (!info) raise(ExcKind::ValueError, "get: the handle is no longer in the schedule");
    // The loop or block itself: a reference of its own, as TVM's (a held statement is never
    // written in place by ScheduleState.replace).
    return wrap(self(a).state().stmt_ref(rv->rv->sid));
  });
  for (const schedule::InstructionKind* kind : schedule::InstructionKind::all()) {
    std::string doc = kind->doc + (kind->help.empty() ? "" : "\n" + kind->help);
    t->def(kind->method, "self" + (kind->params.empty() ? std::string() : ", " + kind->signature()),
           primitive_method(kind), doc);
  }
  // TVM v0.23 spells get_block get_sblock (the trace keeps TVM v0.18's GetBlock).
  t->def("get_sblock", "self, name, func_name=None", primitive_method(schedule::InstructionKind::find("GetBlock")));
  return t;
}

}  // namespace

TypeRef schedule_type() {
  static TypeRef t = make_schedule_type();
  return t;
}

TypeObject* ScheduleValue::type() const { return schedule_type().get(); }

void install_schedule_module(script::Namespace& ns);

void install_schedule(script::Namespace& tir_ns) {
  install_build_check();
  tir_ns.set(intern("Schedule"), Value(schedule_type()));
  tir_ns.set(intern("ScheduleError"), Value(schedule_error_type()));
  tir_ns.set(intern("BlockRV"), Value(rv_type(RVNode::Kind::Block)));
  tir_ns.set(intern("LoopRV"), Value(rv_type(RVNode::Kind::Loop)));
  auto sched = std::make_shared<script::Module>("tvm.tir.schedule");
  install_schedule_module(*sched->globals);
  install_trace_types(*sched->globals);
  install_schedule_state(tir_ns, *sched->globals);
  // tvm.tir.schedule.schedule: where TVM defines them.
  auto defining = std::make_shared<script::Module>("tvm.tir.schedule.schedule");
  install_schedule_module(*defining->globals);
  sched->globals->set(intern("schedule"), Value(defining));
  tir_ns.set(intern("schedule"), Value(sched));
}

void install_schedule_module(script::Namespace& ns) {
  ns.set(intern("Schedule"), Value(schedule_type()));
  ns.set(intern("ScheduleError"), Value(schedule_error_type()));
  ns.set(intern("BlockRV"), Value(rv_type(RVNode::Kind::Block)));
  ns.set(intern("LoopRV"), Value(rv_type(RVNode::Kind::Loop)));
  ns.set(intern("ExprRV"), Value(rv_type(RVNode::Kind::Expr)));
}

}  // namespace tsch::bindings
