// tvm.tir.schedule.analysis.get_auto_tensorize_mapping_info and the AutoTensorizeMappingInfo
// it returns (mappings, lhs_buffer_map, rhs_buffer_indices, lhs_iters, rhs_iters), over
// schedule/auto_tensorize_mapping.h.
#include "arith/simplify.h"
#include "bindings/tvm/tir/index_map_values.h"
#include "bindings/tvm/tir/schedule_values.h"
#include "ir/op.h"
#include "ir/printer.h"
#include "schedule/auto_tensorize_mapping.h"
#include "script/exceptions.h"
#include "script/modules.h"
#include "values/ir_values.h"

namespace tsch::bindings {

using script::Args;
using script::TypeObject;
using script::TypeRef;

namespace {

class AutoTensorizeMappingInfoValue : public script::Object {
 public:
  explicit AutoTensorizeMappingInfoValue(schedule::AutoTensorizeMappingInfo i) : info(std::move(i)) {}
  TypeObject* type() const override;
  schedule::AutoTensorizeMappingInfo info;
};

// A block iterator as TVM's tir.IterVar shows it: var, dom (a Range) and iter_type (TVM's
// numbering: 0 data-parallel, 2 reduction).
class BlockIterVarValue : public script::Object {
 public:
  explicit BlockIterVarValue(ir::IterVar v) : iter(std::move(v)) {}
  TypeObject* type() const override {
    static TypeRef t = [] {
      auto t = std::make_shared<TypeObject>("IterVar");
      t->set_module("tvm.tir");
      t->def_property(
          "var", [](Interpreter&, const Value& v) { return wrap(ir::PrimExpr(v.as<BlockIterVarValue>()->iter.var)); });
      t->def_property("dom", [](Interpreter& interp, const Value& v) {
        const ir::Range& r = v.as<BlockIterVarValue>()->iter.dom;
        Value range = *interp.modules().import(interp, "tvm.ir", "")->globals->find(intern("Range"));
        return interp.call(range, std::vector<Value>{wrap(r.min), wrap(ir::add(r.min, r.extent))});
      });
      t->def_property("iter_type", [](Interpreter&, const Value& v) {
        static const int64_t kTvmNumber[] = {0, 2, 3, 4};  // DataPar, CommReduce, Ordered, Opaque
        return Value::integer(kTvmNumber[static_cast<int>(v.as<BlockIterVarValue>()->iter.type)]);
      });
      return t;
    }();
    return t.get();
  }
  // As TVM prints an IterVar: T.iter_var(v_n, T.Range(0, 4), "DataPar", "").
  std::string repr_hook(Interpreter&) override {
    static const char* kNames[] = {"DataPar", "CommReduce", "Ordered", "Opaque"};
    std::string end = ir::script(arith::simplify(ir::add(iter.dom.min, iter.dom.extent)));
    return "T.iter_var(" + iter.var->name + ", T.Range(" + ir::script(iter.dom.min) + ", " + end + "), \"" +
           kNames[static_cast<int>(iter.type)] + "\", \"\")";
  }
  ir::IterVar iter;
};

Value iter_list(const std::vector<ir::IterVar>& iters) {
  std::vector<Value> items;
  for (const auto& iv : iters) items.push_back(Value(std::make_shared<BlockIterVarValue>(iv)));
  return script::make_list(std::move(items));
}

TypeObject* AutoTensorizeMappingInfoValue::type() const {
  static TypeRef t = [] {
    auto t = std::make_shared<TypeObject>("AutoTensorizeMappingInfo");
    t->set_module("tvm.tir.schedule.analysis");
    auto self = [](const Value& v) -> const schedule::AutoTensorizeMappingInfo& {
      return v.as<AutoTensorizeMappingInfoValue>()->info;
    };
    t->def_property("mappings", [self](Interpreter&, const Value& v) {
      std::vector<Value> maps;
      for (const auto& m : self(v).mappings) {
        auto map = std::make_shared<IndexMapValue>();
        map->params = m.params;
        map->outputs = m.outputs;
        maps.push_back(Value(map));
      }
      return script::make_list(std::move(maps));
    });
    t->def_property("lhs_buffer_map", [self](Interpreter& interp, const Value& v) {
      auto d = std::make_shared<script::Dict>();
      for (const auto& [l, r] : self(v).lhs_buffer_map) d->set(interp, wrap(l), wrap(r));
      return Value(d);
    });
    t->def_property("rhs_buffer_indices", [self](Interpreter& interp, const Value& v) {
      auto d = std::make_shared<script::Dict>();
      for (const auto& [b, indices] : self(v).rhs_buffer_indices) {
        std::vector<Value> items;
        for (const auto& e : indices) items.push_back(wrap(e));
        d->set(interp, wrap(b), script::make_list(std::move(items)));
      }
      return Value(d);
    });
    t->def_property("lhs_iters", [self](Interpreter&, const Value& v) { return iter_list(self(v).lhs_iters); });
    t->def_property("rhs_iters", [self](Interpreter&, const Value& v) { return iter_list(self(v).rhs_iters); });
    return t;
  }();
  return t.get();
}

}  // namespace

void install_auto_tensorize_mapping(script::Namespace& ns) {
  script::def_function(
      ns, "get_auto_tensorize_mapping_info", "sch, block, desc_func",
      [](Interpreter&, Args& a) -> Value {
        auto* sch = a[0].as<ScheduleValue>();
        if (!sch) a.type_error(0, "a tvm.tir.Schedule");
        auto* rv = a[1].as<RVValue>();
        if (!rv || rv->rv->kind != schedule::RVNode::Kind::Block) a.type_error(1, "a BlockRV");
        auto* desc = a[2].as<PrimFuncValue>();
        if (!desc) a.type_error(2, "a T.prim_func (a tensor intrinsic's description)");
        schedule::BlockSid block = sch->sch.block_sid(schedule::TraceArg::of_ref(rv->rv));
        auto info = schedule::get_auto_tensorize_mapping_info(sch->sch.state(), block, desc->func);
        if (!info) return Value();
        return Value(std::make_shared<AutoTensorizeMappingInfoValue>(std::move(*info)));
      },
      "get_auto_tensorize_mapping_info(sch, block, desc_func) -> AutoTensorizeMappingInfo or None: the layout (an "
      "IndexMap "
      "over the block's iterators) that would let a tensor intrinsic's description tensorize the block.");
}

}  // namespace tsch::bindings
