// read_at / write_at: stage one buffer of a block through a copy in another storage scope at
// one loop (TVM's ReadAt / WriteAt, the auto-copy primitives). The copy is one block, annotated
// `auto_copy`, placed among the statements of the loop's body: read_at puts it before the first
// statement whose blocks read the buffer, and that statement and the ones after it read the
// copy; write_at puts it after the last statement whose blocks write the buffer, and the
// statements up to there write (and read) the copy. The block copies what those blocks access
// in one iteration of the loop (the loops inside relaxed, and the thread loops whose threads
// share the new scope), its iterators bound to the outer loops the region names.
//
//   for k0 in range(256):                       for k0 in range(256):
//     for k1, i, j in T.grid(8, 4, 4):            with T.block("A_shared"):
//       with T.block("C"):                          v0, v1 = by, k0 ... A_shared[...] = A[...]
//         ... A[vi, vk] ...           ->          for k1, i, j in T.grid(8, 4, 4):
//                                                   with T.block("C"): ... A_shared[vi, vk] ...
//   read_at(k0, C, 1, "shared")
#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "arith/int_set.h"
#include "arith/simplify.h"
#include "ir/expr_equal.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "ir/thread_storage_scope.h"
#include "schedule/analysis.h"
#include "schedule/block_scope.h"
#include "schedule/error.h"
#include "schedule/kind_registration.h"
#include "schedule/primitives.h"
#include "schedule/utils.h"

namespace tsch::schedule {

using namespace ir;

namespace {

// The variables of an expression in the order TVM's Substitute meets them (left to right).
class VarsInOrder : public IRVisitor {
 public:
  std::vector<const VarNode*> vars;

 protected:
  void visit_Var(const VarNode& v) override {
    if (std::find(vars.begin(), vars.end(), &v) == vars.end()) vars.push_back(&v);
  }
};

// The smaller (larger) of two bounds: one of them where their difference is a constant, a
// T.min (T.max) otherwise (TVM's NDIntSetUnion).
PrimExpr bound_union(const PrimExpr& a, const PrimExpr& b, bool lower) {
  int64_t d = 0;
  if (as_const_int(arith::simplify(sub(a, b)), &d)) return (lower ? d <= 0 : d >= 0) ? a : b;
  return arith::simplify(make_binary(lower ? ExprKind::Min : ExprKind::Max, a, b));
}

bool has_buffer(const std::vector<BufferRegion>& regions, const Buffer& buffer) {
  for (const auto& r : regions) {
    if (r.buffer == buffer) return true;
  }
  return false;
}

// Whether the block writes every element of the region `r` spans over the loops relaxed below
// `loop` (and the thread loops sharing `scope`): each dimension's start is the outer loops'
// part plus constant multiples of the relaxed loops, which, smallest step first, never step
// past what the smaller ones and the region's own extent cover (a mixed radix). write_at copies
// the whole span back, so a gap would copy elements nobody wrote.
bool writes_densely(const ScheduleState& s, BlockSid block_sid, LoopSid loop_sid, const BufferRegion& r,
                    const std::string& scope) {
  const BlockRealizeNode* realize = s.info(block_sid)->realize;
  const BlockNode& block = s.block_at(block_sid);
  std::unordered_map<const VarNode*, PrimExpr> bind;
  for (size_t i = 0; i < block.iter_vars.size(); ++i) bind[block.iter_vars[i].var.get()] = realize->iter_values[i];
  std::vector<const ForNode*> relaxed;
  bool inside = false;
  for (LoopSid l : s.enclosing_loops(block_sid)) {
    if (l == loop_sid) inside = true;
    const ForNode* f = &s.loop_at(l);
    bool thread_shared = f->for_kind == ForKind::ThreadBinding && storage_shared_by_thread(scope, f->thread_tag);
    if ((inside && l != loop_sid) || thread_shared) relaxed.push_back(f);
  }
  for (const Range& range : r.region) {
    PrimExpr lo = substitute(range.min, bind);
    std::unordered_map<const VarNode*, PrimExpr> zero;
    for (const ForNode* f : relaxed) zero[f->loop_var.get()] = make_int(0, f->loop_var->dtype);
    PrimExpr base = substitute(lo, zero);
    PrimExpr linear = base;
    int64_t covered = 0;
    if (!as_const_int(arith::simplify(range.extent), &covered)) return false;
    std::vector<std::pair<int64_t, int64_t>> steps;  // (coefficient, extent)
    for (const ForNode* f : relaxed) {
      std::unordered_map<const VarNode*, PrimExpr> one = zero;
      one[f->loop_var.get()] = make_int(1, f->loop_var->dtype);
      int64_t c = 0, e = 0;
      if (!as_const_int(arith::simplify(sub(substitute(lo, one), base)), &c)) return false;
      if (!as_const_int(arith::simplify(f->extent), &e)) return false;
      linear = add(linear, mul(make_int(c, f->loop_var->dtype), f->loop_var));
      if (c != 0 && e > 1) steps.emplace_back(c < 0 ? -c : c, e);
    }
    int64_t diff = 1;
    if (!as_const_int(arith::simplify(sub(lo, linear)), &diff) || diff != 0) return false;  // not linear in them
    std::sort(steps.begin(), steps.end());
    for (const auto& [c, e] : steps) {
      if (c > covered) return false;
      covered += c * (e - 1);
    }
  }
  return true;
}

// What read_at / write_at stages: `src` of the block through `dst` at loop `loop_sid`.
struct StageTarget {
  LoopSid loop_sid;
  bool is_read = true;
  const char* prim = "read_at";
  Buffer src, dst;
};

// Step 2's findings: the statements of the loop's body, which of them read and write the
// buffer, and the region the blocks that read (write) it access in one iteration of the loop.
struct LoopBodyAccess {
  std::vector<Stmt> subtrees;
  std::vector<size_t> r_pos, w_pos;
  std::vector<arith::Interval> relaxed;
};

// Widens `relaxed` by the region `r` of the buffer that block `realize` accesses in one
// iteration of the loop. write_at copies the whole region back: every element of it must
// have been written.
void add_accessed_region(const ScheduleState& s, const StageTarget& t, const BlockRealizeNode& realize,
                         const BufferRegion& r, std::vector<arith::Interval>& relaxed) {
  const BlockNode* b = realize.block.get();
  bool gapped = false;
  // The thread loops relaxed are those whose threads share the new scope.
  std::vector<arith::Interval> one =
      relaxed_region(s, sid_of(*b), t.loop_sid, BufferRegion{t.dst, r.region}, &gapped, true);
  for (size_t d = 0; d < one.size(); ++d) {
    if (!one[d].min || !one[d].max) {
      fail_not_supported(
          s, {t.loop_sid, sid_of(*b)},
          fmt::format("{} where the region of {} that block {{1}} accesses has no bounds", t.prim, t.src->name));
    }
  }
  if (!t.is_read && (gapped || !writes_densely(s, sid_of(*b), t.loop_sid, r, t.dst->scope) ||
                     (realize.predicate && !is_one(realize.predicate)))) {
    fail_not_supported(
        s, {t.loop_sid, sid_of(*b)},
        fmt::format("write_at where block {{1}} writes only part of the region of {} it spans (a predicate or "
                    "a strided access)",
                    t.src->name));
  }
  if (relaxed.empty()) {
    relaxed = one;
    return;
  }
  for (size_t d = 0; d < one.size(); ++d) {
    relaxed[d].min = bound_union(relaxed[d].min, one[d].min, true);
    relaxed[d].max = bound_union(relaxed[d].max, one[d].max, false);
  }
}

LoopBodyAccess loop_body_access(const ScheduleState& s, const StageTarget& t) {
  LoopBodyAccess out;
  out.subtrees = body_items(s.loop_at(t.loop_sid).body);
  for (size_t i = 0; i < out.subtrees.size(); ++i) {
    bool r_visited = false, w_visited = false;
    for (const BlockRealizeNode* realize : realizes_under(out.subtrees[i])) {
      const BlockNode* b = realize->block.get();
      bool has_r = has_buffer(b->reads, t.src), has_w = has_buffer(b->writes, t.src);
      r_visited = r_visited || has_r;
      w_visited = w_visited || has_w;
      if (!(t.is_read ? has_r : has_w)) continue;
      for (const BufferRegion& r : t.is_read ? b->reads : b->writes) {
        if (r.buffer == t.src) add_accessed_region(s, t, *realize, r, out.relaxed);
      }
    }
    if (r_visited) out.r_pos.push_back(i);
    if (w_visited) out.w_pos.push_back(i);
  }
  return out;
}

// Whether the block reads `buffer` only at regions it also writes (a reduction reads back
// only the elements it writes, after its T.init).
bool reads_own_writes(const BlockNode& b, const Buffer& buffer) {
  bool all_own = true;
  for (const BufferRegion& r : b.reads) {
    if (r.buffer != buffer) continue;
    bool same = false;
    for (const BufferRegion& w : b.writes) {
      if (w.buffer != buffer || w.region.size() != r.region.size()) continue;
      bool all = true;
      for (size_t d = 0; d < r.region.size(); ++d) {
        all = all &&
              expr_deep_equal(arith::simplify(sub(r.region[d].min, w.region[d].min)),
                              make_int(0, r.region[d].min->dtype)) &&
              expr_deep_equal(arith::simplify(sub(r.region[d].extent, w.region[d].extent)),
                              make_int(0, r.region[d].extent->dtype));
      }
      same = same || all;
    }
    all_own = all_own && same;
  }
  return all_own;
}

// The statements before write_at's copy access the copy only: a block reading the buffer
// there would read elements the copy never received, unless it first writes them itself (a
// reduction's T.init) and reads nothing else of it.
void check_no_read_before_write_back(const ScheduleState& s, const StageTarget& t, const std::vector<Stmt>& before) {
  for (const Stmt& st : before) {
    for (const BlockRealizeNode* realize : realizes_under(st)) {
      const BlockNode* b = realize->block.get();
      bool own = reads_own_writes(*b, t.src);
      if (has_buffer(b->reads, t.src) && (!b->init || !own)) {
        fail_not_supported(
            s, {t.loop_sid, sid_of(*b)},
            fmt::format("write_at where block {{1}} reads {} before the copy (it would read the new buffer's "
                        "unwritten elements)",
                        t.src->name));
      }
    }
  }
}

// Where the copy goes among the loop body's statements, and the statements [st, ed) that
// access the copy instead of the buffer.
struct CopyPlacement {
  size_t insert_pos = 0, st = 0, ed = 0;
};

// Step 3. Check where the copy can go (TVM asserts these).
CopyPlacement copy_placement(const ScheduleState& s, const StageTarget& t, const LoopBodyAccess& a) {
  const std::string& name = t.src->name;
  if (t.is_read) {
    if (a.r_pos.empty())
      fail_not_supported(s, {t.loop_sid}, fmt::format("read_at where no block under loop {{0}} reads {}", name));
    if (!a.w_pos.empty() && a.w_pos.back() >= a.r_pos.front()) {
      fail_not_supported(s, {t.loop_sid},
                         fmt::format("read_at where {} is written under loop {{0}} after it is first read", name));
    }
    return {a.r_pos.front(), a.r_pos.front(), a.subtrees.size()};
  }
  if (a.w_pos.empty())
    fail_not_supported(s, {t.loop_sid}, fmt::format("write_at where no block under loop {{0}} writes {}", name));
  if (!a.r_pos.empty() && a.r_pos.back() > a.w_pos.back()) {
    fail_not_supported(s, {t.loop_sid},
                       fmt::format("write_at where {} is read under loop {{0}} after it is last written", name));
  }
  CopyPlacement p{a.w_pos.back() + 1, 0, a.w_pos.back() + 1};
  check_no_read_before_write_back(
      s, t,
      std::vector<Stmt>(a.subtrees.begin() + static_cast<long>(p.st), a.subtrees.begin() + static_cast<long>(p.ed)));
  return p;
}

// The loops around the copy, the loop itself included (TVM's GetLoopDomain), by variable.
std::unordered_map<const VarNode*, const ForNode*> outer_loops_of(const ScheduleState& s, LoopSid loop_sid) {
  std::unordered_map<const VarNode*, const ForNode*> outer_loops;
  std::vector<LoopSid> loops = s.enclosing_loops(loop_sid);
  loops.push_back(loop_sid);
  for (LoopSid l : loops) outer_loops[s.loop_at(l).loop_var.get()] = &s.loop_at(l);
  return outer_loops;
}

// Step 4. The copy's region, which must lie inside the buffer for every iteration of the
// loops around it.
std::vector<Range> copy_region(const ScheduleState& s, const StageTarget& t,
                               const std::vector<arith::Interval>& relaxed,
                               const std::unordered_map<const VarNode*, const ForNode*>& outer_loops) {
  arith::VarDomain outer;
  for (const auto& [v, f] : outer_loops) outer[v] = arith::interval_of(Range{f->min, f->extent});
  std::vector<Range> domain;
  for (size_t d = 0; d < relaxed.size(); ++d) {
    PrimExpr min = arith::simplify(relaxed[d].min);
    PrimExpr extent = arith::simplify(sub(add(relaxed[d].max, make_int(1, relaxed[d].max->dtype)), min));
    domain.push_back(Range{min, extent});
    arith::Interval lo = arith::eval_interval(min, outer), hi = arith::eval_interval(relaxed[d].max, outer);
    int64_t low = 0, room = 0;
    bool inside = lo.min && hi.max && as_const_int(arith::simplify(lo.min), &low) && low >= 0 &&
                  as_const_int(arith::simplify(sub(t.src->shape[d], add(hi.max, make_int(1, hi.max->dtype)))), &room) &&
                  room >= 0;
    if (!inside) {
      fail_not_supported(s, {t.loop_sid},
                         fmt::format("{} where the region of {} to copy may reach outside the buffer (dimension {})",
                                     t.prim, t.src->name, d));
    }
  }
  return domain;
}

// Step 5. The copy block: its iterators are the outer loops the region names, in the order
// they appear (v0, v1, ...); a loop nest ax0, ax1, ... inside it copies the region.
std::shared_ptr<BlockRealizeNode> make_copy_block(ScheduleState& s, const StageTarget& t, std::vector<Range> domain,
                                                  const std::unordered_map<const VarNode*, const ForNode*>& outer_loops,
                                                  const std::string& scope_name) {
  std::unordered_map<const VarNode*, PrimExpr> bindings;
  std::vector<IterVar> iter_vars;
  std::vector<PrimExpr> iter_values;
  for (Range& r : domain) {
    VarsInOrder order;
    order.visit(r.min);
    order.visit(r.extent);
    for (const VarNode* v : order.vars) {
      if (bindings.count(v)) continue;
      auto it = outer_loops.find(v);
      if (it == outer_loops.end()) {
        fail_not_supported(s, {t.loop_sid},
                           fmt::format("{} where the region of {} depends on {}, which is not a loop around loop {{0}}",
                                       t.prim, t.src->name, v->name));
      }
      Var nv = make_var("v" + std::to_string(iter_vars.size()), v->dtype);
      bindings[v] = nv;
      iter_values.push_back(it->second->loop_var);
      iter_vars.push_back(IterVar{nv, Range{it->second->min, it->second->extent}, IterType::DataPar});
    }
    r = Range{substitute(r.min, bindings), substitute(r.extent, bindings)};
  }
  const Buffer& copy_from = t.is_read ? t.src : t.dst;
  const Buffer& copy_to = t.is_read ? t.dst : t.src;
  std::vector<LoopSpec> nest;
  std::vector<PrimExpr> indices;
  for (size_t d = 0; d < domain.size(); ++d) {
    Var ax = make_var("ax" + std::to_string(d), domain[d].extent->dtype);
    nest.push_back({ax, nullptr, domain[d].extent});
    indices.push_back(add(domain[d].min, ax));
  }
  Stmt store = std::make_shared<BufferStoreNode>(copy_to, buffer_load(copy_from, indices), indices);
  auto copy = std::make_shared<BlockNode>();
  copy->name = t.src->name + "_" + scope_name;
  copy->sid = s.fresh_sid();
  copy->iter_vars = iter_vars;
  copy->reads = {BufferRegion{copy_from, domain}};
  copy->writes = {BufferRegion{copy_to, domain}};
  copy->annotations.emplace_back("auto_copy", AttrValue::of_bool(true));
  copy->body = make_loop_nest(s, nest, store);
  return std::make_shared<BlockRealizeNode>(iter_values, make_bool(true), copy);
}

BlockSid read_write_at(ScheduleState& s, LoopSid loop_sid, BlockSid block_sid, int64_t index,
                       const std::string& scope_name, bool is_read) {
  // Step 1. Check the arguments: a storage scope, a buffer of the block.
  check_storage_scope(s, scope_name);
  const BlockNode* block = &s.block_at(block_sid);
  const auto& regions = is_read ? block->reads : block->writes;
  if (index < 0 || index >= static_cast<int64_t>(regions.size()))
    fail_buffer_index_out_of_range(s, block_sid, index, !is_read);
  StageTarget t{loop_sid, is_read, is_read ? "read_at" : "write_at", regions[static_cast<size_t>(index)].buffer, {}};
  t.dst = buffer_with(t.src, cache_name(t.src->name, scope_name), t.src->shape, scope_name);
  check_stage_pipeline(s, s.scope_block(loop_sid));
  // Step 2. What the loop's body accesses; Steps 3-5: where the copy goes, what it copies.
  LoopBodyAccess access = loop_body_access(s, t);
  CopyPlacement at = copy_placement(s, t, access);
  std::unordered_map<const VarNode*, const ForNode*> outer_loops = outer_loops_of(s, loop_sid);
  std::vector<Range> domain = copy_region(s, t, access.relaxed, outer_loops);
  std::shared_ptr<BlockRealizeNode> realize = make_copy_block(s, t, std::move(domain), outer_loops, scope_name);
  // Step 6. Rewrite: the statements in [st, ed) access the new buffer, the copy goes in, and
  // the scope allocates the new buffer.
  std::vector<Stmt>& subtrees = access.subtrees;
  for (size_t i = at.st; i < at.ed; ++i) subtrees[i] = replace_buffer(subtrees[i], t.src, t.dst);
  subtrees.insert(subtrees.begin() + static_cast<long>(at.insert_pos), realize);
  auto new_loop = std::make_shared<ForNode>(s.loop_at(loop_sid));
  new_loop->body = make_seq(subtrees);
  BlockSid scope = s.scope_block(loop_sid);
  BlockSid copy_sid = sid_of(*realize->block);
  s.replace(loop_sid, new_loop);
  rebuild_scope(s, scope, [&](BlockNode& b) { b.alloc_buffers.push_back(t.dst); });
  return copy_sid;
}

}  // namespace

BlockSid read_at(ScheduleState& s, LoopSid loop, BlockSid block, int64_t read_buffer_index, const std::string& scope) {
  return read_write_at(s, loop, block, read_buffer_index, scope, true);
}

BlockSid write_at(ScheduleState& s, LoopSid loop, BlockSid block, int64_t write_buffer_index,
                  const std::string& scope) {
  return read_write_at(s, loop, block, write_buffer_index, scope, false);
}

// ---- instruction kinds

void register_read_write_at_kinds(KindList& kinds) {
  for (bool read : {true, false}) {
    kinds.push_back(define_kind(
        read ? "ReadAt" : "WriteAt", read ? "read_at" : "write_at",
        {input("loop", ParamType::Loop), input("block", ParamType::Block),
         attr(read ? "read_buffer_index" : "write_buffer_index", ParamType::Int),
         attr("storage_scope", ParamType::Str)},
        OutputForm::Single,
        [read](Schedule& sch, InstructionCall& c) {
          LoopSid loop = sch.loop_sid(c.inputs[0]);
          BlockSid block = sch.block_sid(c.inputs[1]);
          int64_t index = c.attrs[0].as_int();
          output_blocks(c, {read ? read_at(sch.state(), loop, block, index, c.attrs[1].s)
                                 : write_at(sch.state(), loop, block, index, c.attrs[1].s)});
        },
        read ? "read_at(loop, block, read_buffer_index, storage_scope) -> BlockRV: copy what the blocks under loop "
               "read of a "
               "buffer into storage_scope at the loop's top level."
             : "write_at(loop, block, write_buffer_index, storage_scope) -> BlockRV: the blocks under loop write a "
               "buffer in "
               "storage_scope, copied back at the loop's top level.",
        read ? "read_buffer_index names a buffer the block reads; under the loop no block writes it after the first "
               "statement "
               "reading it; the region copied lies inside the buffer"
             : "write_buffer_index names a buffer the block writes; under the loop no block reads it after the last "
               "statement "
               "writing it, and the blocks before the copy that read it have a T.init and read only what they write; "
               "the writes cover "
               "the region copied back",
        read ? "for k0: C reads A  ->  for k0: block A_shared (auto_copy) copies A's tile into A_shared; C reads "
               "A_shared"
             : "for tx: C writes C  ->  for tx: C writes C_shared; block C_shared (auto_copy) copies the tile back to "
               "C"));
  }
}

}  // namespace tsch::schedule
