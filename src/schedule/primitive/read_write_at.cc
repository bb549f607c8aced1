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
  void visit(const PrimExpr& e) override {
    if (auto* v = as<VarNode>(e)) {
      if (std::find(vars.begin(), vars.end(), v) == vars.end()) vars.push_back(v);
      return;
    }
    visit_children(e);
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
bool writes_densely(const ScheduleState& s, uint64_t block_sid, uint64_t loop_sid, const BufferRegion& r,
                    const std::string& scope) {
  const BlockRealizeNode* realize = s.info(block_sid)->realize;
  const BlockNode& block = s.block_at(block_sid);
  std::unordered_map<const VarNode*, PrimExpr> bind;
  for (size_t i = 0; i < block.iter_vars.size(); ++i) bind[block.iter_vars[i].var.get()] = realize->iter_values[i];
  std::vector<const ForNode*> relaxed;
  bool inside = false;
  for (uint64_t l : s.enclosing_loops(block_sid)) {
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

uint64_t read_write_at(ScheduleState& s, uint64_t loop_sid, uint64_t block_sid, int64_t index,
                       const std::string& scope_name, bool is_read) {
  const char* prim = is_read ? "read_at" : "write_at";
  // Step 1. Check the arguments: a storage scope, a buffer of the block.
  check_storage_scope(s, scope_name);
  const BlockNode* block = &s.block_at(block_sid);
  const auto& regions = is_read ? block->reads : block->writes;
  if (index < 0 || index >= static_cast<int64_t>(regions.size()))
    fail_buffer_index_out_of_range(s, block_sid, index, !is_read);
  Buffer src = regions[static_cast<size_t>(index)].buffer;
  Buffer dst = buffer_with(src, cache_name(src->name, scope_name), src->shape, scope_name);
  const ForNode& loop = s.loop_at(loop_sid);
  check_stage_pipeline(s, s.scope_block(loop_sid));

  // Step 2. Which statements of the loop's body read and write the buffer, and the region the
  // blocks that read (write) it access in one iteration of the loop.
  std::vector<Stmt> subtrees = body_items(loop.body);
  std::vector<size_t> r_pos, w_pos;
  std::vector<arith::Interval> relaxed;
  std::vector<const BlockRealizeNode*> accessing;  // the blocks the copy serves
  for (size_t i = 0; i < subtrees.size(); ++i) {
    bool r_visited = false, w_visited = false;
    for (const BlockRealizeNode* realize : realizes_under(subtrees[i])) {
      const BlockNode* b = realize->block.get();
      bool has_r = has_buffer(b->reads, src), has_w = has_buffer(b->writes, src);
      r_visited = r_visited || has_r;
      w_visited = w_visited || has_w;
      if (!(is_read ? has_r : has_w)) continue;
      accessing.push_back(realize);
      for (const BufferRegion& r : is_read ? b->reads : b->writes) {
        if (r.buffer != src) continue;
        bool gapped = false;
        // The thread loops relaxed are those whose threads share the new scope.
        std::vector<arith::Interval> one =
            relaxed_region(s, b->sid, loop_sid, BufferRegion{dst, r.region}, &gapped, true);
        for (size_t d = 0; d < one.size(); ++d) {
          if (!one[d].min || !one[d].max) {
            fail_not_supported(
                s, {loop_sid, b->sid},
                fmt::format("{} where the region of {} that block {{1}} accesses has no bounds", prim, src->name));
          }
        }
        // write_at copies the whole region back: every element of it must have been written.
        if (!is_read && (gapped || !writes_densely(s, b->sid, loop_sid, r, dst->scope) ||
                         (realize->predicate && !is_one(realize->predicate)))) {
          fail_not_supported(
              s, {loop_sid, b->sid},
              fmt::format("write_at where block {{1}} writes only part of the region of {} it spans (a predicate or "
                          "a strided access)",
                          src->name));
        }
        if (relaxed.empty()) {
          relaxed = one;
        } else {
          for (size_t d = 0; d < one.size(); ++d) {
            relaxed[d].min = bound_union(relaxed[d].min, one[d].min, true);
            relaxed[d].max = bound_union(relaxed[d].max, one[d].max, false);
          }
        }
      }
    }
    if (r_visited) r_pos.push_back(i);
    if (w_visited) w_pos.push_back(i);
  }

  // Step 3. Check where the copy can go (TVM asserts these).
  size_t insert_pos = 0, st = 0, ed = 0;
  if (is_read) {
    if (r_pos.empty())
      fail_not_supported(s, {loop_sid}, fmt::format("read_at where no block under loop {{0}} reads {}", src->name));
    if (!w_pos.empty() && w_pos.back() >= r_pos.front()) {
      fail_not_supported(s, {loop_sid},
                         fmt::format("read_at where {} is written under loop {{0}} after it is first read", src->name));
    }
    insert_pos = r_pos.front();
    st = insert_pos;
    ed = subtrees.size();
  } else {
    if (w_pos.empty())
      fail_not_supported(s, {loop_sid}, fmt::format("write_at where no block under loop {{0}} writes {}", src->name));
    if (!r_pos.empty() && r_pos.back() > w_pos.back()) {
      fail_not_supported(s, {loop_sid},
                         fmt::format("write_at where {} is read under loop {{0}} after it is last written", src->name));
    }
    insert_pos = w_pos.back() + 1;
    st = 0;
    ed = insert_pos;
    // The statements before the copy access the copy only: a block reading the buffer there
    // would read elements the copy never received, unless it first writes them itself (a
    // reduction's T.init) and reads nothing else of it.
    for (size_t i = st; i < ed; ++i) {
      for (const BlockRealizeNode* realize : realizes_under(subtrees[i])) {
        const BlockNode* b = realize->block.get();
        // A reduction reads back only the elements it writes (after its T.init).
        bool reads_own_writes = true;
        for (const BufferRegion& r : b->reads) {
          if (r.buffer != src) continue;
          bool same = false;
          for (const BufferRegion& w : b->writes) {
            if (w.buffer != src || w.region.size() != r.region.size()) continue;
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
          reads_own_writes = reads_own_writes && same;
        }
        if (has_buffer(b->reads, src) && (!b->init || !reads_own_writes)) {
          fail_not_supported(
              s, {loop_sid, b->sid},
              fmt::format("write_at where block {{1}} reads {} before the copy (it would read the new buffer's "
                          "unwritten elements)",
                          src->name));
        }
      }
    }
  }

  // Step 4. The copy's region, which must lie inside the buffer for every iteration of the
  // loops around it.
  arith::VarDomain outer;
  std::unordered_map<const VarNode*, const ForNode*> outer_loops;  // TVM's GetLoopDomain
  {
    std::vector<uint64_t> loops = s.enclosing_loops(loop_sid);
    loops.push_back(loop_sid);
    for (uint64_t l : loops) {
      const ForNode* f = &s.loop_at(l);
      outer[f->loop_var.get()] = arith::interval_of(Range{f->min, f->extent});
      outer_loops[f->loop_var.get()] = f;
    }
  }
  std::vector<Range> domain;
  for (size_t d = 0; d < relaxed.size(); ++d) {
    PrimExpr min = arith::simplify(relaxed[d].min);
    PrimExpr extent = arith::simplify(sub(add(relaxed[d].max, make_int(1, relaxed[d].max->dtype)), min));
    domain.push_back(Range{min, extent});
    arith::Interval lo = arith::eval_interval(min, outer), hi = arith::eval_interval(relaxed[d].max, outer);
    int64_t low = 0, room = 0;
    bool inside = lo.min && hi.max && as_const_int(arith::simplify(lo.min), &low) && low >= 0 &&
                  as_const_int(arith::simplify(sub(src->shape[d], add(hi.max, make_int(1, hi.max->dtype)))), &room) &&
                  room >= 0;
    if (!inside) {
      fail_not_supported(s, {loop_sid},
                         fmt::format("{} where the region of {} to copy may reach outside the buffer (dimension {})",
                                     prim, src->name, d));
    }
  }

  // Step 5. The copy block: its iterators are the outer loops the region names, in the order
  // they appear (v0, v1, ...); a loop nest ax0, ax1, ... inside it copies the region.
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
        fail_not_supported(s, {loop_sid},
                           fmt::format("{} where the region of {} depends on {}, which is not a loop around loop {{0}}",
                                       prim, src->name, v->name));
      }
      Var nv = make_var("v" + std::to_string(iter_vars.size()), v->dtype);
      bindings[v] = nv;
      iter_values.push_back(it->second->loop_var);
      iter_vars.push_back(IterVar{nv, Range{it->second->min, it->second->extent}, IterType::DataPar});
    }
    r = Range{substitute(r.min, bindings), substitute(r.extent, bindings)};
  }
  const Buffer& copy_from = is_read ? src : dst;
  const Buffer& copy_to = is_read ? dst : src;
  std::vector<LoopSpec> nest;
  std::vector<PrimExpr> indices;
  for (size_t d = 0; d < domain.size(); ++d) {
    Var ax = make_var("ax" + std::to_string(d), domain[d].extent->dtype);
    nest.push_back({ax, nullptr, domain[d].extent});
    indices.push_back(add(domain[d].min, ax));
  }
  Stmt store = std::make_shared<BufferStoreNode>(copy_to, buffer_load(copy_from, indices), indices);
  auto copy = std::make_shared<BlockNode>();
  copy->name = src->name + "_" + scope_name;
  copy->sid = s.fresh_sid();
  copy->iter_vars = iter_vars;
  copy->reads = {BufferRegion{copy_from, domain}};
  copy->writes = {BufferRegion{copy_to, domain}};
  copy->annotations.emplace_back("auto_copy", AttrValue::of_bool(true));
  copy->body = make_loop_nest(s, nest, store);
  Stmt realize = std::make_shared<BlockRealizeNode>(iter_values, make_bool(true), copy);

  // Step 6. Rewrite: the statements in [st, ed) access the new buffer, the copy goes in, and
  // the scope allocates the new buffer.
  for (size_t i = st; i < ed; ++i) subtrees[i] = replace_buffer(subtrees[i], src, dst);
  subtrees.insert(subtrees.begin() + static_cast<long>(insert_pos), realize);
  auto new_loop = std::make_shared<ForNode>(loop);
  new_loop->body = make_seq(subtrees);
  uint64_t scope = s.scope_block(loop_sid);
  s.replace(loop_sid, new_loop);
  rebuild_scope(s, scope, [&](BlockNode& b) { b.alloc_buffers.push_back(dst); });
  return copy->sid;
}

}  // namespace

uint64_t read_at(ScheduleState& s, uint64_t loop, uint64_t block, int64_t read_buffer_index, const std::string& scope) {
  return read_write_at(s, loop, block, read_buffer_index, scope, true);
}

uint64_t write_at(ScheduleState& s, uint64_t loop, uint64_t block, int64_t write_buffer_index,
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
          uint64_t loop = sch.loop_sid(c.inputs[0]);
          uint64_t block = sch.block_sid(c.inputs[1]);
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
