// The T.* functions that open scopes in a prim_func's body: loops (T.serial ... T.grid and
// `range`), T.LetStmt, thread launches, blocks, and the block axes of T.axis. Each returns a
// front-end value (frontend/tir_specs.h) that the parser's `for` / `with` turns into IR.
#include "bindings/tvm/script/tvmscript_tir_frames.h"

#include <fmt/format.h>

#include "arith/simplify.h"
#include "frontend/tir_specs.h"
#include "script/exceptions.h"
#include "script/modules.h"
#include "script/types.h"
#include "values/attr_values.h"
#include "values/ir_type_values.h"
#include "values/ir_values.h"

namespace tsch::bindings {

using frontend::AttrFrameValue;
using frontend::AxisValue;
using frontend::BlockHeaderValue;
using frontend::EnvThreadValue;
using frontend::LaunchThreadValue;
using frontend::LetFrameValue;
using frontend::LoopValue;
using script::Args;
using script::ExcKind;
using script::Namespace;
using script::raise;

namespace {

// ------------------------------------------------------------------ loops and axes

Value make_loop(Interpreter& interp, Args& a, ir::ForKind kind, size_t annotations_index,
                const std::string& thread = {}) {
  auto loop = std::make_shared<LoopValue>();
  LoopValue::Loop l;
  ir::PrimExpr start = to_expr(interp, a[0], "loop start");
  if (a[1].is_none()) {
    // TVM's loop frames simplify the extent (`4 * T.vscale()` is the loop over `T.vscale() * 4`).
    l.min = ir::make_int(0, start->dtype);
    l.extent = guard_ir([&] { return arith::simplify(start); });
  } else {
    ir::PrimExpr stop = to_expr(interp, a[1], "loop stop");
    guard_ir([&] {
      l.min = start;
      l.extent = arith::extent_between(start, stop);
      if (l.min->dtype != l.extent->dtype) l.min = ir::cast(l.extent->dtype, l.min);
      return 0;
    });
  }
  if (!l.extent->dtype.is_integer())
    raise(ExcKind::TypeError, "loop extents must be integers, got " + l.extent->dtype.to_string());
  l.kind = kind;
  l.thread = thread;
  if (annotations_index < a.size() && !a[annotations_index].is_none())
    l.annotations = to_attr_map(interp, a[annotations_index], "annotations");
  // step= (TVM v0.23's ForNode::step), after the annotations; kept as written unless it is 1.
  if (size_t s = annotations_index + 1; s < a.size() && !a[s].is_none()) {
    ir::PrimExpr step = to_expr_as(interp, a[s], l.extent->dtype, "loop step");
    if (!step->dtype.is_integer())
      raise(ExcKind::TypeError, "loop steps must be integers, got " + step->dtype.to_string());
    if (step->dtype != l.extent->dtype) step = guard_ir([&] { return ir::cast(l.extent->dtype, step); });
    int64_t v;
    if (!ir::as_const_int(step, &v) || v != 1) l.step = step;
  }
  loop->loops.push_back(l);
  return Value(loop);
}

Value make_axis(Interpreter& interp, Args& a, ir::IterType type) {
  auto axis = std::make_shared<AxisValue>();
  axis->iter_type = type;
  if (auto* t = a[0].as<script::Tuple>(); t && t->items.size() == 2) {
    ir::PrimExpr lo = to_expr(interp, t->items[0], "axis domain"), hi = to_expr(interp, t->items[1], "axis domain");
    axis->dom = guard_ir([&] { return ir::Range{lo, arith::extent_between(lo, hi)}; });
  } else {
    ir::PrimExpr ext = to_expr(interp, a[0], "axis domain");
    axis->dom = ir::Range{ir::make_int(0, ext->dtype), ext};
  }
  if (!a[1].is_none()) {
    axis->binding = to_expr(interp, a[1], "axis binding");
    if (axis->binding->dtype != axis->dom.extent->dtype) {
      if (is_expr(a[0]) || axis->binding->kind == ir::ExprKind::IntImm) {
        axis->binding = ir::cast(axis->dom.extent->dtype, axis->binding);
      } else {
        // A literal domain takes the binding's type (e.g. int64 loops).
        axis->dom =
            ir::Range{ir::cast(axis->binding->dtype, axis->dom.min), ir::cast(axis->binding->dtype, axis->dom.extent)};
      }
    }
  }
  return Value(axis);
}

void build_axis_module(script::Module& m) {
  Namespace& ns = *m.globals;
  def_function(ns, "spatial", "dom, binding=None, dtype=\"int32\"",
               [](Interpreter& interp, Args& a) { return make_axis(interp, a, ir::IterType::DataPar); });
  def_function(ns, "reduce", "dom, binding=None, dtype=\"int32\"",
               [](Interpreter& interp, Args& a) { return make_axis(interp, a, ir::IterType::CommReduce); });
  def_function(ns, "scan", "dom, binding=None, dtype=\"int32\"",
               [](Interpreter& interp, Args& a) { return make_axis(interp, a, ir::IterType::Ordered); });
  def_function(ns, "opaque", "dom, binding=None, dtype=\"int32\"",
               [](Interpreter& interp, Args& a) { return make_axis(interp, a, ir::IterType::Opaque); });
  ns.set(intern("S"), *ns.find(intern("spatial")));
  ns.set(intern("R"), *ns.find(intern("reduce")));
  def_function(ns, "remap", "kinds, bindings, dtype=\"int32\"", [](Interpreter& interp, Args& a) {
    const std::string& kinds = a.get_str(0);
    std::vector<Value> values = interp.to_vector(a[1]);
    if (kinds.size() != values.size()) {
      a.value_error(0, fmt::format("{} kinds for {} loop variables", kinds.size(), values.size()));
    }
    std::vector<Value> axes;
    for (size_t i = 0; i < kinds.size(); ++i) {
      ir::PrimExpr binding = to_expr(interp, values[i], "T.axis.remap binding");
      auto* var = ir::as<ir::VarNode>(binding);
      if (!var)
        raise(ExcKind::TypeError, "T.axis.remap binds loop variables; use T.axis.spatial/reduce for expressions");
      auto axis = std::make_shared<AxisValue>();
      char k = kinds[i];
      if (k != 'S' && k != 'R') a.value_error(0, fmt::format("unknown iterator kind '{}' (expected S or R)", k));
      axis->iter_type = k == 'S' ? ir::IterType::DataPar : ir::IterType::CommReduce;
      axis->binding = binding;
      // The domain is the loop's: found from the enclosing loop of this variable.
      axis->dom = ir::Range{ir::make_int(0, binding->dtype), nullptr};
      axes.push_back(Value(axis));
    }
    return script::make_list(std::move(axes));
  });
}

}  // namespace

void def_frame_functions(Namespace& ns) {
  // `range` in a prim_func (TVM's parser's range_sugar): T.serial with a positional step, which
  // must be a positive literal (a For never runs backwards).
  def_function(
      ns, "_range_sugar", "start, stop=None, step=None, *, annotations=None", [](Interpreter& interp, Args& a) {
        if (!a[2].is_none()) {
          int64_t step = 0;
          bool literal = a[2].is_integral() ? (step = a[2].as_int(), true)
                                            : is_expr(a[2]) && ir::as_const_int(to_expr(interp, a[2], "step"), &step);
          if (!literal) raise(ExcKind::ValueError, "Only support literal step in range(), get " + interp.str(a[2]));
          if (step <= 0)
            raise(ExcKind::ValueError, "Only support positive step in range(), get " + std::to_string(step));
        }
        std::swap(a[2], a[3]);  // make_loop reads annotations, then the step
        return make_loop(interp, a, ir::ForKind::Serial, 2);
      });
  def_function(ns, "serial", "start, stop=None, *, annotations=None, step=None",
               [](Interpreter& interp, Args& a) { return make_loop(interp, a, ir::ForKind::Serial, 2); });
  def_function(ns, "parallel", "start, stop=None, *, annotations=None, step=None",
               [](Interpreter& interp, Args& a) { return make_loop(interp, a, ir::ForKind::Parallel, 2); });
  def_function(ns, "vectorized", "start, stop=None, *, annotations=None, step=None",
               [](Interpreter& interp, Args& a) { return make_loop(interp, a, ir::ForKind::Vectorized, 2); });
  def_function(ns, "unroll", "start, stop=None, *, annotations=None, step=None",
               [](Interpreter& interp, Args& a) { return make_loop(interp, a, ir::ForKind::Unrolled, 2); });
  def_function(ns, "thread_binding", "start, stop=None, thread=None, *, annotations=None, step=None",
               [](Interpreter& interp, Args& a) {
                 // T.thread_binding(n, "threadIdx.x") passes the thread positionally.
                 if (a[1].as<script::Str>() && a[2].is_none()) std::swap(a[1], a[2]);
                 if (!a[2].as<script::Str>()) a.type_error(2, "a thread name such as \"threadIdx.x\"");
                 return make_loop(interp, a, ir::ForKind::ThreadBinding, 3, a.get_str(2));
               });
  // TVM's ir_builder T.LetStmt: a frame whose body sees `var` (or the `as` name) bound to value.
  def_function(ns, "LetStmt", "value, type_annotation=None, *, var=None", [](Interpreter& interp, Args& a) {
    auto frame = std::make_shared<LetFrameValue>();
    frame->value = to_expr(interp, a[0], "T.LetStmt value");
    if (const ir::VarNode* proto = pointer_var_annotation(a[1])) {
      // A pointer type (`T.handle("float32", "shared")`): the value must be a handle.
      if (!frame->value->dtype.is_handle())
        raise(ExcKind::TypeError,
              "T.LetStmt: a pointer variable's value must be a handle, got " + frame->value->dtype.to_string());
      frame->pointer = proto->type_annotation;
    } else if (!a[1].is_none()) {
      ir::DataType t = to_dtype(interp, a[1], "T.LetStmt type_annotation");
      if (t != frame->value->dtype) frame->value = guard_ir([&] { return ir::cast(t, frame->value); });
    }
    if (!a[2].is_none()) {
      ir::PrimExpr v = to_expr(interp, a[2], "T.LetStmt var");
      if (!ir::as<ir::VarNode>(v)) a.type_error(2, "a tvm.tir.Var");
      frame->var = std::static_pointer_cast<const ir::VarNode>(v);
      if (frame->var->dtype != frame->value->dtype)
        raise(ExcKind::TypeError, "T.LetStmt: the variable " + frame->var->name + " is " +
                                      frame->var->dtype.to_string() + ", its value " + frame->value->dtype.to_string());
    }
    return Value(frame);
  });
  // TVM's T.attr(node, attr_key, value): an AttrStmt over the rest of the body or the `with`'s.
  def_function(ns, "attr", "node, attr_key, value", [](Interpreter& interp, Args& a) {
    auto frame = std::make_shared<AttrFrameValue>();
    frame->node = attr_stmt_operand(interp, a[0], "T.attr node");
    frame->attr_key = a.get_str(1);
    frame->value = attr_stmt_operand(interp, a[2], "T.attr value");
    if (frame->attr_key == "thread_extent" || frame->attr_key == "virtual_thread") {
      raise(ExcKind::NotImplementedError,
            "not supported yet: T.attr(..., \"" + frame->attr_key +
                "\", ...) (tsch launches threads with T.launch_thread or T.thread_binding)");
    }
    return Value(frame);
  });
  // Thread launches (TVM's thread_extent attribute), parsed as ThreadBinding loops.
  def_function(ns, "env_thread", "thread_tag", [](Interpreter&, Args& a) {
    auto env = std::make_shared<EnvThreadValue>();
    env->thread = a.get_str(0);
    return Value(env);
  });
  def_function(ns, "launch_thread", "thread, extent", [](Interpreter& interp, Args& a) {
    auto launch = std::make_shared<LaunchThreadValue>();
    if (auto* env = a[0].as<EnvThreadValue>()) {
      launch->thread = env->thread;
      launch->env_name = env->name;
    } else if (a[0].as<script::Str>()) {
      launch->thread = a.get_str(0);
    } else {
      a.type_error(0, "a thread name such as \"blockIdx.x\" or a T.env_thread");
    }
    launch->extent = to_expr(interp, a[1], "T.launch_thread extent");
    if (!launch->extent->dtype.is_integer()) a.type_error(1, "an integer extent");
    return Value(launch);
  });
  def_function(ns, "grid", "*extents", [](Interpreter& interp, Args& a) {
    auto loop = std::make_shared<LoopValue>();
    for (const auto& e : a.varargs()) {
      LoopValue::Loop l;
      l.extent = to_expr(interp, e, "T.grid extent");
      l.min = ir::make_int(0, l.extent->dtype);
      loop->loops.push_back(l);
    }
    if (loop->loops.empty()) raise(ExcKind::TypeError, "T.grid needs at least one extent");
    return Value(loop);
  });
  // Blocks.
  auto block = [](Interpreter&, Args& a) {
    auto h = std::make_shared<BlockHeaderValue>();
    h->name = a.get_str(0);
    h->no_realize = a.get_bool(1);
    return Value(h);
  };
  def_function(ns, "block", "name=\"\", no_realize=False", block);
  def_function(ns, "sblock", "name=\"\", no_realize=False", block);
  def_function(ns, "init", "", [](Interpreter&, Args&) {
    auto h = std::make_shared<BlockHeaderValue>();
    h->is_init = true;
    return Value(h);
  });
  auto axis = std::make_shared<script::Module>("tvm.script.tir.axis");
  build_axis_module(*axis);
  ns.set(intern("axis"), Value(axis));
}

}  // namespace tsch::bindings
