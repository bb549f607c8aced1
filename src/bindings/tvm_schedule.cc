// tvm.tir.Schedule: the script face of src/schedule. Each primitive method converts its
// arguments, runs the primitive on a copy-on-failure state, wraps the results as BlockRV /
// LoopRV handles and records the call in the trace. A refused primitive raises
// tvm.tir.ScheduleError and leaves mod and trace exactly as they were.
#include <fmt/format.h>

#include <cmath>
#include <functional>
#include <random>
#include <set>
#include <unordered_map>

#include "bindings/ir_values.h"
#include "codegen/differential.h"
#include "bindings/schedule_help.h"
#include "bindings/schedule_session.h"
#include "bindings/stmt_values.h"
#include "ir/printer.h"
#include "ir/structural_equal.h"
#include "schedule/error.h"
#include "schedule/primitives.h"
#include "schedule/trace.h"
#include "script/exceptions.h"
#include "script/interpreter.h"
#include "script/modules.h"

namespace tsch::bindings {

using schedule::RV;
using schedule::RVNode;
using schedule::ScheduleState;
using schedule::TraceArg;
using script::Args;
using script::ExcKind;
using script::raise;
using script::TypeObject;
using script::TypeRef;

namespace {

// Where the source of an index map or pad value read back from a trace runs: the trace
// prints constants as TVMScript (`T.float32(0.0)`), so `T` is bound as in a script.
script::NamespaceRef lambda_source_globals(Interpreter& interp) {
  auto globals = std::make_shared<script::Namespace>();
  interp.exec_source(SourceFile::make("<trace>", "from tvm.script import tir as T\n"), globals);
  return globals;
}

TypeRef schedule_error_type() {
  static TypeRef t = [] {
    auto type = std::make_shared<TypeObject>("ScheduleError", std::vector<TypeRef>{script::exception_type_ref(ExcKind::Exception)});
    type->set_module("tvm.tir");
    return type;
  }();
  return t;
}

class RVValue : public script::Object {
 public:
  explicit RVValue(RV r) : rv(std::move(r)) {}
  TypeObject* type() const override;
  std::string repr_hook(Interpreter&) override {
    const char* kind = rv->kind == RVNode::Kind::Block ? "BlockRV" : rv->kind == RVNode::Kind::Loop ? "LoopRV" : "ExprRV";
    return fmt::format("{}({})", kind, rv->sid);
  }
  RV rv;
};

TypeRef rv_type(RVNode::Kind kind) {
  static TypeRef block = [] {
    auto t = std::make_shared<TypeObject>("BlockRV");
    t->set_module("tvm.tir.schedule");
    return t;
  }();
  static TypeRef loop = [] {
    auto t = std::make_shared<TypeObject>("LoopRV");
    t->set_module("tvm.tir.schedule");
    return t;
  }();
  static TypeRef expr = [] {
    auto t = std::make_shared<TypeObject>("ExprRV");
    t->set_module("tvm.tir.schedule");
    return t;
  }();
  return kind == RVNode::Kind::Block ? block : kind == RVNode::Kind::Loop ? loop : expr;
}

TypeObject* RVValue::type() const { return rv_type(rv->kind).get(); }

class TraceValue : public script::Object {
 public:
  explicit TraceValue(schedule::Trace t) : trace(std::move(t)) {}
  TypeObject* type() const override;
  std::string repr_hook(Interpreter&) override { return trace.str(); }
  schedule::Trace trace;
};

// One instruction of a trace as scripts see it (`trace.insts[i]`): its kind and its line.
class InstructionValue : public script::Object {
 public:
  InstructionValue(std::string k, std::string t) : kind(std::move(k)), text(std::move(t)) {}
  TypeObject* type() const override;
  std::string repr_hook(Interpreter&) override { return text; }
  std::string kind;  // "Split"
  std::string text;  // "l1, l2 = sch.split(...)"
};

// `inst.kind`: TVM's InstructionKind, of which scripts use the name.
class InstructionKindValue : public script::Object {
 public:
  explicit InstructionKindValue(std::string n) : name(std::move(n)) {}
  TypeObject* type() const override;
  std::string repr_hook(Interpreter&) override { return name; }
  std::string name;
};

TypeObject* InstructionKindValue::type() const {
  static TypeRef t = [] {
    auto t = std::make_shared<TypeObject>("InstructionKind");
    t->set_module("tvm.tir.schedule");
    t->def_property("name", [](Interpreter&, const Value& v) { return script::make_str(v.as<InstructionKindValue>()->name); });
    return t;
  }();
  return t.get();
}

TypeObject* InstructionValue::type() const {
  static TypeRef t = [] {
    auto t = std::make_shared<TypeObject>("Instruction");
    t->set_module("tvm.tir.schedule");
    t->def_property("kind", [](Interpreter&, const Value& v) {
      return Value(std::make_shared<InstructionKindValue>(v.as<InstructionValue>()->kind));
    });
    return t;
  }();
  return t.get();
}

class ScheduleValue : public script::Object {
 public:
  explicit ScheduleValue(ir::IRModule mod) : state(mod), original(std::move(mod)) {}
  TypeObject* type() const override;
  std::string repr_hook(Interpreter&) override { return "<tvm.tir.Schedule>"; }
  ScheduleState state;
  ir::IRModule original;  // as given to the constructor (for TSCH_CHECK_BUILD)
  schedule::Trace trace;
  uint64_t rand_state = 1;  // sampling
};

Value make_rv(RVNode::Kind kind, uint64_t sid) {
  auto rv = std::make_shared<RVNode>();
  rv->kind = kind;
  rv->sid = sid;
  return Value(std::make_shared<RVValue>(rv));
}

ScheduleValue& self(Args& a) { return *a[0].as<ScheduleValue>(); }

// The sid behind a loop argument, checking the kind and that the loop still exists.
// Loop handles standing for "the root" and "inline" (sample_compute_location decisions -1, -2).
constexpr uint64_t kRootLoop = UINT64_MAX - 1;
constexpr uint64_t kInlineLoop = UINT64_MAX;

uint64_t loop_arg(Args& a, size_t i) {
  auto* rv = a[i].as<RVValue>();
  if (!rv || rv->rv->kind != RVNode::Kind::Loop) a.type_error(i, "a LoopRV");
  if (!self(a).state.loop(rv->rv->sid)) {
    raise(ExcKind::ValueError, fmt::format("{}: the loop passed as '{}' is no longer in the schedule (an earlier primitive "
                                           "such as split or fuse replaced it)",
                                           a.function_name(), "loop"));
  }
  return rv->rv->sid;
}

uint64_t loop_value(Args& a, const Value& v, size_t index_for_errors) {
  auto* rv = v.as<RVValue>();
  if (!rv || rv->rv->kind != RVNode::Kind::Loop) a.type_error(index_for_errors, "LoopRVs");
  if (!self(a).state.loop(rv->rv->sid)) {
    raise(ExcKind::ValueError, a.function_name() + ": a loop handle is no longer in the schedule (an earlier primitive replaced it)");
  }
  return rv->rv->sid;
}

void record(ScheduleValue& sch, schedule::Instruction inst);
Value make_rv(RVNode::Kind kind, uint64_t sid);

// A block argument: a BlockRV, or a block name in the function worked on (which, as in TVM,
// goes through get_block and appears in the trace as such). Returns the BlockRV value.
Value block_arg(Args& a, size_t i) {
  ScheduleValue& sch = self(a);
  if (auto* s = a[i].as<script::Str>()) {
    if (sch.state.func_name().empty()) {
      raise(ExcKind::ValueError, "the module has several functions: call sch.work_on(name) before naming blocks");
    }
    uint64_t sid;
    try {
      sid = schedule::get_block(sch.state, s->value, sch.state.func_name());
    } catch (const schedule::ScheduleError& e) {
      raise(ExcKind::ValueError, a.function_name() + ": " + e.what());
    }
    Value rv = make_rv(RVNode::Kind::Block, sid);
    record(sch, {"GetBlock", "get_block", {},
                 {{"name", TraceArg::of_str(s->value)}, {"func_name", TraceArg::of_str(sch.state.func_name())}},
                 {rv.as<RVValue>()->rv}, false});
    return rv;
  }
  auto* rv = a[i].as<RVValue>();
  if (!rv || rv->rv->kind != RVNode::Kind::Block) a.type_error(i, "a BlockRV or a block name");
  if (!sch.state.block(rv->rv->sid)) {
    raise(ExcKind::ValueError, a.function_name() + ": the block handle is no longer in the schedule");
  }
  return a[i];
}

RV rv_of(const Value& v) { return v.as<RVValue>()->rv; }

// With TSCH_CHECK_BUILD=1 (the schedule tests), every primitive that changes the module is
// checked by building the module before and after it and comparing results on random inputs.
// A failed check restores the state, as a refused primitive does.
void check_build(ScheduleValue& sch, const ScheduleState& before) {
  static const bool enabled = std::getenv("TSCH_CHECK_BUILD") != nullptr;
  if (!enabled || sch.state.mod() == before.mod()) return;
  codegen::DifferentialResult r;
  try {
    r = codegen::compare_execution(sch.original, sch.state.mod());
  } catch (const std::exception& e) {
    sch.state = before;
    raise(ExcKind::RuntimeError, std::string("TSCH_CHECK_BUILD: the scheduled module does not build: ") + e.what());
  }
  if (!r.equal) {
    sch.state = before;
    raise(ExcKind::RuntimeError, "TSCH_CHECK_BUILD: the schedule changed the results: " + r.note);
  }
}

// With TSCH_CHECK_REFUSALS=1 (the schedule fuzzer), a primitive that refuses must not have
// changed the module first ("check first, rewrite second"): the rollback below would hide it.
void check_refusal(const ScheduleState& after, const ScheduleState& before, const std::string& report) {
  static const bool enabled = std::getenv("TSCH_CHECK_REFUSALS") != nullptr;
  if (!enabled || after.mod() == before.mod()) return;
  ir::StructuralDiff d = ir::structural_diff(before.mod(), after.mod());
  raise(ExcKind::RuntimeError, "TSCH_CHECK_REFUSALS: the primitive changed the module before refusing" +
                                   (d.equal ? std::string(" (to an equal copy)") : " at " + d.path) + "\n" + report);
}

// Runs a primitive; on ScheduleError restores the state and raises tvm.tir.ScheduleError. Any
// other exception (an argument found wrong midway) restores the state too.
template <typename F>
auto run(ScheduleValue& sch, F&& f) -> decltype(f()) {
  ScheduleState saved = sch.state;
  struct RestoreOnException {
    ScheduleValue& sch;
    const ScheduleState& saved;
    int exceptions = std::uncaught_exceptions();
    ~RestoreOnException() {
      if (std::uncaught_exceptions() > exceptions) sch.state = saved;
    }
  } restore{sch, saved};
  try {
    if constexpr (std::is_void_v<decltype(f())>) {
      f();
      check_build(sch, saved);
    } else {
      auto result = f();
      check_build(sch, saved);
      return result;
    }
  } catch (const schedule::ScheduleError& e) {
    std::string report = schedule::render_schedule_error(saved, e);
    check_refusal(sch.state, saved, report);
    sch.state = saved;
    throw script::ScriptError(script::make_exception(schedule_error_type().get(), {script::make_str(report)}));
  }
}

void record(ScheduleValue& sch, schedule::Instruction inst) { sch.trace.insts.push_back(std::move(inst)); }

TraceArg ref_of(const Value& v) { return TraceArg::of_ref(rv_of(v)); }

Value rv_list(const std::vector<uint64_t>& sids, RVNode::Kind kind, std::vector<RV>& outputs) {
  std::vector<Value> items;
  for (uint64_t sid : sids) {
    items.push_back(make_rv(kind, sid));
    outputs.push_back(rv_of(items.back()));
  }
  return script::make_list(std::move(items));
}

void not_supported(TypeObject& t, const char* name) {
  t.def(name, "self, *args, **kwargs", [name](Interpreter&, Args&) -> Value {
    raise(ExcKind::NotImplementedError, fmt::format("not supported yet: the schedule primitive {}", name));
  });
}

TypeRef make_schedule_type() {
  auto t = std::make_shared<TypeObject>("Schedule");
  t->set_module("tvm.tir");
  t->constructor = [](Interpreter& interp, TypeObject* cls, script::CallArgs& call) {
    static const script::Signature sig = script::Signature::parse("mod, *, seed=None, debug_mask=\"none\", error_render_level=\"detail\", enable_check=True");
    Args a(interp, "Schedule", sig, std::move(call));
    auto sch = std::make_shared<ScheduleValue>(to_module(interp, a[0], "Schedule"));
    if (a[1].is_integral() && a[1].as_int() != -1) {
      sch->rand_state = static_cast<uint64_t>(a[1].as_int());
    } else {
      std::random_device rd;
      sch->rand_state = (static_cast<uint64_t>(rd()) << 32) | rd();
    }
    return Value(sch);
  };
  t->def_property("mod", [](Interpreter&, const Value& v) {
    return Value(std::make_shared<IRModuleValue>(v.as<ScheduleValue>()->state.mod()));
  });
  t->def_property("trace", [](Interpreter&, const Value& v) { return Value(std::make_shared<TraceValue>(v.as<ScheduleValue>()->trace)); });
  t->def_property("func_working_on", [](Interpreter&, const Value& v) -> Value {
    const std::string& f = v.as<ScheduleValue>()->state.func_name();
    return f.empty() ? Value() : script::make_str(f);
  });
  t->def("show", "self", [](Interpreter& interp, Args& a) {
    interp.write_stdout(ir::script(self(a).state.mod()));
    return Value();
  }, "show(): print the current module.");
  t->def("copy", "self", [](Interpreter&, Args& a) { return Value(std::make_shared<ScheduleValue>(self(a))); },
         "copy(): an independent schedule with the same module, trace and handles.");
  t->def("seed", "self, seed", [](Interpreter&, Args& a) {
    self(a).rand_state = static_cast<uint64_t>(a.get_int(1));
    return Value();
  }, "seed(n): make the following sampling decisions deterministic.");
  t->def("work_on", "self, func_name", [](Interpreter&, Args& a) {
    const std::string& name = a.get_str(1);
    if (!self(a).state.mod()->find(name)) a.value_error(1, "no function named \"" + name + "\" in the module");
    self(a).state.set_func_name(name);
    return Value();
  });
  t->def("get", "self, rv", [](Interpreter&, Args& a) -> Value {
    auto* rv = a[1].as<RVValue>();
    if (!rv) a.type_error(1, "a BlockRV, LoopRV or ExprRV");
    if (rv->rv->kind == RVNode::Kind::Expr) return Value::integer(rv->rv->value);
    const schedule::NodeInfo* info = self(a).state.info(rv->rv->sid);
    if (!info) raise(ExcKind::ValueError, "get: the handle is no longer in the schedule");
    // The loop or block itself, kept alive by the module it is part of now.
    return wrap(ir::Stmt(self(a).state.mod(), info->node));
  });

  // ---- queries
  auto get_block = [](Interpreter&, Args& a) {
    ScheduleValue& sch = self(a);
    std::string func = a[2].is_none() ? sch.state.func_name() : a.get_str(2);
    if (func.empty()) {
      raise(ExcKind::ValueError, "get_block: the module has several functions: pass func_name= or call sch.work_on(name)");
    }
    const std::string& name = a.get_str(1);
    uint64_t sid = run(sch, [&] { return schedule::get_block(sch.state, name, func); });
    Value out = make_rv(RVNode::Kind::Block, sid);
    record(sch, {"GetBlock", "get_block", {}, {{"name", TraceArg::of_str(name)}, {"func_name", TraceArg::of_str(func)}}, {rv_of(out)}, false});
    return out;
  };
  t->def("get_block", "self, name, func_name=None", get_block, "get_block(name, func_name=None) -> BlockRV");
  t->def("get_sblock", "self, name, func_name=None", get_block);
  t->def("get_loops", "self, block", [](Interpreter&, Args& a) {
    ScheduleValue& sch = self(a);
    Value block = block_arg(a, 1);
    schedule::Instruction inst{"GetLoops", "get_loops", {}, {{"block", ref_of(block)}}, {}, true};
    Value out = rv_list(schedule::get_loops(sch.state, rv_of(block)->sid), RVNode::Kind::Loop, inst.outputs);
    record(sch, std::move(inst));
    return out;
  }, "get_loops(block) -> list of LoopRV, outermost first");
  t->def("get_child_blocks", "self, block_or_loop", [](Interpreter&, Args& a) {
    ScheduleValue& sch = self(a);
    auto* rv = a[1].as<RVValue>();
    if (!rv || rv->rv->kind == RVNode::Kind::Expr) a.type_error(1, "a BlockRV or LoopRV");
    if (!sch.state.info(rv->rv->sid)) raise(ExcKind::ValueError, "get_child_blocks: the handle is no longer in the schedule");
    schedule::Instruction inst{"GetChildBlocks", "get_child_blocks", {ref_of(a[1])}, {}, {}, true};
    Value out = rv_list(schedule::get_child_blocks(sch.state, rv->rv->sid), RVNode::Kind::Block, inst.outputs);
    record(sch, std::move(inst));
    return out;
  });

  // ---- loop transformations
  t->def("split", "self, loop, factors, preserve_unit_iters=True, disable_predication=False", [](Interpreter& interp, Args& a) {
    ScheduleValue& sch = self(a);
    uint64_t loop = loop_arg(a, 1);
    std::vector<std::optional<int64_t>> factors;
    std::vector<TraceArg> factor_args;
    if (!a[2].as<script::List>() && !a[2].as<script::Tuple>()) a.type_error(2, "a list of int or None");
    for (const Value& f : interp.to_vector(a[2])) {
      if (f.is_none()) {
        factors.push_back(std::nullopt);
        factor_args.push_back(TraceArg::none());
      } else if (f.is_integral()) {
        // -1 means "infer", like None.
        factors.push_back(f.as_int() == -1 ? std::nullopt : std::optional<int64_t>(f.as_int()));
        factor_args.push_back(TraceArg::of_int(f.as_int()));
      } else if (auto* rv = f.as<RVValue>(); rv && rv->rv->kind == RVNode::Kind::Expr) {
        factors.push_back(rv->rv->value);
        factor_args.push_back(TraceArg::of_ref(rv->rv));
      } else {
        raise(ExcKind::TypeError, fmt::format("argument 2, 'factors' to split: expected a list of int or None, got a list containing {}",
                                              Interpreter::type_name(f)));
      }
    }
    bool preserve = a.get_bool(3), disable = a.get_bool(4);
    std::vector<uint64_t> loops = run(sch, [&] { return schedule::split(sch.state, loop, factors, preserve, disable); });
    schedule::Instruction inst{"Split", "split", {},
                               {{"loop", ref_of(a[1])}, {"factors", TraceArg::of_list(factor_args)},
                                {"preserve_unit_iters", TraceArg::of_bool(preserve)}, {"disable_predication", TraceArg::of_bool(disable)}},
                               {}, true};
    Value out = rv_list(loops, RVNode::Kind::Loop, inst.outputs);
    record(sch, std::move(inst));
    return out;
  }, "split(loop, factors, preserve_unit_iters=True, disable_predication=False) -> list of LoopRV\n"
     "Replace the loop by nested loops with the given extents; at most one factor may be None.");
  t->def("fuse", "self, *loops, preserve_unit_iters=True", [](Interpreter&, Args& a) {
    ScheduleValue& sch = self(a);
    std::vector<uint64_t> loops;
    std::vector<TraceArg> refs;
    for (const Value& v : a.varargs()) {
      loops.push_back(loop_value(a, v, 1));
      refs.push_back(ref_of(v));
    }
    bool preserve = a.get_bool(2);
    uint64_t fused = run(sch, [&] { return schedule::fuse(sch.state, loops, preserve); });
    Value out = make_rv(RVNode::Kind::Loop, fused);
    record(sch, {"Fuse", "fuse", refs, {{"preserve_unit_iters", TraceArg::of_bool(preserve)}}, {rv_of(out)}, false});
    return out;
  }, "fuse(*loops, preserve_unit_iters=True) -> LoopRV: fuse perfectly nested loops into one.");
  t->def("reorder", "self, *ordered_loops", [](Interpreter&, Args& a) {
    ScheduleValue& sch = self(a);
    std::vector<uint64_t> loops;
    std::vector<TraceArg> refs;
    for (const Value& v : a.varargs()) {
      loops.push_back(loop_value(a, v, 1));
      refs.push_back(ref_of(v));
    }
    run(sch, [&] {
      schedule::reorder(sch.state, loops);
      return 0;
    });
    record(sch, {"Reorder", "reorder", refs, {}, {}, false});
    return Value();
  }, "reorder(*ordered_loops): put the loops of one chain in the given order.");
  auto kind = [](const char* name, const char* trace_kind, void (*fn)(ScheduleState&, uint64_t)) {
    return [name, trace_kind, fn](Interpreter&, Args& a) {
      ScheduleValue& sch = self(a);
      uint64_t loop = loop_arg(a, 1);
      run(sch, [&] {
        fn(sch.state, loop);
        return 0;
      });
      record(sch, {trace_kind, name, {}, {{"loop", ref_of(a[1])}}, {}, false});
      return Value();
    };
  };
  t->def("parallel", "self, loop", kind("parallel", "Parallel", schedule::parallel), "parallel(loop): run the loop's iterations on threads.");
  t->def("vectorize", "self, loop", kind("vectorize", "Vectorize", schedule::vectorize), "vectorize(loop): make the loop a vector operation.");
  t->def("unroll", "self, loop", kind("unroll", "Unroll", schedule::unroll), "unroll(loop): unroll the loop.");
  t->def("bind", "self, loop, thread_axis", [](Interpreter&, Args& a) {
    ScheduleValue& sch = self(a);
    uint64_t loop = loop_arg(a, 1);
    const std::string& axis = a.get_str(2);
    run(sch, [&] {
      schedule::bind(sch.state, loop, axis);
      return 0;
    });
    record(sch, {"Bind", "bind", {}, {{"loop", ref_of(a[1])}, {"thread_axis", TraceArg::of_str(axis)}}, {}, false});
    return Value();
  }, "bind(loop, thread_axis): bind the loop to a GPU thread axis such as \"threadIdx.x\".");
  auto compute_at = [](const char* name, const char* trace_kind, bool reverse) {
    return [name, trace_kind, reverse](Interpreter&, Args& a) {
      ScheduleValue& sch = self(a);
      Value block = block_arg(a, 1);
      // The locations sample_compute_location can return: stay at the root, or inline.
      if (auto* rv = a[2].as<RVValue>(); rv && rv->rv->kind == RVNode::Kind::Loop && (rv->rv->sid == kRootLoop || rv->rv->sid == kInlineLoop)) {
        if (rv->rv->sid == kInlineLoop) {
          run(sch, [&] {
            schedule::compute_inline(sch.state, rv_of(block)->sid);
            return 0;
          });
        }
        record(sch, {trace_kind, name, {}, {{"block", ref_of(block)}, {"loop", ref_of(a[2])}, {"preserve_unit_loops", TraceArg::of_bool(a.get_bool(3))}, {"index", TraceArg::of_int(a.get_int(4))}}, {}, false});
        return Value();
      }
      uint64_t loop = loop_arg(a, 2);
      bool preserve = a.get_bool(3);
      int64_t index = a.get_int(4);
      run(sch, [&] {
        if (reverse) schedule::reverse_compute_at(sch.state, rv_of(block)->sid, loop, preserve, index);
        else schedule::compute_at(sch.state, rv_of(block)->sid, loop, preserve, index);
        return 0;
      });
      record(sch, {trace_kind, name, {},
                   {{"block", ref_of(block)}, {"loop", ref_of(a[2])}, {"preserve_unit_loops", TraceArg::of_bool(preserve)},
                    {"index", TraceArg::of_int(index)}},
                   {}, false});
      return Value();
    };
  };
  t->def("compute_at", "self, block, loop, preserve_unit_loops=False, index=-1", compute_at("compute_at", "ComputeAt", false),
         "compute_at(block, loop, preserve_unit_loops=False, index=-1): move a producer under a loop of its consumers,\n"
         "computing exactly the region they need per iteration.");
  t->def("reverse_compute_at", "self, block, loop, preserve_unit_loops=False, index=-1",
         compute_at("reverse_compute_at", "ReverseComputeAt", true),
         "reverse_compute_at(block, loop, preserve_unit_loops=False, index=-1): move a consumer under a loop of its producers.");
  t->def("decompose_reduction", "self, block, loop", [](Interpreter&, Args& a) {
    ScheduleValue& sch = self(a);
    Value block = block_arg(a, 1);
    uint64_t loop = loop_arg(a, 2);
    uint64_t init = run(sch, [&] { return schedule::decompose_reduction(sch.state, rv_of(block)->sid, loop); });
    Value out = make_rv(RVNode::Kind::Block, init);
    record(sch, {"DecomposeReduction", "decompose_reduction", {}, {{"block", ref_of(block)}, {"loop", ref_of(a[2])}}, {rv_of(out)}, false});
    return out;
  }, "decompose_reduction(block, loop) -> BlockRV: split the block's T.init into a block X_init placed before loop.");
  // ---- annotations and small helpers
  t->def("annotate", "self, block_or_loop, ann_key, ann_val", [](Interpreter& interp, Args& a) {
    ScheduleValue& sch = self(a);
    auto* rv = a[1].as<RVValue>();
    if (!rv || rv->rv->kind == RVNode::Kind::Expr) a.type_error(1, "a BlockRV or LoopRV");
    if (!sch.state.info(rv->rv->sid)) raise(ExcKind::ValueError, "annotate: the handle is no longer in the schedule");
    const std::string& key = a.get_str(2);
    ir::AttrValue value;
    TraceArg traced;
    if (a[3].is_bool()) {
      value = ir::AttrValue::of_bool(a[3].as_bool());
      traced = TraceArg::of_bool(a[3].as_bool());
    } else if (a[3].is_int()) {
      value = ir::AttrValue::of_int(a[3].as_int());
      traced = TraceArg::of_int(a[3].as_int());
    } else if (auto* str = a[3].as<script::Str>()) {
      value = ir::AttrValue::of_str(str->value);
      traced = TraceArg::of_str(str->value);
    } else if (auto* e = a[3].as<RVValue>(); e && e->rv->kind == RVNode::Kind::Expr) {
      value = ir::AttrValue::of_int(e->rv->value);
      traced = TraceArg::of_ref(e->rv);
    } else {
      a.type_error(3, "an int, bool, str or ExprRV");
    }
    run(sch, [&] {
      schedule::annotate(sch.state, rv->rv->sid, key, value);
      return 0;
    });
    record(sch, {"Annotate", "annotate", {}, {{"block_or_loop", ref_of(a[1])}, {"ann_key", TraceArg::of_str(key)}, {"ann_val", traced}}, {}, false});
    return Value();
  }, "annotate(block_or_loop, ann_key, ann_val): attach an annotation (e.g. pragma_auto_unroll_max_step).");
  t->def("unannotate", "self, block_or_loop, ann_key", [](Interpreter&, Args& a) {
    ScheduleValue& sch = self(a);
    auto* rv = a[1].as<RVValue>();
    if (!rv || rv->rv->kind == RVNode::Kind::Expr) a.type_error(1, "a BlockRV or LoopRV");
    const std::string& key = a.get_str(2);
    run(sch, [&] {
      schedule::unannotate(sch.state, rv->rv->sid, key);
      return 0;
    });
    record(sch, {"Unannotate", "unannotate", {}, {{"block_or_loop", ref_of(a[1])}, {"ann_key", TraceArg::of_str(key)}}, {}, false});
    return Value();
  });
  t->def("add_unit_loop", "self, block_or_loop", [](Interpreter&, Args& a) {
    ScheduleValue& sch = self(a);
    auto* rv = a[1].as<RVValue>();
    if (!rv || rv->rv->kind == RVNode::Kind::Expr) a.type_error(1, "a BlockRV or LoopRV");
    uint64_t loop = run(sch, [&] { return schedule::add_unit_loop(sch.state, rv->rv->sid); });
    Value out = make_rv(RVNode::Kind::Loop, loop);
    record(sch, {"AddUnitLoop", "add_unit_loop", {}, {{"block_or_loop", ref_of(a[1])}}, {rv_of(out)}, false});
    return out;
  });
  auto neighbours = [](const char* name, const char* trace_kind, bool producers) {
    return [name, trace_kind, producers](Interpreter&, Args& a) {
      ScheduleValue& sch = self(a);
      Value block = block_arg(a, 1);
      uint64_t sid = rv_of(block)->sid;
      schedule::Instruction inst{trace_kind, name, {}, {{"block", ref_of(block)}}, {}, true};
      Value out = rv_list(producers ? schedule::get_producers(sch.state, sid) : schedule::get_consumers(sch.state, sid),
                          RVNode::Kind::Block, inst.outputs);
      record(sch, std::move(inst));
      return out;
    };
  };
  t->def("get_producers", "self, block", neighbours("get_producers", "GetProducers", true));
  t->def("get_consumers", "self, block", neighbours("get_consumers", "GetConsumers", false));
  t->def("compute_inline", "self, block", [](Interpreter&, Args& a) {
    ScheduleValue& sch = self(a);
    Value block = block_arg(a, 1);
    run(sch, [&] {
      schedule::compute_inline(sch.state, rv_of(block)->sid);
      return 0;
    });
    record(sch, {"ComputeInline", "compute_inline", {}, {{"block", ref_of(block)}}, {}, false});
    return Value();
  }, "compute_inline(block): substitute the block's value into its consumers and remove it.");

  // ---- caches
  auto buffer_index = [](Args& a, size_t i, const std::vector<ir::BufferRegion>& regions) -> int64_t {
    if (auto* name = a[i].as<script::Str>()) {
      for (size_t k = 0; k < regions.size(); ++k) {
        if (regions[k].buffer->name == name->value) return static_cast<int64_t>(k);
      }
      a.value_error(i, "the block does not access a buffer named " + name->value);
    }
    if (auto* b = a[i].as<BufferValue>()) {
      for (size_t k = 0; k < regions.size(); ++k) {
        if (regions[k].buffer == b->buffer) return static_cast<int64_t>(k);
      }
      a.value_error(i, "the block does not access buffer " + b->buffer->name);
    }
    return a.get_int(i);
  };
  // cache_read / cache_write: the same binding over the block's reads or writes.
  struct CacheKind {
    const char* name;
    const char* inst;
    const char* index_kw;
    bool read;
    const char* doc;
  };
  for (CacheKind k : {CacheKind{"cache_read", "CacheRead", "read_buffer_index", true,
                                "cache_read(block, read_buffer_index, storage_scope) -> BlockRV: read a buffer through a copy in storage_scope."},
                      CacheKind{"cache_write", "CacheWrite", "write_buffer_index", false,
                                "cache_write(block, write_buffer_index, storage_scope) -> BlockRV: write through a copy in storage_scope."}}) {
    std::string signature = std::string("self, block, ") + k.index_kw + ", storage_scope, consumer_blocks=None";
    t->def(k.name, signature, [buffer_index, k](Interpreter&, Args& a) {
      ScheduleValue& sch = self(a);
      Value block = block_arg(a, 1);
      const ir::BlockNode* b = sch.state.block(rv_of(block)->sid);
      int64_t index = buffer_index(a, 2, k.read ? b->reads : b->writes);
      const std::string& scope = a.get_str(3);
      uint64_t copy = run(sch, [&] {
        return k.read ? schedule::cache_read(sch.state, rv_of(block)->sid, index, scope)
                      : schedule::cache_write(sch.state, rv_of(block)->sid, index, scope);
      });
      Value out = make_rv(RVNode::Kind::Block, copy);
      record(sch, {k.inst, k.name, {},
                   {{"block", ref_of(block)}, {k.index_kw, TraceArg::of_int(index)}, {"storage_scope", TraceArg::of_str(scope)}},
                   {rv_of(out)}, false});
      return out;
    }, k.doc);
  }
  t->def("set_scope", "self, block, buffer_index, storage_scope", [buffer_index](Interpreter&, Args& a) {
    ScheduleValue& sch = self(a);
    Value block = block_arg(a, 1);
    int64_t index = buffer_index(a, 2, sch.state.block(rv_of(block)->sid)->writes);
    const std::string& scope = a.get_str(3);
    run(sch, [&] {
      schedule::set_scope(sch.state, rv_of(block)->sid, index, scope);
      return 0;
    });
    record(sch, {"SetScope", "set_scope", {},
                 {{"block", ref_of(block)}, {"buffer_index", TraceArg::of_int(index)}, {"storage_scope", TraceArg::of_str(scope)}}, {}, false});
    return Value();
  });

  // ---- sampling
  t->def("sample_perfect_tile", "self, loop, n, max_innermost_factor=16, decision=None", [](Interpreter& interp, Args& a) {
    ScheduleValue& sch = self(a);
    uint64_t loop = loop_arg(a, 1);
    int64_t n = a.get_int(2), max_inner = a.get_int(3);
    // A tile of more than 64 loops has no use and would make as many loops in the IR.
    if (n < 1 || n > 64) a.value_error(2, "n must be between 1 and 64, got " + std::to_string(n));
    if (max_inner != -1 && max_inner < 1) a.value_error(3, "max_innermost_factor must be positive, or -1 for no limit, got " + std::to_string(max_inner));
    int64_t extent;
    std::vector<int64_t> factors;
    if (!ir::as_const_int(sch.state.loop(loop)->extent, &extent)) {
      factors.assign(static_cast<size_t>(n), 1);
      factors[0] = -1;
    } else if (!a[4].is_none()) {
      int64_t product = 1;
      bool ok = true;
      for (const Value& v : interp.to_vector(a[4])) {
        if (!v.is_integral()) a.type_error(4, "a list of int");
        factors.push_back(v.as_int());
        ok &= factors.back() >= 1 && !__builtin_mul_overflow(product, factors.back(), &product);
      }
      if (!ok || static_cast<int64_t>(factors.size()) != n || product != extent) a.value_error(4, "the decision does not tile the loop");
    } else {
      factors = schedule::sample_perfect_tile(extent, n, max_inner, sch.rand_state);
    }
    schedule::Instruction inst{"SamplePerfectTile", "sample_perfect_tile", {}, {}, {}, true};
    std::vector<Value> outs;
    std::vector<TraceArg> decision;
    for (int64_t f : factors) {
      auto rv = std::make_shared<RVNode>();
      rv->kind = RVNode::Kind::Expr;
      rv->value = f;
      outs.push_back(Value(std::make_shared<RVValue>(rv)));
      inst.outputs.push_back(rv);
      decision.push_back(TraceArg::of_int(f));
    }
    inst.keywords = {{"loop", ref_of(a[1])}, {"n", TraceArg::of_int(n)}, {"max_innermost_factor", TraceArg::of_int(max_inner)},
                     {"decision", TraceArg::of_list(decision)}};
    record(sch, std::move(inst));
    return script::make_list(std::move(outs));
  }, "sample_perfect_tile(loop, n, max_innermost_factor=16, decision=None) -> list of ExprRV whose product is the extent.");
  t->def("sample_categorical", "self, candidates, probs, decision=None", [](Interpreter& interp, Args& a) {
    ScheduleValue& sch = self(a);
    std::vector<Value> candidates = interp.to_vector(a[1]);
    std::vector<double> probs;
    double total = 0;
    for (const Value& p : interp.to_vector(a[2])) {
      if (!p.is_integral() && !p.is_float()) a.type_error(2, "a list of float");
      probs.push_back(p.as_float());
      if (!std::isfinite(probs.back()) || probs.back() < 0) a.value_error(2, "probabilities must be finite and non-negative, got " + interp.repr(p));
      total += probs.back();
    }
    for (const Value& c : candidates)
      if (!c.is_integral()) a.type_error(1, "a list of int");
    if (candidates.size() != probs.size() || candidates.empty()) a.value_error(2, "candidates and probs must have the same, non-zero length");
    if (!(total > 0) || !std::isfinite(total)) a.value_error(2, "the probabilities must not all be zero");
    int64_t choice = a[3].is_none() ? schedule::sample_categorical(probs, sch.rand_state) : a.get_int(3);
    if (choice < 0 || choice >= static_cast<int64_t>(candidates.size())) a.value_error(3, "the decision is not a candidate index");
    auto rv = std::make_shared<RVNode>();
    rv->kind = RVNode::Kind::Expr;
    rv->value = candidates[static_cast<size_t>(choice)].as_int();
    std::vector<TraceArg> cand, pr;
    for (const Value& c : candidates) cand.push_back(TraceArg::of_int(c.as_int()));
    for (double p : probs) {
      TraceArg f;
      f.kind = TraceArg::Kind::Float;
      f.f = p;
      pr.push_back(f);
    }
    record(sch, {"SampleCategorical", "sample_categorical", {},
                 {{"candidates", TraceArg::of_list(cand)}, {"probs", TraceArg::of_list(pr)}, {"decision", TraceArg::of_int(choice)}}, {rv}, false});
    return Value(std::make_shared<RVValue>(rv));
  });
  t->def("reverse_compute_inline", "self, block", [](Interpreter&, Args& a) {
    ScheduleValue& sch = self(a);
    Value block = block_arg(a, 1);
    run(sch, [&] {
      schedule::reverse_compute_inline(sch.state, rv_of(block)->sid);
      return 0;
    });
    record(sch, {"ReverseComputeInline", "reverse_compute_inline", {}, {{"block", ref_of(block)}}, {}, false});
    return Value();
  }, "reverse_compute_inline(block): fold a consumer into its single producer.");
  t->def("storage_align", "self, block, buffer_index, axis, factor, offset", [](Interpreter&, Args& a) {
    ScheduleValue& sch = self(a);
    Value block = block_arg(a, 1);
    int64_t index = a.get_int(2), axis = a.get_int(3), factor = a.get_int(4), offset = a.get_int(5);
    run(sch, [&] {
      schedule::storage_align(sch.state, rv_of(block)->sid, index, axis, factor, offset);
      return 0;
    });
    record(sch, {"StorageAlign", "storage_align", {},
                 {{"block", ref_of(block)}, {"buffer_index", TraceArg::of_int(index)}, {"axis", TraceArg::of_int(axis)},
                  {"factor", TraceArg::of_int(factor)}, {"offset", TraceArg::of_int(offset)}},
                 {}, false});
    return Value();
  }, "storage_align(block, buffer_index, axis, factor, offset): stride of axis = factor * k + offset.");
  t->def("sample_compute_location", "self, block, decision=None", [](Interpreter&, Args& a) {
    ScheduleValue& sch = self(a);
    Value block = block_arg(a, 1);
    std::vector<uint64_t> candidates = schedule::compute_location_candidates(sch.state, rv_of(block)->sid);
    int64_t decision;
    if (a[2].is_none()) {
      std::vector<double> probs(candidates.size() + 1, 1.0);
      decision = schedule::sample_categorical(probs, sch.rand_state) - 1;  // -1: root
    } else {
      decision = a.get_int(2);
      if (decision < -2 || decision >= static_cast<int64_t>(candidates.size())) a.value_error(2, "not a valid location");
    }
    uint64_t sid = decision == -1 ? kRootLoop : decision == -2 ? kInlineLoop : candidates[static_cast<size_t>(decision)];
    Value out = make_rv(RVNode::Kind::Loop, sid);
    record(sch, {"SampleComputeLocation", "sample_compute_location", {}, {{"block", ref_of(block)}, {"decision", TraceArg::of_int(decision)}},
                 {rv_of(out)}, false});
    return out;
  }, "sample_compute_location(block, decision=None) -> LoopRV (decision -1: stay at the root, -2: inline).");
  t->def("transform_layout", "self, block, buffer, index_map, pad_value=None, *, assume_injective_transform=False",
         [](Interpreter& interp, Args& a) {
    ScheduleValue& sch = self(a);
    Value block = block_arg(a, 1);
    const ir::BlockNode* b = sch.state.block(rv_of(block)->sid);
    // The buffer: ("read"|"write", index), an index into the writes, a name, or a Buffer.
    ir::Buffer buffer;
    TraceArg buffer_arg;
    auto pick = [&](const std::vector<ir::BufferRegion>& regions, int64_t i, const char* what) {
      if (i < 0 || i >= static_cast<int64_t>(regions.size())) a.value_error(2, fmt::format("the block has no {} buffer {}", what, i));
      buffer = regions[static_cast<size_t>(i)].buffer;
      buffer_arg = TraceArg::of_tuple({TraceArg::of_str(what), TraceArg::of_int(i)});
    };
    std::vector<Value> pair = (a[2].as<script::Tuple>() || a[2].as<script::List>()) ? interp.to_vector(a[2]) : std::vector<Value>{};
    if (pair.size() == 2 && pair[0].as<script::Str>() && pair[1].is_int()) {
      const std::string& kind = pair[0].as<script::Str>()->value;
      if (kind != "read" && kind != "write") a.value_error(2, "the kind must be \"read\" or \"write\"");
      pick(kind == "read" ? b->reads : b->writes, pair[1].as_int(), kind == "read" ? "read" : "write");
    } else if (a[2].is_int()) {
      pick(b->writes, a[2].as_int(), "write");
    } else if (auto* name = a[2].as<script::Str>()) {
      for (const auto* regions : {&b->writes, &b->reads}) {
        for (size_t i = 0; i < regions->size() && !buffer; ++i) {
          if ((*regions)[i].buffer->name == name->value) pick(*regions, static_cast<int64_t>(i), regions == &b->writes ? "write" : "read");
        }
      }
      if (!buffer) a.value_error(2, "the block does not access a buffer named " + name->value);
    } else if (auto* bv = a[2].as<BufferValue>()) {
      for (const auto* regions : {&b->writes, &b->reads}) {
        for (size_t i = 0; i < regions->size() && !buffer; ++i) {
          if ((*regions)[i].buffer == bv->buffer) pick(*regions, static_cast<int64_t>(i), regions == &b->writes ? "write" : "read");
        }
      }
      if (!buffer) a.value_error(2, "the block does not access buffer " + bv->buffer->name);
    } else {
      a.type_error(2, "(\"read\" or \"write\", index), a buffer name or a Buffer");
    }
    // The index map: a function of the buffer's indices (or its lambda source, from a trace).
    Value fn = a[3];
    if (auto* src = a[3].as<script::Str>()) {
      auto globals = lambda_source_globals(interp);
      interp.exec_source(SourceFile::make("<index_map>", "index_map = " + src->value + "\n"), globals);
      fn = *globals->find(intern("index_map"));
    }
    std::vector<ir::Var> params;
    std::vector<Value> args;
    auto* script_fn = fn.as<script::Function>();
    if (script_fn && script_fn->params->size() != buffer->shape.size()) {
      a.value_error(3, fmt::format("the index map takes {} indices but buffer {} has {} dimensions", script_fn->params->size(),
                                   buffer->name, buffer->shape.size()));
    }
    for (size_t d = 0; d < buffer->shape.size(); ++d) {
      std::string pname = script_fn && d < script_fn->params->size() ? symbol_name((*script_fn->params)[d].name) : "i" + std::to_string(d);
      params.push_back(ir::make_var(pname, buffer->shape[d]->dtype));
      args.push_back(wrap(ir::PrimExpr(params.back())));
    }
    Value result = interp.call(fn, args);
    std::vector<Value> items = result.as<script::Tuple>() || result.as<script::List>() ? interp.to_vector(result) : std::vector<Value>{result};
    std::vector<ir::PrimExpr> outputs;
    for (const Value& v : items) outputs.push_back(to_expr(interp, v, "index map output"));
    // The pad value: a constant, an expression, or a function of the transformed indices.
    schedule::LayoutPadding padding;
    padding.assume_injective = a.get_bool(5);
    for (size_t d = 0; d < outputs.size(); ++d) {
      static const char* kNames[] = {"i", "j", "k", "l", "m", "n"};
      padding.indices.push_back(ir::make_var(d < 6 ? kNames[d] : "i" + std::to_string(d), outputs[d]->dtype));
    }
    Value pad = a[4];
    if (auto* src = pad.as<script::Str>()) {
      auto globals = lambda_source_globals(interp);
      interp.exec_source(SourceFile::make("<pad_value>", "pad_value = " + src->value + "\n"), globals);
      pad = *globals->find(intern("pad_value"));
    }
    if (pad.as<script::Function>() || pad.as<script::NativeFunction>()) {
      std::vector<Value> index_args;
      for (const auto& v : padding.indices) index_args.push_back(wrap(ir::PrimExpr(v)));
      pad = interp.call(pad, index_args);
      if (pad.as<script::Tuple>() || pad.as<script::List>()) {
        std::vector<Value> items = interp.to_vector(pad);
        if (items.size() != 1) a.value_error(4, "a single value");
        pad = items[0];
      }
    }
    if (!pad.is_none()) {
      if (pad.is_bool()) padding.value = ir::make_bool(pad.as_bool());
      else if (pad.is_int()) padding.value = ir::make_int(pad.as_int(), ir::DataType::int32());
      else if (pad.is_float()) padding.value = ir::make_float(pad.as_float(), ir::DataType::float32());
      else padding.value = to_expr(interp, pad, "pad value");
    }
    run(sch, [&] {
      schedule::transform_layout(sch.state, rv_of(block)->sid, buffer, params, outputs, padding);
      return 0;
    });
    TraceArg pad_arg = padding.value ? TraceArg::of_index_map(padding.indices, {padding.value}) : TraceArg::none();
    record(sch, {"TransformLayout", "transform_layout", {},
                 {{"block", ref_of(block)}, {"buffer", buffer_arg}, {"index_map", TraceArg::of_index_map(params, outputs)},
                  {"pad_value", pad_arg}, {"assume_injective_transform", TraceArg::of_bool(a.get_bool(5))}},
                 {}, false});
    return Value();
  }, "transform_layout(block, buffer, index_map, pad_value=None, *, assume_injective_transform=False): re-index a buffer, "
     "e.g. index_map=lambda i, j: (i // 16, j, i % 16); padding needs pad_value (a constant or a function of the new indices).");
  t->def("rfactor", "self, loop, factor_axis", [](Interpreter&, Args& a) {
    ScheduleValue& sch = self(a);
    uint64_t loop = loop_arg(a, 1);
    int64_t axis = a.get_int(2);
    uint64_t rf = run(sch, [&] { return schedule::rfactor(sch.state, loop, axis); });
    Value out = make_rv(RVNode::Kind::Block, rf);
    record(sch, {"RFactor", "rfactor", {}, {{"loop", ref_of(a[1])}, {"factor_axis", TraceArg::of_int(axis)}}, {rv_of(out)}, false});
    return out;
  }, "rfactor(loop, factor_axis) -> BlockRV: factorize the reduction along loop into a new buffer X_rf.");
  t->def("blockize", "self, target, preserve_unit_iters=True", [](Interpreter& interp, Args& a) {
    ScheduleValue& sch = self(a);
    bool preserve = a.get_bool(2);
    uint64_t outer;
    TraceArg target;
    if (a[1].as<script::List>() || a[1].as<script::Tuple>()) {
      // A list of blocks: their consecutive subtrees become one outer block.
      std::vector<uint64_t> blocks;
      std::vector<TraceArg> refs;
      for (const Value& v : interp.to_vector(a[1])) {
        auto* rv = v.as<RVValue>();
        if (!rv || rv->rv->kind != RVNode::Kind::Block) {
          raise(ExcKind::TypeError, "blockize: the target list holds " + Interpreter::type_name(v) + "; expected BlockRVs");
        }
        if (!sch.state.block(rv->rv->sid)) raise(ExcKind::ValueError, "blockize: a block handle is no longer in the schedule");
        blocks.push_back(rv->rv->sid);
        refs.push_back(ref_of(v));
      }
      outer = run(sch, [&] { return schedule::blockize_blocks(sch.state, blocks, preserve); });
      target = TraceArg::of_list(refs);
    } else {
      uint64_t loop = loop_arg(a, 1);
      outer = run(sch, [&] { return schedule::blockize(sch.state, loop, preserve); });
      target = ref_of(a[1]);
    }
    Value out = make_rv(RVNode::Kind::Block, outer);
    record(sch, {"Blockize", "blockize", {}, {{"target", target}, {"preserve_unit_iters", TraceArg::of_bool(preserve)}}, {rv_of(out)}, false});
    return out;
  }, "blockize(target, preserve_unit_iters=True) -> BlockRV: wrap the subtree under a loop (or the consecutive subtrees of a "
     "list of blocks) into an outer block X_o (outer_B_C_).");
  for (const char* name : {"tensorize"}) {
    not_supported(*t, name);
  }
  // Append each primitive's checks and example to its one-line description.
  for (const auto& [symbol, value] : t->dict().values()) {
    auto* fn = value.as<script::NativeFunction>();
    std::string more = schedule_primitive_help(symbol_name(symbol));
    if (fn && !more.empty()) fn->doc += "\n" + more;
  }
  // A call that fails leaves the trace as it was: the get_block of a block given by name
  // (recorded while reading the arguments) goes too.
  for (const auto& [symbol, value] : t->dict().values()) {
    auto* fn = value.as<script::NativeFunction>();
    if (!fn) continue;
    fn->impl = [impl = fn->impl](Interpreter& interp, Args& a) -> Value {
      auto* sch = a.size() > 0 ? a[0].as<ScheduleValue>() : nullptr;
      size_t mark = sch ? sch->trace.insts.size() : 0;
      try {
        return impl(interp, a);
      } catch (...) {
        if (sch && sch->trace.insts.size() > mark) sch->trace.insts.resize(mark);
        throw;
      }
    };
  }
  return t;
}

TypeRef schedule_type() {
  static TypeRef t = make_schedule_type();
  return t;
}

TypeObject* ScheduleValue::type() const { return schedule_type().get(); }

// Replays a trace on another schedule by calling the same methods with mapped handles.
void apply_trace(Interpreter& interp, const schedule::Trace& trace, const Value& target) {
  std::unordered_map<const RVNode*, Value> mapped;
  std::function<Value(const TraceArg&)> convert = [&](const TraceArg& a) -> Value {
    switch (a.kind) {
      case TraceArg::Kind::None: return Value();
      case TraceArg::Kind::Int: return Value::integer(a.i);
      case TraceArg::Kind::Float: return Value::real(a.f);
      case TraceArg::Kind::Bool: return Value::boolean(a.b);
      case TraceArg::Kind::Str: return script::make_str(a.s);
      case TraceArg::Kind::Ref: {
        auto it = mapped.find(a.ref.get());
        if (it == mapped.end()) raise(ExcKind::ValueError, "apply_to_schedule: the trace uses a handle it never created");
        return it->second;
      }
      case TraceArg::Kind::List: {
        std::vector<Value> items;
        for (const auto& x : a.list) items.push_back(convert(x));
        return script::make_list(std::move(items));
      }
      case TraceArg::Kind::Tuple: {
        std::vector<Value> items;
        for (const auto& x : a.list) items.push_back(convert(x));
        return script::make_tuple(std::move(items));
      }
      case TraceArg::Kind::IndexMap: return script::make_str(a.lambda_text());
    }
    return Value();
  };
  for (const auto& inst : trace.insts) {
    script::CallArgs call;
    for (const auto& p : inst.positional) call.positional.push_back(convert(p));
    for (const auto& [k, v] : inst.keywords) call.keywords.emplace_back(intern(k), convert(v));
    Value result = interp.call(interp.get_attr(target, intern(inst.method)), std::move(call));
    if (inst.outputs.empty()) continue;
    std::vector<Value> outs = inst.list_output ? interp.to_vector(result) : std::vector<Value>{result};
    for (size_t i = 0; i < inst.outputs.size() && i < outs.size(); ++i) mapped[inst.outputs[i].get()] = outs[i];
  }
}

// JSON form (as TVM's: [instructions, decisions]); each instruction is
// [kind, inputs, attrs, outputs] where inputs maps argument names to handle names ("b0",
// "l1", "v2", or lists mixing handles and literals such as split factors), attrs maps the
// other arguments to literals, "*" holds variadic arguments, and outputs lists handle names.
// Sampling decisions are kept with their instructions (the `decision` attribute).
Value trace_to_json(Interpreter& interp, const schedule::Trace& trace) {
  std::unordered_map<const RVNode*, std::string> names;
  int counter = 0;
  std::function<bool(const TraceArg&)> has_ref = [&](const TraceArg& a) {
    if (a.kind == TraceArg::Kind::Ref) return true;
    if (a.kind == TraceArg::Kind::List) {
      for (const auto& x : a.list) {
        if (has_ref(x)) return true;
      }
    }
    return false;
  };
  std::function<Value(const TraceArg&)> to_value = [&](const TraceArg& a) -> Value {
    switch (a.kind) {
      case TraceArg::Kind::None: return Value();
      case TraceArg::Kind::Int: return Value::integer(a.i);
      case TraceArg::Kind::Float: return Value::real(a.f);
      case TraceArg::Kind::Bool: return Value::boolean(a.b);
      case TraceArg::Kind::Str: return script::make_str(a.s);
      case TraceArg::Kind::Ref: return script::make_str(names.at(a.ref.get()));
      case TraceArg::Kind::List:
      case TraceArg::Kind::Tuple: {
        std::vector<Value> items;
        for (const auto& x : a.list) items.push_back(to_value(x));
        return script::make_list(std::move(items));
      }
      case TraceArg::Kind::IndexMap: return script::make_str(a.lambda_text());
    }
    return Value();
  };
  std::vector<Value> insts;
  for (const auto& inst : trace.insts) {
    auto inputs = std::make_shared<script::Dict>();
    auto attrs = std::make_shared<script::Dict>();
    if (!inst.positional.empty()) {
      std::vector<Value> items;
      for (const auto& p : inst.positional) items.push_back(to_value(p));
      inputs->set(interp, script::make_str("*"), script::make_list(std::move(items)));
    }
    for (const auto& [k, v] : inst.keywords) (has_ref(v) ? inputs : attrs)->set(interp, script::make_str(k), to_value(v));
    std::vector<Value> outputs;
    for (const auto& rv : inst.outputs) {
      char prefix = rv->kind == RVNode::Kind::Block ? 'b' : rv->kind == RVNode::Kind::Loop ? 'l' : 'v';
      names[rv.get()] = prefix + std::to_string(counter++);
      outputs.push_back(script::make_str(names[rv.get()]));
    }
    insts.push_back(script::make_list({script::make_str(inst.kind), Value(inputs), Value(attrs), script::make_list(std::move(outputs))}));
  }
  return script::make_list({script::make_list(std::move(insts)), script::make_list()});
}

// Rebuilds a trace from its JSON form, resolving handle names to fresh handles.
schedule::Trace trace_from_json(Interpreter& interp, const Value& json) {
  auto fail_format = [](const std::string& why) -> void { raise(ExcKind::ValueError, "not a trace in JSON form: " + why); };
  std::vector<Value> top = interp.to_vector(json);
  if (top.size() != 2) fail_format("expected [instructions, decisions]");
  schedule::Trace trace;
  std::unordered_map<std::string, RV> handles;
  // Method names from kind names: "SamplePerfectTile" -> "sample_perfect_tile".
  auto method_of = [](const std::string& kind) {
    std::string out;
    for (char c : kind) {
      if (std::isupper(static_cast<unsigned char>(c)) && !out.empty()) out += '_';
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return out == "r_factor" ? std::string("rfactor") : out;
  };
  std::function<TraceArg(const Value&, bool)> to_arg = [&](const Value& v, bool refs) -> TraceArg {
    if (v.is_none()) return TraceArg::none();
    if (v.is_bool()) return TraceArg::of_bool(v.as_bool());
    if (v.is_int()) return TraceArg::of_int(v.as_int());
    if (v.is_float()) {
      TraceArg a;
      a.kind = TraceArg::Kind::Float;
      a.f = v.as_float();
      return a;
    }
    if (auto* s = v.as<script::Str>()) {
      if (refs) {
        auto it = handles.find(s->value);
        if (it == handles.end()) fail_format("unknown handle " + s->value);
        return TraceArg::of_ref(it->second);
      }
      return TraceArg::of_str(s->value);
    }
    if (v.as<script::List>() || v.as<script::Tuple>()) {
      std::vector<TraceArg> items;
      for (const auto& x : interp.to_vector(v)) items.push_back(to_arg(x, refs));
      return TraceArg::of_list(std::move(items));
    }
    fail_format("unsupported value " + interp.repr(v));
    return TraceArg::none();
  };
  for (const Value& item : interp.to_vector(top[0])) {
    std::vector<Value> parts = interp.to_vector(item);
    if (parts.size() != 4 || !parts[0].as<script::Str>() || !parts[1].as<script::Dict>() || !parts[2].as<script::Dict>()) {
      fail_format("each instruction is [kind, inputs, attrs, outputs]");
    }
    schedule::Instruction inst;
    inst.kind = parts[0].as<script::Str>()->value;
    inst.method = method_of(inst.kind);
    // Keywords in signature order, so the printed trace matches the original.
    Value* method = schedule_type()->lookup(intern(inst.method));
    if (!method || !method->as<script::NativeFunction>()) fail_format("unknown instruction kind " + inst.kind);
    for (const auto& p : method->as<script::NativeFunction>()->signature.params()) {
      if (p.name == "self") continue;
      Value key = script::make_str(p.name);
      if (Value* v = parts[1].as<script::Dict>()->find(interp, key)) inst.keywords.emplace_back(p.name, to_arg(*v, true));
      else if (Value* w = parts[2].as<script::Dict>()->find(interp, key)) inst.keywords.emplace_back(p.name, to_arg(*w, false));
    }
    if (Value* star = parts[1].as<script::Dict>()->find(interp, script::make_str("*"))) {
      for (const auto& x : interp.to_vector(*star)) inst.positional.push_back(to_arg(x, true));
    }
    std::vector<Value> outs = interp.to_vector(parts[3]);
    for (const auto& o : outs) {
      auto* name = o.as<script::Str>();
      if (!name || name->value.empty()) fail_format("outputs are handle names");
      auto rv = std::make_shared<RVNode>();
      rv->kind = name->value[0] == 'b' ? RVNode::Kind::Block : name->value[0] == 'l' ? RVNode::Kind::Loop : RVNode::Kind::Expr;
      handles[name->value] = rv;
      inst.outputs.push_back(rv);
    }
    // Instructions returning lists print as `l1, = ...`.
    static const std::set<std::string> list_kinds = {"GetLoops", "Split", "GetChildBlocks", "GetProducers", "GetConsumers", "SamplePerfectTile"};
    inst.list_output = list_kinds.count(inst.kind) > 0;
    trace.insts.push_back(std::move(inst));
  }
  return trace;
}

TypeObject* TraceValue::type() const {
  static TypeRef t = [] {
    auto type = std::make_shared<TypeObject>("Trace");
    type->set_module("tvm.tir.schedule");
    type->def("show", "self", [](Interpreter& interp, Args& a) {
      interp.write_stdout(a[0].as<TraceValue>()->trace.str() + "\n");
      return Value();
    });
    type->def("apply_to_schedule", "self, sch, remove_postproc=False, decision_provider=None", [](Interpreter& interp, Args& a) {
      if (!a[1].as<ScheduleValue>()) a.type_error(1, "a tvm.tir.Schedule");
      apply_trace(interp, a[0].as<TraceValue>()->trace, a[1]);
      return Value();
    }, "apply_to_schedule(sch): replay the instructions on another schedule.");
    type->def("as_json", "self", [](Interpreter& interp, Args& a) { return trace_to_json(interp, a[0].as<TraceValue>()->trace); },
              "as_json(): [instructions, decisions] with handles by name; Trace.from_json reads it back.");
    type->def("apply_json_to_schedule", "json, sch", [](Interpreter& interp, Args& a) {
      if (!a[1].as<ScheduleValue>()) a.type_error(1, "a tvm.tir.Schedule");
      apply_trace(interp, trace_from_json(interp, a[0]), a[1]);
      return Value();
    });
    type->def("from_json", "json", [](Interpreter& interp, Args& a) {
      return Value(std::make_shared<TraceValue>(trace_from_json(interp, a[0])));
    });
    type->def_property("insts", [](Interpreter&, const Value& v) {
      const schedule::Trace& trace = v.as<TraceValue>()->trace;
      // The printed trace has one line per instruction after its two header lines.
      std::vector<std::string> lines;
      std::string text = trace.str();
      for (size_t start = 0, end; start <= text.size(); start = end + 1) {
        end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        lines.push_back(text.substr(start, end - start));
      }
      std::vector<Value> items;
      for (size_t i = 0; i < trace.insts.size(); ++i) {
        std::string line = i + 2 < lines.size() ? lines[i + 2] : "";
        size_t first = line.find_first_not_of(' ');
        items.push_back(Value(std::make_shared<InstructionValue>(trace.insts[i].kind, first == std::string::npos ? "" : line.substr(first))));
      }
      return script::make_list(std::move(items));
    });
    return type;
  }();
  return t.get();
}

}  // namespace

void install_schedule(script::Namespace& tir_ns) {
  tir_ns.set(intern("Schedule"), Value(schedule_type()));
  tir_ns.set(intern("ScheduleError"), Value(schedule_error_type()));
  tir_ns.set(intern("BlockRV"), Value(rv_type(RVNode::Kind::Block)));
  tir_ns.set(intern("LoopRV"), Value(rv_type(RVNode::Kind::Loop)));
  // tvm.tir.schedule.Trace
  auto sched = std::make_shared<script::Module>("tvm.tir.schedule");
  sched->globals->set(intern("Trace"), Value(std::make_shared<TraceValue>(schedule::Trace{})->type()->shared_from_this()));
  sched->globals->set(intern("Schedule"), Value(schedule_type()));
  sched->globals->set(intern("ScheduleError"), Value(schedule_error_type()));
  sched->globals->set(intern("BlockRV"), Value(rv_type(RVNode::Kind::Block)));
  sched->globals->set(intern("LoopRV"), Value(rv_type(RVNode::Kind::Loop)));
  sched->globals->set(intern("ExprRV"), Value(rv_type(RVNode::Kind::Expr)));
  tir_ns.set(intern("schedule"), Value(sched));
}

// ---- access for the REPL (schedule_session.h)

bool is_schedule(const Value& v) { return v.as<ScheduleValue>() != nullptr; }

std::string schedule_module_text(const Value& sch) { return ir::script(sch.as<ScheduleValue>()->state.mod()); }

const void* schedule_module_identity(const Value& sch) { return sch.as<ScheduleValue>()->state.mod().get(); }

std::string schedule_function_text(const Value& sch, const std::string& func, bool* found) {
  ir::PrimFunc f = sch.as<ScheduleValue>()->state.mod()->find(func);
  *found = f != nullptr;
  return f ? ir::script(f, func) : std::string();
}

std::string schedule_trace_text(const Value& sch) { return sch.as<ScheduleValue>()->trace.str(); }

std::vector<std::string> schedule_block_names(const Value& sch) {
  const ScheduleState& state = sch.as<ScheduleValue>()->state;
  std::vector<std::string> names;
  for (const auto& [func, f] : state.mod()->functions) {
    for (uint64_t b : state.blocks_in(func)) names.push_back(state.block(b)->name);
  }
  return names;
}

Value schedule_snapshot(const Value& sch) { return Value(std::make_shared<ScheduleValue>(*sch.as<ScheduleValue>())); }

void schedule_restore(const Value& sch, const Value& snapshot) { *sch.as<ScheduleValue>() = *snapshot.as<ScheduleValue>(); }

}  // namespace tsch::bindings
