// annotate / unannotate: set or remove an annotation on a loop or block; add_unit_loop: wrap
// a block or loop in a loop of extent 1. (get_producers / get_consumers live in analysis.cc.)
#include <fmt/format.h>

#include <functional>

#include "ir/op.h"
#include "schedule/error.h"
#include "schedule/primitives.h"
#include "schedule/kind_registration.h"

namespace tsch::schedule {

using namespace ir;

namespace {

void replace_annotations(ScheduleState& s, uint64_t sid, const std::function<void(AttrMap&)>& edit) {
  if (const ForNode* f = s.loop(sid)) {
    auto copy = std::make_shared<ForNode>(*f);
    edit(copy->annotations);
    s.replace(sid, copy);
    return;
  }
  const BlockNode* b = &s.block_at(sid);
  auto copy = std::make_shared<BlockNode>(*b);
  edit(copy->annotations);
  const BlockRealizeNode* r = s.info(sid)->realize;
  s.replace(sid, std::make_shared<BlockRealizeNode>(r->iter_values, r->predicate, copy));
}

}  // namespace

void annotate(ScheduleState& s, uint64_t sid, const std::string& key, const AttrValue& value) {
  replace_annotations(s, sid, [&](AttrMap& m) {
    for (auto& [k, v] : m) {
      if (k == key) {
        v = value;
        return;
      }
    }
    m.emplace_back(key, value);
  });
}

namespace {

TSCH_SCHEDULE_ERROR_KIND(kNoSuchAnnotationError, "NoSuchAnnotationError", "The loop or block has no such annotation",
                         "{0} has no such annotation");

}  // namespace

void unannotate(ScheduleState& s, uint64_t sid, const std::string& key) {
  const AttrMap& current = s.loop(sid) ? s.loop_at(sid).annotations : s.block_at(sid).annotations;
  if (!find_attr(current, key)) fail(s, kNoSuchAnnotationError, {sid}, fmt::format("{{0}} has no annotation \"{}\"", key));
  replace_annotations(s, sid, [&](AttrMap& m) {
    AttrMap kept;
    for (auto& kv : m) {
      if (kv.first != key) kept.push_back(kv);
    }
    m = kept;
  });
}

uint64_t add_unit_loop(ScheduleState& s, uint64_t sid) {
  const NodeInfo* info = s.info(sid);
  if (info->node->kind == StmtKind::Block && info->parent == 0) fail(s, kRootBlockError, {sid});
  Stmt target = info->node->kind == StmtKind::For ? Stmt(std::shared_ptr<const StmtNode>{}, info->node)
                                                  : Stmt(std::shared_ptr<const StmtNode>{}, info->realize);
  // Copy the target so the new tree owns it.
  Stmt owned;
  if (auto* f = as<ForNode>(target)) owned = std::make_shared<ForNode>(*f);
  else owned = std::make_shared<BlockRealizeNode>(*as<BlockRealizeNode>(target));
  auto loop = std::make_shared<ForNode>(make_var("u"), make_int(0), make_int(1), ForKind::Serial, owned);
  loop->sid = s.fresh_sid();
  s.replace(sid, loop);
  return loop->sid;
}

}  // namespace tsch::schedule

// ---- instruction kinds

namespace tsch::schedule {

namespace {

// ann_val: a constant, a list of constants, or an ExprRV (its sampled value).
AttrValue annotation_value(const TraceArg& v) {
  switch (v.kind) {
    case TraceArg::Kind::Bool: return AttrValue::of_bool(v.b);
    case TraceArg::Kind::Int: return AttrValue::of_int(v.i);
    case TraceArg::Kind::Str: return AttrValue::of_str(v.s);
    case TraceArg::Kind::Float: {
      AttrValue f;
      f.kind = AttrValue::Kind::Float;
      f.f = v.f;
      return f;
    }
    case TraceArg::Kind::List: {
      AttrValue list;
      list.kind = AttrValue::Kind::Array;
      for (const TraceArg& item : v.list) list.array.push_back(annotation_value(item));
      return list;
    }
    case TraceArg::Kind::Dict: {
      AttrValue map;
      map.kind = AttrValue::Kind::Map;
      for (size_t i = 0; i < v.list.size(); ++i) map.map.emplace_back(v.keys[i], annotation_value(v.list[i]));
      return map;
    }
    default:
      TSCH_USER_ASSERT_ARG(v.kind == TraceArg::Kind::Ref && v.ref->kind == RVNode::Kind::Expr, TypeError, "ann_val")
          << "expected an int, float, bool, str, ExprRV, or a list or dict of them";
      return AttrValue::of_int(v.ref->value);
  }
}

}  // namespace

void register_annotate_kinds(KindList& kinds) {
  kinds.push_back(define_kind(
      "Annotate", "annotate",
      {input("block_or_loop", ParamType::BlockOrLoop), attr("ann_key", ParamType::Str), input("ann_val", ParamType::AnnValue)},
      OutputForm::None,
      [](Schedule& sch, InstructionCall& c) {
        uint64_t sid = sch.block_or_loop_sid(c.inputs[0]);
        annotate(sch.state(), sid, c.attrs[0].s, annotation_value(c.inputs[1]));
      },
      "annotate(block_or_loop, ann_key, ann_val): attach an annotation (e.g. pragma_auto_unroll_max_step)."));
  kinds.push_back(define_kind(
      "Unannotate", "unannotate", {input("block_or_loop", ParamType::BlockOrLoop), attr("ann_key", ParamType::Str)},
      OutputForm::None,
      [](Schedule& sch, InstructionCall& c) { unannotate(sch.state(), sch.block_or_loop_sid(c.inputs[0]), c.attrs[0].s); },
      "unannotate(block_or_loop, ann_key): remove an annotation."));
  kinds.push_back(define_kind(
      "AddUnitLoop", "add_unit_loop", {input("block_or_loop", ParamType::BlockOrLoop)}, OutputForm::Single,
      [](Schedule& sch, InstructionCall& c) { output_loops(c, {add_unit_loop(sch.state(), sch.block_or_loop_sid(c.inputs[0]))}); },
      "add_unit_loop(block_or_loop) -> LoopRV: wrap it in a loop of extent 1.", "the block or loop exists",
      "with T.block(\"B\"): ...  ->  for u in range(1): with T.block(\"B\"): ..."));
}

}  // namespace tsch::schedule
