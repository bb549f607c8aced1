// annotate / unannotate: set or remove an annotation on a loop or block; add_unit_loop: wrap
// a block or loop in a loop of extent 1. (get_producers / get_consumers live in analysis.cc.)
#include <fmt/format.h>

#include <functional>

#include "arith/block_access.h"
#include "arith/int_set.h"
#include "arith/simplify.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "ir/printer.h"
#include "schedule/error.h"
#include "schedule/kind_registration.h"
#include "schedule/primitives.h"

namespace tsch::schedule {

using namespace ir;

namespace {

TSCH_SCHEDULE_ERROR_KIND(kRegionMissesAccessError, "RegionMissesAccessError",
                         "The annotated buffer region misses part of what the block accesses",
                         "The annotated buffer region misses part of what block {0} accesses");

void replace_annotations(ScheduleState& s, StmtSid sid, const std::function<void(AttrMap&)>& edit) {
  if (const ForNode* f = s.loop(sid)) {
    auto copy = std::make_shared<ForNode>(*f);
    edit(copy->annotations);
    s.replace(sid, copy);
    return;
  }
  const BlockNode* b = &s.block_at(s.as_block(sid));
  auto copy = std::make_shared<BlockNode>(*b);
  edit(copy->annotations);
  const BlockRealizeNode* r = s.info(sid)->realize;
  s.replace(sid, std::make_shared<BlockRealizeNode>(r->iter_values, r->predicate, copy));
}

}  // namespace

// annotate_buffer_access: the block's read (or write) region of one buffer declared by the
// user as [start, end) per dimension, functions of its iterators (TVM's
// AnnotateBufferAccess), and marked "explicit_read_region" / "explicit_write_region" so later
// primitives keep it. It is the user's statement of what the body accesses (for accesses the
// analysis cannot bound, e.g. through float index arithmetic); one that provably misses part
// of the body's accesses is refused, as dependency analysis trusts regions.
void annotate_buffer_access(ScheduleState& s, BlockSid block_sid, int64_t index, bool write,
                            const std::vector<Var>& params, const std::vector<PrimExpr>& ranges) {
  const BlockNode* b = &s.block_at(block_sid);
  const std::vector<BufferRegion>& regions = write ? b->writes : b->reads;
  TSCH_USER_ASSERT_ARG(index >= 0 && index < static_cast<int64_t>(regions.size()), IndexError, "buffer_index")
      << "the block has no " << (write ? "write" : "read") << " buffer " << index;
  const BufferRegion& old = regions[static_cast<size_t>(index)];
  TSCH_USER_ASSERT_ARG(params.size() == b->iter_vars.size(), ValueError, "gen_new_ranges")
      << "the function takes " << params.size() << " iterators but block " << b->name << " has " << b->iter_vars.size();
  TSCH_USER_ASSERT_ARG(ranges.size() == 2 * old.buffer->shape.size(), ValueError, "gen_new_ranges")
      << "expected a (start, end) pair for each of the " << old.buffer->shape.size() << " dimensions of buffer "
      << old.buffer->name;
  std::unordered_map<const VarNode*, PrimExpr> vmap;
  arith::VarDomain dom;
  for (size_t i = 0; i < params.size(); ++i) {
    const IterVar& iv = b->iter_vars[i];
    vmap[params[i].get()] = params[i]->dtype == iv.var->dtype ? PrimExpr(iv.var) : cast(params[i]->dtype, iv.var);
    dom[iv.var.get()] = arith::Interval{
        iv.dom.min, arith::simplify(sub(add(iv.dom.min, iv.dom.extent), make_int(1, iv.dom.extent->dtype)))};
  }
  BufferRegion region{old.buffer, {}};
  for (size_t d = 0; d < old.buffer->shape.size(); ++d) {
    PrimExpr start = arith::simplify(substitute(ranges[2 * d], vmap));
    PrimExpr end = arith::simplify(substitute(ranges[2 * d + 1], vmap));
    region.region.push_back(Range{start, arith::simplify(sub(end, start))});
  }
  // What the body accesses must lie inside, for every value of the iterators.
  arith::AccessRegions accessed = arith::infer_access_regions(b->body, b->init, b->alloc_buffers, b->match_buffers);
  for (const auto& r : write ? accessed.writes : accessed.reads) {
    if (r.buffer != old.buffer) continue;
    for (size_t d = 0; d < r.region.size(); ++d) {
      const Range& a = r.region[d];
      const Range& n = region.region[d];
      bool misses = arith::can_prove(make_binary(ExprKind::LT, a.min, n.min), dom) ||
                    arith::can_prove(make_binary(ExprKind::LT, add(n.min, n.extent), add(a.min, a.extent)), dom);
      if (misses) {
        fail(s, kRegionMissesAccessError, {block_sid},
             fmt::format("The {} region given for {} misses part of what block {{0}} accesses in "
                         "dimension {} ([{}, {}) is not inside [{}, {}))",
                         write ? "write" : "read", old.buffer->name, d, script(a.min), script(add(a.min, a.extent)),
                         script(n.min), script(add(n.min, n.extent))));
      }
    }
  }
  auto copy = std::make_shared<BlockNode>(*b);
  (write ? copy->writes : copy->reads)[static_cast<size_t>(index)] = region;
  std::string key = write ? "explicit_write_region" : "explicit_read_region";
  AttrValue list;
  list.kind = AttrValue::Kind::Array;
  if (const AttrValue* existing = find_attr(copy->annotations, key)) list = *existing;
  bool present = false;
  for (const auto& v : list.array) present |= v.kind == AttrValue::Kind::Int && v.i == index;
  if (!present) list.array.push_back(AttrValue::of_int(index));
  set_attr(copy->annotations, key, list);
  const BlockRealizeNode* r = s.info(block_sid)->realize;
  s.replace(block_sid, std::make_shared<BlockRealizeNode>(r->iter_values, r->predicate, copy));
}

void annotate(ScheduleState& s, StmtSid sid, const std::string& key, const AttrValue& value) {
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

void unannotate(ScheduleState& s, StmtSid sid, const std::string& key) {
  const AttrMap& current = s.loop(sid) ? s.loop(sid)->annotations : s.block_at(s.as_block(sid)).annotations;
  if (!find_attr(current, key))
    fail(s, kNoSuchAnnotationError, {sid}, fmt::format("{{0}} has no annotation \"{}\"", key));
  replace_annotations(s, sid, [&](AttrMap& m) {
    AttrMap kept;
    for (auto& kv : m) {
      if (kv.first != key) kept.push_back(kv);
    }
    m = kept;
  });
}

LoopSid add_unit_loop(ScheduleState& s, StmtSid sid) {
  const NodeInfo* info = s.info(sid);
  if (info->node->kind == StmtKind::Block && !info->parent) fail(s, kRootBlockError, {sid});
  Stmt target = info->node->kind == StmtKind::For ? Stmt(std::shared_ptr<const StmtNode>{}, info->node)
                                                  : Stmt(std::shared_ptr<const StmtNode>{}, info->realize);
  // Copy the target so the new tree owns it.
  Stmt owned;
  if (auto* f = as<ForNode>(target))
    owned = std::make_shared<ForNode>(*f);
  else
    owned = std::make_shared<BlockRealizeNode>(*as<BlockRealizeNode>(target));
  auto loop = std::make_shared<ForNode>(make_var("u"), make_int(0), make_int(1), ForKind::Serial, owned);
  loop->sid = s.fresh_sid();
  s.replace(sid, loop);
  return sid_of(*loop);
}

}  // namespace tsch::schedule

// ---- instruction kinds

namespace tsch::schedule {

namespace {

// ann_val: a constant, a list of constants, or an ExprRV (its sampled value).
AttrValue annotation_value(const TraceArg& v) {
  switch (v.kind) {
    case TraceArg::Kind::Bool:
      return AttrValue::of_bool(v.b);
    case TraceArg::Kind::Int:
      return AttrValue::of_int(v.i);
    case TraceArg::Kind::Str:
      return AttrValue::of_str(v.s);
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
      {input("block_or_loop", ParamType::BlockOrLoop), attr("ann_key", ParamType::Str),
       input("ann_val", ParamType::AnnValue)},
      OutputForm::None,
      [](Schedule& sch, InstructionCall& c) {
        StmtSid sid = sch.block_or_loop_sid(c.inputs[0]);
        annotate(sch.state(), sid, c.attrs[0].s, annotation_value(c.inputs[1]));
      },
      "annotate(block_or_loop, ann_key, ann_val): attach an annotation (e.g. pragma_auto_unroll_max_step)."));
  kinds.push_back(define_kind(
      "AnnotateBufferAccess", "annotate_buffer_access",
      {input("block", ParamType::Block), attr("buffer_index", ParamType::Int), attr("buf_type", ParamType::Str),
       input("gen_new_ranges", ParamType::IndexMap)},
      OutputForm::None,
      [](Schedule& sch, InstructionCall& c) {
        const std::string& kind = c.attrs[1].s;
        TSCH_USER_ASSERT_ARG(kind == "read" || kind == "write", ValueError, "buf_type")
            << "expected \"read\" or \"write\", got \"" << kind << "\"";
        const TraceArg& map = c.inputs[1];
        TSCH_USER_ASSERT_ARG(map.kind == TraceArg::Kind::IndexMap, TypeError, "gen_new_ranges")
            << "expected a function of the block's iterators";
        annotate_buffer_access(sch.state(), sch.block_sid(c.inputs[0]), c.attrs[0].as_int(), kind == "write",
                               map.map_params, map.map_outputs);
      },
      "annotate_buffer_access(block, buffer_index, buf_type, gen_new_ranges): declare the block's read or write region "
      "of a "
      "buffer, e.g. gen_new_ranges=lambda vi, vj: ((vi - 1, vi + 1), (vj - 1, vj + 1)) (start and end per dimension).",
      "buf_type is \"read\" or \"write\"; the buffer index exists; the region does not provably miss what the body "
      "accesses",
      "T.reads(A[vi, vj])  ->  T.reads(A[vi - 1:vi + 1, vj - 1:vj + 1]), T.block_attr({\"explicit_read_region\": "
      "[0]})"));
  kinds.push_back(define_kind(
      "Unannotate", "unannotate", {input("block_or_loop", ParamType::BlockOrLoop), attr("ann_key", ParamType::Str)},
      OutputForm::None,
      [](Schedule& sch, InstructionCall& c) {
        unannotate(sch.state(), sch.block_or_loop_sid(c.inputs[0]), c.attrs[0].s);
      },
      "unannotate(block_or_loop, ann_key): remove an annotation."));
  kinds.push_back(define_kind(
      "AddUnitLoop", "add_unit_loop", {input("block_or_loop", ParamType::BlockOrLoop)}, OutputForm::Single,
      [](Schedule& sch, InstructionCall& c) {
        output_loops(c, {add_unit_loop(sch.state(), sch.block_or_loop_sid(c.inputs[0]))});
      },
      "add_unit_loop(block_or_loop) -> LoopRV: wrap it in a loop of extent 1.", "the block or loop exists",
      "with T.block(\"B\"): ...  ->  for u in range(1): with T.block(\"B\"): ..."));
}

}  // namespace tsch::schedule
