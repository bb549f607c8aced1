// tvm.tir.schedule.Trace, Instruction and InstructionKind in scripts: thin views of
// schedule::Trace and the instruction registry, and the JSON form as lists and dicts.
#include "bindings/tvm/runtime/json_values.h"
#include "bindings/tvm/tir/schedule_trace_args.h"
#include "bindings/tvm/tir/schedule_values.h"
#include "ir/op.h"
#include "script/exceptions.h"
#include "values/ir_values.h"

namespace tsch::bindings {

using schedule::Instruction;
using schedule::TraceArg;
using script::Args;
using script::ExcKind;
using script::raise;
using script::TypeObject;
using script::TypeRef;

namespace {

class TraceValue : public script::Object {
 public:
  explicit TraceValue(schedule::Trace t) : trace(std::move(t)) {}
  TypeObject* type() const override;
  std::string repr_hook(Interpreter&) override { return trace.str(); }
  schedule::Trace trace;
};

// One instruction of a trace (`trace.insts[i]`): the instruction and its line in the trace.
class InstructionValue : public script::Object {
 public:
  InstructionValue(Instruction i, std::string t) : inst(std::move(i)), text(std::move(t)) {}
  TypeObject* type() const override;
  std::string repr_hook(Interpreter&) override { return text.empty() ? schedule::instruction_python(*inst) : text; }
  Instruction inst;
  std::string text;  // "l1, l2 = sch.split(...)"
};

class InstructionKindValue : public script::Object {
 public:
  explicit InstructionKindValue(const schedule::InstructionKind* k) : kind(k) {}
  TypeObject* type() const override;
  std::string repr_hook(Interpreter&) override { return kind->name; }
  const schedule::InstructionKind* kind;
};

// The JSON form as TVM's Trace.as_json gives it to Python: attributes typed as lists of
// FloatImm (sample_categorical's probs) hold FloatImm objects of float32 (TVM's conversion
// of a Python float there), printed `T.float32(1.0)`; other numbers are plain.
Value float_imms(Interpreter& interp, const nlohmann::json& j) {
  if (j.is_number_float()) return wrap(ir::make_float(j.get<double>(), ir::DataType::float32()));
  if (!j.is_array()) return json_to_value(interp, j);
  std::vector<Value> items;
  for (const auto& x : j) items.push_back(float_imms(interp, x));
  return script::make_list(std::move(items));
}

Value trace_json_value(Interpreter& interp, const nlohmann::json& doc) {
  if (!doc.is_array() || doc.empty() || !doc[0].is_array()) return json_to_value(interp, doc);
  std::vector<Value> insts;
  for (const auto& inst : doc[0]) {
    const schedule::InstructionKind* kind = inst.is_array() && inst.size() == 4 && inst[0].is_string()
                                                ? schedule::InstructionKind::find(inst[0].get<std::string>())
                                                : nullptr;
    if (!kind || !inst[2].is_array()) {
      insts.push_back(json_to_value(interp, inst));
      continue;
    }
    std::vector<Value> attrs;
    for (size_t i = 0; i < inst[2].size(); ++i) {
      bool floats = false;
      for (const schedule::ParamSpec& p : kind->params)
        floats |= p.slot == schedule::Slot::Attr && p.slot_index == static_cast<int>(i) &&
                  p.type == schedule::ParamType::FloatList;
      attrs.push_back(floats ? float_imms(interp, inst[2][i]) : json_to_value(interp, inst[2][i]));
    }
    insts.push_back(script::make_list({json_to_value(interp, inst[0]), json_to_value(interp, inst[1]),
                                       script::make_list(std::move(attrs)), json_to_value(interp, inst[3])}));
  }
  std::vector<Value> parts{script::make_list(std::move(insts))};
  for (size_t i = 1; i < doc.size(); ++i) parts.push_back(json_to_value(interp, doc[i]));
  return script::make_list(std::move(parts));
}

schedule::Trace& trace_of(Args& a) { return a[0].as<TraceValue>()->trace; }

schedule::Schedule& schedule_arg(Args& a, size_t i) {
  auto* s = a[i].as<ScheduleValue>();
  if (!s) a.type_error(i, "a tvm.tir.Schedule");
  return s->sch;
}

const Instruction& instruction_of(Args& a, size_t i, const Value& v) {
  auto* inst = v.as<InstructionValue>();
  if (!inst) a.type_error(i, "an Instruction");
  return inst->inst;
}

const Instruction& instruction_arg(Args& a, size_t i) { return instruction_of(a, i, a[i]); }

// Runs a replay: refusals and user errors become the script's exceptions.
template <typename F>
void replay(F&& f) {
  try {
    f();
  } catch (const schedule::RenderedScheduleError& e) {
    throw script::ScriptError(make_schedule_error(e));
  } catch (const UserError& e) {
    raise_user_error(e, "apply_to_schedule", {});
  }
}

}  // namespace

Value make_trace_value(schedule::Trace trace) { return Value(std::make_shared<TraceValue>(std::move(trace))); }

TypeObject* InstructionKindValue::type() const {
  static TypeRef t = [] {
    auto t = std::make_shared<TypeObject>("InstructionKind");
    t->set_module("tvm.tir.schedule");
    t->def_property("name", [](Interpreter&, const Value& v) {
      return script::make_str(v.as<InstructionKindValue>()->kind->name);
    });
    t->def_property("is_pure", [](Interpreter&, const Value& v) {
      return Value::boolean(v.as<InstructionKindValue>()->kind->is_pure);
    });
    t->def("same_as", "self, other", [](Interpreter&, Args& a) {
      auto* other = a[1].as<InstructionKindValue>();
      return Value::boolean(other && other->kind == a[0].as<InstructionKindValue>()->kind);
    });
    t->def("get", "name", [](Interpreter&, Args& a) {
      const schedule::InstructionKind* k = schedule::InstructionKind::find(a.get_str(0));
      if (!k) a.value_error(0, "no instruction kind named " + a.get_str(0));
      return Value(std::make_shared<InstructionKindValue>(k));
    });
    return t;
  }();
  return t.get();
}

TypeObject* InstructionValue::type() const {
  static TypeRef t = [] {
    auto t = std::make_shared<TypeObject>("Instruction");
    t->set_module("tvm.tir.schedule");
    t->constructor = [](Interpreter& interp, TypeObject*, script::CallArgs& call) {
      static const script::Signature sig = script::Signature::parse("kind, inputs, attrs, outputs");
      Args a(interp, "Instruction", sig, std::move(call));
      auto* kind = a[0].as<InstructionKindValue>();
      if (!kind) a.type_error(0, "an InstructionKind");
      auto inst = std::make_shared<schedule::InstructionNode>();
      inst->kind = kind->kind;
      for (const Value& v : interp.to_vector(a[1])) inst->inputs.push_back(value_arg(interp, v));
      for (const Value& v : interp.to_vector(a[2])) inst->attrs.push_back(value_arg(interp, v));
      for (const Value& v : interp.to_vector(a[3])) {
        // A tir.Var: an ExprRV (TVM's ExprRV is one).
        if (auto* e = v.as<ExprValue>(); e && ir::as<ir::VarNode>(e->expr)) {
          inst->outputs.push_back(schedule::expr_rv_of(std::static_pointer_cast<const ir::VarNode>(e->expr)));
          continue;
        }
        auto* rv = v.as<RVValue>();
        if (!rv) {
          raise(ExcKind::TypeError,
                "argument 4, 'outputs' to Instruction: expected a list of BlockRV, LoopRV or ExprRV, got a list "
                "holding " +
                    Interpreter::type_name(v));
        }
        inst->outputs.push_back(rv->rv);
      }
      return Value(std::make_shared<InstructionValue>(inst, ""));
    };
    t->def_property("kind", [](Interpreter&, const Value& v) {
      return Value(std::make_shared<InstructionKindValue>(v.as<InstructionValue>()->inst->kind));
    });
    auto list_of = [](Interpreter& interp, const std::vector<TraceArg>& args) {
      std::vector<Value> items;
      for (const TraceArg& a : args) items.push_back(arg_value(interp, a));
      return script::make_list(std::move(items));
    };
    t->def_property("inputs", [list_of](Interpreter& interp, const Value& v) {
      return list_of(interp, v.as<InstructionValue>()->inst->inputs);
    });
    t->def_property("attrs", [list_of](Interpreter& interp, const Value& v) {
      return list_of(interp, v.as<InstructionValue>()->inst->attrs);
    });
    t->def_property("outputs", [](Interpreter&, const Value& v) {
      std::vector<Value> items;
      for (const auto& rv : v.as<InstructionValue>()->inst->outputs) items.push_back(wrap_rv(rv));
      return script::make_list(std::move(items));
    });
    // The same instruction reached twice (trace.insts[i], a decisions key) is one key.
    t->hashes_by_value = true;
    t->def("__eq__", "self, other", [](Interpreter&, Args& a) {
      auto* other = a[1].as<InstructionValue>();
      return Value::boolean(other && other->inst == a[0].as<InstructionValue>()->inst);
    });
    t->def("__hash__", "self", [](Interpreter&, Args& a) {
      return Value::integer(
          static_cast<int64_t>(reinterpret_cast<uintptr_t>(a[0].as<InstructionValue>()->inst.get()) >> 4));
    });
    t->def("same_as", "self, other", [](Interpreter&, Args& a) {
      auto* other = a[1].as<InstructionValue>();
      return Value::boolean(other && other->inst == a[0].as<InstructionValue>()->inst);
    });
    return t;
  }();
  return t.get();
}

TypeObject* TraceValue::type() const {
  static TypeRef t = [] {
    auto type = std::make_shared<TypeObject>("Trace");
    type->set_module("tvm.tir.schedule");
    type->constructor = [](Interpreter& interp, TypeObject*, script::CallArgs& call) {
      static const script::Signature sig = script::Signature::parse("insts=None, decisions=None");
      Args a(interp, "Trace", sig, std::move(call));
      schedule::Trace trace;
      std::vector<Value> insts = a[0].is_none() ? std::vector<Value>{} : interp.to_vector(a[0]);
      for (const Value& v : insts) trace.append(instruction_of(a, 0, v));
      if (auto* d = a[1].as<script::Dict>()) {
        for (const auto& [k, v] : d->items())
          trace = trace.with_decision(instruction_of(a, 1, k), decision_arg(interp, v), false);
      }
      return make_trace_value(std::move(trace));
    };
    type->def("show", "self, style=None, black_format=False", [](Interpreter& interp, Args& a) {
      interp.write_stdout(trace_of(a).str() + "\n");
      return Value();
    });
    type->def(
        "as_python", "self, remove_postproc=False",
        [](Interpreter&, Args& a) {
          std::vector<Value> lines;
          for (const std::string& line : trace_of(a).as_python(a.get_bool(1))) lines.push_back(script::make_str(line));
          return script::make_list(std::move(lines));
        },
        "as_python(remove_postproc=False) -> list of str: one line of Python per instruction.");
    type->def(
        "as_json", "self, remove_postproc=False",
        [](Interpreter& interp, Args& a) { return trace_json_value(interp, trace_of(a).as_json(a.get_bool(1))); },
        "as_json(remove_postproc=False): TVM's JSON form, [[kind, inputs, attrs, outputs], ...] and [[index, "
        "decision], ...].");
    type->def(
        "apply_to_schedule", "self, sch, remove_postproc=False, decision_provider=None",
        [](Interpreter& interp, Args& a) {
          schedule::Schedule& sch = schedule_arg(a, 1);
          schedule::Trace::DecisionProvider provider;
          if (!a[3].is_none()) {
            Value fn = a[3];
            provider = [&interp, fn](const Instruction& inst, const TraceArg& decision) {
              std::vector<Value> inputs, attrs;
              for (const TraceArg& x : inst->inputs) inputs.push_back(arg_value(interp, x));
              for (const TraceArg& x : inst->attrs) attrs.push_back(arg_value(interp, x));
              Value out = interp.call(
                  fn, {Value(std::make_shared<InstructionValue>(inst, "")), script::make_list(std::move(inputs)),
                       script::make_list(std::move(attrs)), decision_value(interp, decision)});
              return decision_arg(interp, out);
            };
          }
          replay([&] { trace_of(a).apply_to_schedule(sch, a.get_bool(2), provider); });
          return Value();
        },
        "apply_to_schedule(sch, remove_postproc=False, decision_provider=None): replay the instructions on another "
        "schedule.");
    type->def(
        "apply_json_to_schedule", "json, sch",
        [](Interpreter& interp, Args& a) {
          schedule::Schedule& sch = schedule_arg(a, 1);
          nlohmann::json doc = value_to_json(interp, a[0]);
          replay([&] {
            schedule::Trace::apply_json_to_schedule(
                doc, sch, [&interp](const std::string& text) { return parse_index_map(interp, text); });
          });
          return Value();
        },
        "Trace.apply_json_to_schedule(json, sch): replay a trace in TVM's JSON form.");
    type->def("get_decision", "self, inst", [](Interpreter& interp, Args& a) {
      return decision_value(interp, trace_of(a).get_decision(instruction_arg(a, 1)));
    });
    type->def("with_decision", "self, inst, decision, remove_postproc", [](Interpreter& interp, Args& a) {
      return make_trace_value(
          trace_of(a).with_decision(instruction_arg(a, 1), decision_arg(interp, a[2]), a.get_bool(3)));
    });
    type->def(
        "simplified", "self, remove_postproc",
        [](Interpreter&, Args& a) { return make_trace_value(trace_of(a).simplified(a.get_bool(1))); },
        "simplified(remove_postproc) -> Trace: without the queries whose results nothing uses.");
    type->def_property(
        "decisions",
        [](Interpreter& interp, const Value& v) {
          const schedule::Trace& trace = v.as<TraceValue>()->trace;
          std::vector<std::string> lines = trace.as_python();
          auto d = std::make_shared<script::Dict>();
          for (size_t i = 0; i < trace.size(); ++i) {
            TraceArg decision = trace.get_decision(trace.insts()[i]);
            if (!decision.is_none())
              d->set(interp, Value(std::make_shared<InstructionValue>(trace.insts()[i], lines[i])),
                     decision_value(interp, decision));
          }
          return Value(d);
        },
        "decisions: the sampling instructions' decisions, by instruction.");
    type->def(
        "append", "self, inst, decision=None",
        [](Interpreter& interp, Args& a) {
          a[0].as<TraceValue>()->trace.append(instruction_arg(a, 1),
                                              a[2].is_none() ? TraceArg::none() : decision_arg(interp, a[2]));
          return Value();
        },
        "append(inst, decision=None): add an instruction (and its decision) at the end.");
    type->def(
        "pop", "self",
        [](Interpreter&, Args& a) -> Value {
          schedule::Trace& trace = a[0].as<TraceValue>()->trace;
          if (trace.size() == 0) return Value();
          std::string line = trace.as_python().back();
          Instruction last = trace.insts().back();
          trace.truncate(trace.size() - 1);
          return Value(std::make_shared<InstructionValue>(last, line));
        },
        "pop(): remove the last instruction and its decision; returns it (None when empty).");
    type->def_property("insts", [](Interpreter&, const Value& v) {
      const schedule::Trace& trace = v.as<TraceValue>()->trace;
      std::vector<std::string> lines = trace.as_python();
      std::vector<Value> items;
      for (size_t i = 0; i < trace.size(); ++i)
        items.push_back(Value(std::make_shared<InstructionValue>(trace.insts()[i], lines[i])));
      return script::make_list(std::move(items));
    });
    return type;
  }();
  return t.get();
}

void install_trace_types(script::Namespace& ns) {
  ns.set(intern("Trace"), Value(TraceValue(schedule::Trace{}).type()->shared_from_this()));
  ns.set(intern("Instruction"), Value(InstructionValue(nullptr, "").type()->shared_from_this()));
  ns.set(intern("InstructionKind"), Value(InstructionKindValue(nullptr).type()->shared_from_this()));
}

}  // namespace tsch::bindings
