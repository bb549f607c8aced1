// tvm.tir.schedule.analysis (installed by schedule_testing.cc): get_tensorize_loop_mapping with
// its TensorizeInfo, and suggest_index_map.
#include <fmt/format.h>

#include "bindings/tvm/tir/index_map_values.h"
#include "bindings/tvm/tir/schedule_values.h"
#include "ir/printer.h"
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

class TensorizeInfoValue : public script::Object {
 public:
  script::TypeObject* type() const override;
  std::vector<std::pair<Value, Value>> loop_map;
  std::vector<Value> desc_loops;
  std::vector<int64_t> paddings;
};

TypeRef tensorize_info_type() {
  static TypeRef t = [] {
    auto t = std::make_shared<TypeObject>("TensorizeInfo");
    t->set_module("tvm.tir.schedule.analysis");
    t->def_property("loop_map", [](Interpreter& interp, const Value& v) -> Value {
      auto d = std::make_shared<script::Dict>();
      for (const auto& [k, x] : v.as<TensorizeInfoValue>()->loop_map) d->set(interp, k, x);
      return Value(d);
    });
    t->def_property("desc_loop_indexer", [](Interpreter& interp, const Value& v) -> Value {
      auto d = std::make_shared<script::Dict>();
      const auto& loops = v.as<TensorizeInfoValue>()->desc_loops;
      for (size_t i = 0; i < loops.size(); ++i) d->set(interp, loops[i], Value::integer(static_cast<int64_t>(i)));
      return Value(d);
    });
    t->def_property("block_iter_paddings", [](Interpreter&, const Value& v) -> Value {
      const auto& p = v.as<TensorizeInfoValue>()->paddings;
      if (p.empty()) return Value();
      std::vector<Value> items;
      for (int64_t x : p) items.push_back(Value::integer(x));
      return script::make_list(std::move(items));
    });
    return t;
  }();
  return t;
}

script::TypeObject* TensorizeInfoValue::type() const { return tensorize_info_type().get(); }

}  // namespace

// tvm.tir.schedule.analysis.get_tensorize_loop_mapping(sch, block, desc_func, allow_padding=False).
void install_schedule_analysis(script::Namespace& ns) {
  ns.set(intern("TensorizeInfo"), Value(tensorize_info_type()));
  script::def_function(
      ns, "get_tensorize_loop_mapping", "sch, block, desc_func, allow_padding=False",
      [](Interpreter& interp, Args& a) -> Value {
        auto* sch = a[0].as<ScheduleValue>();
        if (!sch) a.type_error(0, "a tvm.tir.Schedule");
        auto* rv = a[1].as<RVValue>();
        if (!rv || rv->rv->kind != RVNode::Kind::Block) a.type_error(1, "a BlockRV");
        auto* desc = a[2].as<PrimFuncValue>();
        if (!desc) a.type_error(2, "a T.prim_func (a tensor intrinsic's description)");
        schedule::BlockSid block = sch->sch.block_sid(schedule::TraceArg::of_ref(rv->rv));
        auto mapping = schedule::get_tensorize_loop_mapping(sch->sch.state(), block, desc->func, interp.truthy(a[3]));
        if (!mapping) return Value();
        auto info = std::make_shared<TensorizeInfoValue>();
        auto wrap_desc_loop = [&](const ir::ForNode* f) { return wrap(ir::Stmt(desc->func->body, f)); };
        for (const auto& [loop, desc_loop] : mapping->loop_map) {
          info->loop_map.emplace_back(Value(std::make_shared<StmtSRefValue>(a[0].as_ref<ScheduleValue>(), loop)),
                                      wrap_desc_loop(desc_loop));
        }
        for (const ir::ForNode* f : mapping->desc_loops) info->desc_loops.push_back(wrap_desc_loop(f));
        info->paddings = mapping->block_iter_paddings;
        return Value(info);
      },
      "get_tensorize_loop_mapping(sch, block, desc_func, allow_padding=False) -> TensorizeInfo or None: the block "
      "loops a "
      "tensor intrinsic's description loops map to.");
  script::def_function(
      ns, "suggest_index_map", "buffer, indices, loops, predicate",
      [](Interpreter& interp, Args& a) -> Value {
        auto* buffer = a[0].as<BufferValue>();
        if (!buffer) a.type_error(0, "a tvm.tir.Buffer");
        std::vector<int64_t> shape;
        for (const auto& e : buffer->buffer->shape) {
          int64_t v;
          if (!ir::as_const_int(e, &v))
            script::raise(script::ExcKind::NotImplementedError,
                          "not supported yet: suggest_index_map of a symbolic shape");
          shape.push_back(v);
        }
        std::vector<ir::PrimExpr> indices;
        for (const Value& v : interp.to_vector(a[1]))
          indices.push_back(to_expr(interp, v, "suggest_index_map indices"));
        std::vector<std::pair<ir::Var, int64_t>> loops;
        for (const Value& v : interp.to_vector(a[2])) {
          auto* sv = v.as<StmtValue>();
          auto* f = sv ? ir::as<ir::ForNode>(sv->stmt) : nullptr;
          if (!f) script::raise(script::ExcKind::TypeError, "suggest_index_map: loops must be tvm.tir.For");
          int64_t extent;
          if (!ir::is_zero(f->min) || !ir::as_const_int(f->extent, &extent))
            script::raise(script::ExcKind::NotImplementedError,
                          "not supported yet: suggest_index_map over a loop not from 0 to a constant");
          loops.emplace_back(f->loop_var, extent);
        }
        ir::PrimExpr predicate = to_expr(interp, a[3], "suggest_index_map predicate");
        if (!ir::is_one(predicate))
          script::raise(script::ExcKind::NotImplementedError,
                        "not supported yet: suggest_index_map under a predicate other than True");
        auto suggested = schedule::suggest_index_map(shape, indices, loops);
        if (!suggested) return Value();
        auto inverse = std::make_shared<IndexMapValue>();
        inverse->params = suggested->inverse_params;
        inverse->outputs = suggested->inverse_outputs;
        auto map = std::make_shared<IndexMapValue>();
        map->params = suggested->params;
        map->outputs = suggested->outputs;
        map->inverse = inverse;
        return Value(map);
      },
      "suggest_index_map(buffer, indices, loops, predicate) -> IndexMap or None: the layout of buffer that makes the "
      "access "
      "at indices inside loops contiguous in loop order (TVM's SuggestIndexMap).");
}

}  // namespace tsch::bindings
