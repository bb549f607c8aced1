// The classic stage schedule in scripts: te.create_schedule, `s[C]` stages with TVM's legacy
// methods (split, tile, fuse, reorder, vectorize, parallel, unroll, bind, pragma, storage_align,
// compute_at, compute_inline, compute_root), s.cache_read / cache_write / rfactor,
// te.thread_axis, and the module tvm.lower / tvm.build make of a schedule. Axes are their
// variables, as in expressions.
#include <fmt/format.h>

#include "bindings/tvm/te/te_values.h"
#include "bindings/tvm/tir/schedule_values.h"
#include "ir/op.h"
#include "ir/printer.h"
#include "schedule/schedule.h"
#include "script/exceptions.h"
#include "te/schedule.h"
#include "values/ir_values.h"

namespace tsch::bindings {

using script::Args;
using script::ExcKind;
using script::Namespace;
using script::raise;
using script::TypeObject;
using script::TypeRef;

namespace {

class TeScheduleValue : public script::Object {
 public:
  explicit TeScheduleValue(std::shared_ptr<te::Schedule> s) : sched(std::move(s)) {}
  TypeObject* type() const override;
  std::shared_ptr<te::Schedule> sched;
};

class StageValue : public script::Object {
 public:
  StageValue(std::shared_ptr<te::Schedule> s, int id) : sched(std::move(s)), id(id) {}
  TypeObject* type() const override;
  std::string repr_hook(Interpreter&) override { return "stage(" + sched->stage(id).op->name + ")"; }
  std::shared_ptr<te::Schedule> sched;
  int id;
};

// Runs a stage call: the C++ core's UserError and a refusal of the tir primitives it
// replays become the script's exceptions (a refusal is tvm.tir.ScheduleError).
template <typename F>
auto guard_stage(F&& f) -> decltype(f()) {
  try {
    return guard_core(std::forward<F>(f));
  } catch (const schedule::RenderedScheduleError& e) {
    throw script::ScriptError(make_schedule_error(e));
  }
}

ir::Var iter_var_arg(Interpreter& interp, const Value& v, const std::string& what) {
  if (!is_expr(v))
    raise(ExcKind::TypeError,
          fmt::format("{}: expected an axis (an IterVar such as C.op.axis[0]), got {}", what, interp.repr(v)));
  ir::PrimExpr e = to_expr(interp, v, what);
  auto* var = ir::as<ir::VarNode>(e);
  if (!var)
    raise(ExcKind::TypeError,
          fmt::format("{}: expected an axis (an IterVar such as C.op.axis[0]), got {}", what, interp.repr(v)));
  return std::static_pointer_cast<const ir::VarNode>(e);
}

Value wrap_var(const ir::Var& v) { return wrap(ir::PrimExpr(v)); }

int64_t int_arg(Interpreter& interp, const Value& v, const std::string& what) {
  if (v.is_int()) return v.as_int();
  if (is_expr(v)) {
    if (auto* imm = ir::as<ir::IntImmNode>(to_expr(interp, v, what))) return imm->value;
    raise(ExcKind::NotImplementedError, fmt::format("not supported yet: a symbolic {} ({})", what, interp.repr(v)));
  }
  raise(ExcKind::TypeError, fmt::format("{} must be an integer, got {}", what, interp.repr(v)));
}

int stage_id_of(const te::Schedule& s, const Value& v, Interpreter& interp) {
  if (auto* st = v.as<StageValue>()) return st->id;
  te::Operation op = operation_arg(v);
  if (!op) raise(ExcKind::TypeError, "expected a tensor, an operation or a stage, got " + interp.repr(v));
  int id = s.stage_of(op.get());
  if (id < 0) raise(ExcKind::ValueError, "Cannot find the operation " + op->name + " in schedule");
  return id;
}

StageValue& self_stage(Args& a) { return *a[0].as<StageValue>(); }

void annotation_method(TypeObject& type, const char* name, te::LoopAnnotation::Kind kind) {
  type.def(name, "self, var", [kind, name](Interpreter& interp, Args& a) {
    StageValue& st = self_stage(a);
    ir::Var v = iter_var_arg(interp, a[1], name);
    guard_stage([&] { st.sched->annotate(st.id, te::LoopAnnotation{kind, v, "", nullptr, nullptr}); });
    return Value();
  });
}

void not_supported(TypeObject& type, const char* name, const char* signature, const char* why) {
  type.def(name, signature, [name, why](Interpreter&, Args&) -> Value {
    raise(ExcKind::NotImplementedError, fmt::format("not supported yet: {} in the te stage schedule ({})", name, why));
  });
}

TypeObject* StageValue::type() const {
  static TypeRef t = [] {
    auto type = std::make_shared<TypeObject>("Stage");
    type->set_module("tvm.te");
    type->def_property("op", [](Interpreter&, const Value& v) {
      auto* st = v.as<StageValue>();
      return Value(std::make_shared<OperationValue>(st->sched->stage(st->id).op));
    });
    type->def_property("leaf_iter_vars", [](Interpreter&, const Value& v) {
      auto* st = v.as<StageValue>();
      std::vector<Value> out;
      for (const auto& x : st->sched->stage(st->id).leaf) out.push_back(wrap_var(x));
      return script::make_list(std::move(out));
    });
    type->def("split", "self, parent, factor=None, nparts=None, disable_predication=False",
              [](Interpreter& interp, Args& a) {
                StageValue& st = self_stage(a);
                ir::Var parent = iter_var_arg(interp, a[1], "split");
                if (!a[2].is_none() && !a[3].is_none())
                  raise(ExcKind::ValueError, "Do not need to provide both outer and nparts");
                if (a[2].is_none() && a[3].is_none())
                  raise(ExcKind::ValueError, "Either nparts or factor need to be provided");
                if (interp.truthy(a[4]))
                  raise(ExcKind::NotImplementedError, "not supported yet: split with disable_predication=True");
                std::optional<int64_t> factor, nparts;
                if (!a[2].is_none()) factor = int_arg(interp, a[2], "split factor");
                if (!a[3].is_none()) nparts = int_arg(interp, a[3], "split nparts");
                auto [outer, inner] = guard_stage([&] { return st.sched->split(st.id, parent, factor, nparts); });
                return script::make_tuple({wrap_var(outer), wrap_var(inner)});
              });
    type->def("tile", "self, x_parent, y_parent, x_factor, y_factor", [](Interpreter& interp, Args& a) {
      StageValue& st = self_stage(a);
      ir::Var x = iter_var_arg(interp, a[1], "tile"), y = iter_var_arg(interp, a[2], "tile");
      int64_t xf = int_arg(interp, a[3], "tile x_factor"), yf = int_arg(interp, a[4], "tile y_factor");
      std::vector<ir::Var> vars = guard_stage([&] { return st.sched->tile(st.id, x, y, xf, yf); });
      std::vector<Value> out;
      for (const auto& v : vars) out.push_back(wrap_var(v));
      return script::make_tuple(std::move(out));
    });
    type->def("fuse", "self, *args", [](Interpreter& interp, Args& a) {
      StageValue& st = self_stage(a);
      std::vector<ir::Var> vars;
      std::vector<Value> items = a.varargs();
      // TVM's fuse also takes one list of axes.
      if (items.size() == 1 && (items[0].as<script::List>() || items[0].as<script::Tuple>()))
        items = interp.to_vector(items[0]);
      for (const auto& v : items) vars.push_back(iter_var_arg(interp, v, "fuse"));
      return wrap_var(guard_stage([&] { return st.sched->fuse(st.id, vars); }));
    });
    type->def("reorder", "self, *args", [](Interpreter& interp, Args& a) {
      StageValue& st = self_stage(a);
      std::vector<ir::Var> vars;
      for (const auto& v : a.varargs()) vars.push_back(iter_var_arg(interp, v, "reorder"));
      guard_stage([&] { st.sched->reorder(st.id, vars); });
      return Value();
    });
    annotation_method(*type, "vectorize", te::LoopAnnotation::Kind::Vectorize);
    annotation_method(*type, "parallel", te::LoopAnnotation::Kind::Parallel);
    annotation_method(*type, "unroll", te::LoopAnnotation::Kind::Unroll);
    type->def("bind", "self, ivar, thread_ivar", [](Interpreter& interp, Args& a) {
      StageValue& st = self_stage(a);
      ir::Var v = iter_var_arg(interp, a[1], "bind");
      auto* thread = a[2].as<ThreadAxisValue>();
      if (!thread)
        raise(ExcKind::TypeError,
              "bind: the second argument is a thread axis (te.thread_axis(\"threadIdx.x\")), got " + interp.repr(a[2]));
      guard_stage([&] {
        st.sched->annotate(st.id, te::LoopAnnotation{te::LoopAnnotation::Kind::Bind, v, thread->axis.tag,
                                                     thread->axis.extent, thread->axis.var});
      });
      return Value();
    });
    type->def("pragma", "self, var, pragma_type, pragma_value=None", [](Interpreter& interp, Args& a) {
      StageValue& st = self_stage(a);
      ir::Var v = iter_var_arg(interp, a[1], "pragma");
      ir::PrimExpr value;
      if (!a[3].is_none()) {
        value = to_expr(interp, a[3], "pragma_value");
        if (!ir::as<ir::IntImmNode>(value))
          raise(ExcKind::NotImplementedError, "not supported yet: a pragma value that is not an integer");
      }
      guard_stage([&] {
        st.sched->annotate(st.id,
                           te::LoopAnnotation{te::LoopAnnotation::Kind::Pragma, v, a.get_str(2), value, nullptr});
      });
      return Value();
    });
    type->def("compute_at", "self, parent, scope", [](Interpreter& interp, Args& a) {
      StageValue& st = self_stage(a);
      auto* parent = a[1].as<StageValue>();
      if (!parent)
        raise(ExcKind::TypeError, "compute_at: the first argument is a stage (s[C]), got " + interp.repr(a[1]));
      ir::Var v = iter_var_arg(interp, a[2], "compute_at");
      guard_stage([&] { st.sched->compute_at(st.id, parent->id, v); });
      return Value();
    });
    type->def("compute_inline", "self", [](Interpreter&, Args& a) {
      StageValue& st = self_stage(a);
      guard_stage([&] { st.sched->compute_inline(st.id); });
      return Value();
    });
    type->def("compute_root", "self", [](Interpreter&, Args& a) {
      StageValue& st = self_stage(a);
      guard_stage([&] { st.sched->compute_root(st.id); });
      return Value();
    });
    type->def("storage_align", "self, axis, factor, offset", [](Interpreter& interp, Args& a) {
      StageValue& st = self_stage(a);
      ir::Var v = iter_var_arg(interp, a[1], "storage_align");
      int64_t factor = int_arg(interp, a[2], "storage_align factor"),
              offset = int_arg(interp, a[3], "storage_align offset");
      guard_stage([&] { st.sched->storage_align(st.id, v, factor, offset); });
      return Value();
    });
    type->def("set_store_predicate", "self, predicate", [](Interpreter& interp, Args& a) {
      StageValue& st = self_stage(a);
      ir::PrimExpr predicate = to_expr(interp, a[1], "set_store_predicate predicate");
      guard_stage([&] { st.sched->set_store_predicate(st.id, predicate); });
      return Value();
    });
    not_supported(*type, "set_scope", "self, scope", "use s.cache_read / s.cache_write");
    not_supported(*type, "double_buffer", "self", "use tvm.tir.Schedule on te.create_prim_func's output");
    not_supported(*type, "tensorize", "self, var, tensor_intrin", "tensor intrinsics come with the TVM fidelity issue");
    not_supported(*type, "env_threads", "self, threads", "scan operations are not there");
    not_supported(*type, "rolling_buffer", "self", "use tvm.tir.Schedule.rolling_buffer");
    return type;
  }();
  return t.get();
}

TypeObject* TeScheduleValue::type() const {
  static TypeRef t = [] {
    auto type = std::make_shared<TypeObject>("Schedule");
    type->set_module("tvm.te");
    type->def("__getitem__", "self, k", [](Interpreter& interp, Args& a) {
      auto& s = a[0].as<TeScheduleValue>()->sched;
      return Value(std::make_shared<StageValue>(s, stage_id_of(*s, a[1], interp)));
    });
    type->def_property("outputs", [](Interpreter&, const Value& v) {
      std::vector<Value> out;
      for (const auto& op : v.as<TeScheduleValue>()->sched->outputs())
        out.push_back(Value(std::make_shared<OperationValue>(op)));
      return script::make_list(std::move(out));
    });
    type->def_property("stages", [](Interpreter&, const Value& v) {
      auto& s = v.as<TeScheduleValue>()->sched;
      std::vector<Value> out;
      for (const auto& st : s->stages()) out.push_back(Value(std::make_shared<StageValue>(s, st.id)));
      return script::make_list(std::move(out));
    });
    type->def("cache_read", "self, tensor, scope, readers", [](Interpreter& interp, Args& a) {
      auto& s = a[0].as<TeScheduleValue>()->sched;
      te::Operation tensor = operation_arg(a[1]);
      if (!tensor) raise(ExcKind::TypeError, "cache_read: expected a tensor, got " + interp.repr(a[1]));
      std::vector<Value> items =
          a[3].as<script::List>() || a[3].as<script::Tuple>() ? interp.to_vector(a[3]) : std::vector<Value>{a[3]};
      std::vector<int> readers;
      for (const auto& r : items) readers.push_back(stage_id_of(*s, r, interp));
      int id = guard_stage([&] { return s->cache_read(tensor, a.get_str(2), readers); });
      return Value(std::make_shared<TensorValue>(s->stage(id).op));
    });
    type->def("cache_write", "self, tensor, scope", [](Interpreter& interp, Args& a) {
      auto& s = a[0].as<TeScheduleValue>()->sched;
      // A compute of several outputs caches all of them at once (TVM: a list of all its
      // outputs in, a list of the cached tensors out).
      bool several = a[1].as<script::List>() || a[1].as<script::Tuple>();
      std::vector<Value> tensors = several ? interp.to_vector(a[1]) : std::vector<Value>{a[1]};
      if (tensors.empty()) a.value_error(1, "a tensor or a list of the outputs of one compute");
      te::Operation op = operation_arg(tensors[0]);
      std::vector<bool> seen(op ? op->outputs.size() : 0, false);
      for (const auto& t : tensors) {
        auto* tv = t.as<TensorValue>();
        if (!tv || tv->op != op || seen[tv->value_index])
          a.value_error(1, "a tensor or a list of the outputs of one compute");
        seen[tv->value_index] = true;
      }
      if (tensors.size() != op->outputs.size()) {
        raise(ExcKind::ValueError,
              fmt::format("cache_write: {} has {} outputs, and they are cached together: give all of them, "
                          "s.cache_write([...], scope)",
                          op->name, op->outputs.size()));
      }
      int stage = stage_id_of(*s, tensors[0], interp);
      int id = guard_stage([&] { return s->cache_write(stage, a.get_str(2)); });
      const te::Operation& cache = s->stage(id).op;
      if (!several) return Value(std::make_shared<TensorValue>(cache));
      std::vector<Value> out;
      for (size_t i = 0; i < cache->outputs.size(); ++i) out.push_back(Value(std::make_shared<TensorValue>(cache, i)));
      return script::make_list(std::move(out));
    });
    // tsch's stages need no rebasing: their loops start at 0 already.
    type->def("normalize", "self", [](Interpreter&, Args& a) { return a[0]; });
    type->def("rfactor", "self, tensor, axis, factor_axis=0", [](Interpreter& interp, Args& a) {
      auto& s = a[0].as<TeScheduleValue>()->sched;
      int stage = stage_id_of(*s, a[1], interp);
      ir::Var axis = iter_var_arg(interp, a[2], "rfactor");
      int factor_axis = static_cast<int>(a.get_int(3));
      int id = guard_stage([&] { return s->rfactor(stage, axis, factor_axis); });
      // TVM returns the factored tensor, or a list of them for a tuple reduction.
      const te::Operation& rf = s->stage(id).op;
      if (rf->outputs.size() == 1) return Value(std::make_shared<TensorValue>(rf));
      std::vector<Value> out;
      for (size_t i = 0; i < rf->outputs.size(); ++i) out.push_back(Value(std::make_shared<TensorValue>(rf, i)));
      return script::make_list(std::move(out));
    });
    type->def("create_group", "self, outputs, inputs, include_inputs=False", [](Interpreter&, Args&) -> Value {
      raise(ExcKind::NotImplementedError, "not supported yet: create_group in the te stage schedule");
    });
    return type;
  }();
  return t.get();
}

}  // namespace

void install_te_schedule(Interpreter&, Namespace& ns) {
  script::def_function(
      ns, "create_schedule", "ops",
      [](Interpreter& interp, Args& a) {
        std::vector<Value> items =
            a[0].as<script::List>() || a[0].as<script::Tuple>() ? interp.to_vector(a[0]) : std::vector<Value>{a[0]};
        std::vector<te::Operation> ops;
        for (const auto& v : items) {
          te::Operation op = operation_arg(v);
          if (!op) raise(ExcKind::TypeError, "te.create_schedule: expected operations (C.op), got " + interp.repr(v));
          ops.push_back(op);
        }
        if (ops.empty()) raise(ExcKind::ValueError, "te.create_schedule: no operations given");
        return Value(
            std::make_shared<TeScheduleValue>(guard_stage([&] { return std::make_shared<te::Schedule>(ops); })));
      },
      "te.create_schedule(C.op): the stage schedule of the computation of C (s[C].split, ..., then tvm.lower / "
      "tvm.build).");
  def_thread_axis(ns);
}

std::optional<ir::IRModule> te_schedule_module(Interpreter& interp, const Value& inp, const Value& args,
                                               const std::string& name) {
  auto* s = inp.as<TeScheduleValue>();
  if (!s) return std::nullopt;
  if (args.is_none() || !(args.as<script::List>() || args.as<script::Tuple>())) {
    raise(
        ExcKind::TypeError,
        "lowering a te schedule needs its argument tensors: tvm.lower(s, [A, B, C]) / tvm.build(s, [A, B, C], target)");
  }
  std::vector<te::FuncArg> fargs = te_func_args(interp, args, "tvm.lower");
  ir::PrimFunc f = guard_stage([&] { return s->sched->to_prim_func(fargs, name); });
  return ir::module_of(name, f);
}

}  // namespace tsch::bindings
