// pad_einsum: an einsum block's iterators padded up to multiples of `padding` (TVM's
// PadEinsum). Every buffer an padded iterator indexes gets a padded copy `X_pad` allocated in
// the scope: inputs are copied in before the block (zero where the original has no element),
// outputs copied back after it (the original extent only); the block and the loops bound to
// its padded iterators run over the padded extents.
#include <fmt/format.h>

#include <unordered_set>

#include "arith/block_access.h"
#include "arith/simplify.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "schedule/analysis.h"
#include "schedule/block_scope.h"
#include "schedule/error.h"
#include "schedule/kind_registration.h"
#include "schedule/primitives.h"
#include "schedule/transform.h"
#include "schedule/utils.h"

namespace tsch::schedule {

using namespace ir;

namespace {

TSCH_SCHEDULE_ERROR_KIND(kInvalidPaddingError, "InvalidPaddingError", "The padding size for the block is invalid.",
                         "The padding for the block {0} are invalid.");
TSCH_SCHEDULE_ERROR_KIND(kNonEinsumError, "NonEinsumError", "The block is not a computation of Einsum pattern.",
                         "The block {0} not a computation of Einsum pattern.");

// The variables of a region whose dimensions are single points at a variable or a constant
// (TVM's CheckTrivialBufferAccess); false otherwise.
bool trivial_access(const BufferRegion& region) {
  for (const Range& r : region.region) {
    if (!is_one(r.extent)) return false;
    if (r.min->kind != ExprKind::IntImm && r.min->kind != ExprKind::Var) return false;
  }
  return true;
}

// Whether a padded instance of the reduction adds nothing: the update is `out + e` (or
// `e + out`) where `e` is a product one of whose factors loads a buffer indexed by a padded
// reduction iterator, which reads zero there. TVM pads any update; a padded `+ 1` or a `max`
// over negative values would change the result, so tsch refuses those.
bool padded_reduction_adds_zero(const BlockNode& block, const std::unordered_set<const VarNode*>& padded_reduce) {
  auto* store = as<BufferStoreNode>(block.body);
  if (!store || store->value->kind != ExprKind::Add) return false;
  auto is_self = [&](const PrimExpr& e) {
    auto* load = as<BufferLoadNode>(e);
    return load && load->buffer == store->buffer;
  };
  PrimExpr term = is_self(binary_a(store->value))   ? binary_b(store->value)
                  : is_self(binary_b(store->value)) ? binary_a(store->value)
                                                    : nullptr;
  if (!term) return false;
  std::vector<PrimExpr> factors;
  std::function<void(const PrimExpr&)> collect = [&](const PrimExpr& e) {
    if (e->kind == ExprKind::Mul) {
      collect(binary_a(e));
      collect(binary_b(e));
    } else {
      factors.push_back(e);
    }
  };
  collect(term);
  for (const PrimExpr& f : factors) {
    auto* load = as<BufferLoadNode>(f);
    if (!load) continue;
    for (const PrimExpr& index : load->indices) {
      if (auto* v = as<VarNode>(index); v && padded_reduce.count(v)) return true;
    }
  }
  return false;
}

// An integer division whose divisor is not a constant: a padded instance would divide by the
// zero its padded operand reads.
bool has_variable_integer_division(const Stmt& body) {
  bool found = false;
  for_each_expr(body, [&](const PrimExpr& e) {
    if ((e->kind == ExprKind::Div || e->kind == ExprKind::Mod || e->kind == ExprKind::FloorDiv ||
         e->kind == ExprKind::FloorMod) &&
        !e->dtype.is_float() && binary_b(e)->kind != ExprKind::IntImm)
      found = true;
  });
  return found;
}

// The copy of `from` into `to` over `shape` (i0, i1, ... bound to v0, v1, ...): an input
// copied in with zero where `from` has no element, or an output copied back.
Stmt make_copy(ScheduleState& s, const Buffer& from, const Buffer& to, const std::vector<PrimExpr>& shape, bool copy_in,
               const Buffer& original) {
  auto block = std::make_shared<BlockNode>();
  block->name = copy_in ? to->name : from->name;
  block->sid = s.fresh_sid();
  std::vector<LoopSpec> loops;
  std::vector<PrimExpr> bindings, indices;
  for (size_t d = 0; d < shape.size(); ++d) {
    DataType t = shape[d]->dtype;
    Var loop = make_var("i" + std::to_string(d), t);
    Var v = make_var("v" + std::to_string(d), t);
    loops.push_back(LoopSpec{loop, nullptr, shape[d]});
    bindings.push_back(loop);
    block->iter_vars.push_back(IterVar{v, Range{make_int(0, t), shape[d]}, IterType::DataPar});
    indices.push_back(v);
  }
  PrimExpr value = buffer_load(from, indices);
  if (copy_in) {
    PrimExpr pred;
    for (size_t d = 0; d < shape.size(); ++d) {
      if (arith::can_prove(make_binary(ExprKind::EQ, original->shape[d], to->shape[d]), {})) continue;
      PrimExpr term = make_binary(ExprKind::LT, indices[d], original->shape[d]);
      pred = pred ? make_binary(ExprKind::And, pred, term) : term;
    }
    if (pred) value = call(value->dtype, "if_then_else", {pred, value, make_const(value->dtype, 0)});
  }
  block->body = std::make_shared<BufferStoreNode>(to, value, indices);
  arith::AccessRegions regions = arith::infer_access_regions(block->body, nullptr);
  block->reads = regions.reads;
  block->writes = regions.writes;
  return make_loop_nest(s, loops, std::make_shared<BlockRealizeNode>(bindings, make_bool(true), block));
}

// Step 1: one positive integer per iterator (TVM's InvalidPaddingError).
void check_padding_valid(const ScheduleState& s, BlockSid block_sid, const BlockNode& block,
                         const std::vector<int64_t>& padding) {
  bool valid = padding.size() == block.iter_vars.size();
  for (int64_t p : padding) valid = valid && p > 0;
  if (valid) return;
  std::string got;
  for (int64_t p : padding) got += (got.empty() ? "" : ", ") + std::to_string(p);
  fail(s, kInvalidPaddingError, {block_sid},
       fmt::format("The padding for the block {{0}} are invalid. It should be a list of {} positive integers. Got [{}]",
                   block.iter_vars.size(), got));
}

// Step 2: an einsum — every access a point at iterators or constants, each buffer once.
void check_einsum(const ScheduleState& s, BlockSid block_sid, const BlockNode& block) {
  std::unordered_set<const BufferNode*> used;
  for (const auto* regions : {&block.reads, &block.writes}) {
    for (const BufferRegion& r : *regions) {
      if (!used.insert(r.buffer.get()).second || !trivial_access(r)) fail(s, kNonEinsumError, {block_sid});
    }
  }
}

// The iterators whose extents grow, and the loops bound to them.
struct PaddedIters {
  std::unordered_map<const VarNode*, PrimExpr> extents;       // iterator -> padded extent
  std::unordered_map<const VarNode*, PrimExpr> loop_extents;  // loop bound to one -> extent
  std::unordered_set<const VarNode*> reductions;
};

// Step 3: the padded extents; only spatial and reduction iterators can be padded.
PaddedIters padded_iters(const ScheduleState& s, BlockSid block_sid, const std::vector<int64_t>& padding) {
  const BlockNode* block = &s.block_at(block_sid);
  const BlockRealizeNode* realize = s.info(block_sid)->realize;
  PaddedIters out;
  for (size_t i = 0; i < padding.size(); ++i) {
    const IterVar& iv = block->iter_vars[i];
    PrimExpr extent = iv.dom.extent;
    PrimExpr p = make_int(padding[i], extent->dtype);
    PrimExpr new_extent = arith::simplify(mul(floordiv(add(extent, sub(p, make_int(1, extent->dtype))), p), p));
    if (arith::can_prove(make_binary(ExprKind::EQ, new_extent, extent), {})) continue;
    out.extents[iv.var.get()] = new_extent;
    if (iv.type == IterType::CommReduce)
      out.reductions.insert(iv.var.get());
    else if (iv.type != IterType::DataPar)
      fail_not_supported(s, {block_sid}, "pad_einsum of an iterator that is neither spatial nor a reduction");
    if (auto* loop_var = as<VarNode>(realize->iter_values[i])) out.loop_extents[loop_var] = new_extent;
  }
  return out;
}

// The padded instances must leave the result as it is.
void check_padded_instances_harmless(const ScheduleState& s, BlockSid block_sid, const BlockNode& block,
                                     const PaddedIters& iters) {
  if (!iters.reductions.empty() && !padded_reduction_adds_zero(block, iters.reductions)) {
    fail_not_supported(
        s, {block_sid},
        "pad_einsum of a reduction iterator whose padded iterations would change the result (tsch pads a "
        "reduction only when its update adds a product with an operand the padding makes zero)");
  }
  if (has_variable_integer_division(block.body))
    fail_not_supported(s, {block_sid},
                       "pad_einsum of a block dividing integers by a value its padded instances may read as zero");
}

// The top-level statement of the scope holding the block, and the loops from it down to the
// block.
struct BlockNest {
  std::vector<Stmt> items;  // the scope body's top-level statements
  size_t pos;               // the one holding the block
  std::vector<const ForNode*> chain;
};

// Step 4: that statement must be a nest of loops around the block alone (the copies go
// before and after it; another block in it would see them reordered).
BlockNest find_block_nest(const ScheduleState& s, BlockSid scope_sid, BlockSid block_sid) {
  const BlockNode* block = &s.block_at(block_sid);
  BlockNest out{body_items(s.block_at(scope_sid).body), 0, {}};
  out.pos = out.items.size();
  for (size_t k = 0; k < out.items.size() && out.pos == out.items.size(); ++k) {
    bool found = false;
    for_each_stmt(out.items[k], [&](const Stmt& st) {
      if (auto* r = as<BlockRealizeNode>(st); r && r->block.get() == block) found = true;
    });
    if (found) out.pos = k;
  }
  Stmt cur = out.items.at(out.pos);
  while (auto* f = as<ForNode>(cur)) {
    out.chain.push_back(f);
    cur = f->body;
  }
  if (cur.get() != s.info(block_sid)->realize)
    fail_not_supported(s, {block_sid}, "pad_einsum of a block whose outermost loop holds other statements too");
  return out;
}

// The padded buffers and the blocks copying into them before and out of them after.
struct PaddedCopies {
  std::vector<Stmt> before, after;
  std::vector<Buffer> allocs;
  std::vector<std::pair<Buffer, Buffer>> replaced;
};

// `X_pad` for an access some padded iterator indexes: the padded extent there, 1 where the
// access is at a constant.
Buffer padded_buffer(const BufferRegion& r, const PaddedIters& iters) {
  auto n = std::make_shared<BufferNode>(*r.buffer);
  n->name = r.buffer->name + "_pad";
  n->data = buffer_data_var(n->name, n->dtype, n->scope);
  n->strides.clear();
  n->elem_offset = nullptr;
  for (size_t d = 0; d < r.region.size(); ++d) {
    const PrimExpr& min = r.region[d].min;
    if (min->kind == ExprKind::IntImm) {
      n->shape[d] = make_int(1, min->dtype);
    } else if (auto it = iters.extents.find(static_cast<const VarNode*>(min.get())); it != iters.extents.end()) {
      n->shape[d] = it->second;
    }
  }
  return Buffer(n);
}

// Step 5: a padded copy of every buffer a padded iterator indexes.
PaddedCopies padded_copies(ScheduleState& s, const BlockNode& block, const PaddedIters& iters) {
  auto needs_padding = [&](const BufferRegion& r) {
    for (const Range& range : r.region) {
      if (auto* v = as<VarNode>(range.min); v && iters.extents.count(v)) return true;
    }
    return false;
  };
  PaddedCopies out;
  for (const BufferRegion& r : block.reads) {
    if (!needs_padding(r)) continue;
    Buffer to = padded_buffer(r, iters);
    out.before.push_back(make_copy(s, r.buffer, to, to->shape, /*copy_in=*/true, r.buffer));
    out.allocs.push_back(to);
    out.replaced.push_back({r.buffer, to});
  }
  for (const BufferRegion& r : block.writes) {
    if (!needs_padding(r)) continue;
    Buffer to = padded_buffer(r, iters);
    out.after.push_back(make_copy(s, to, r.buffer, r.buffer->shape, /*copy_in=*/false, r.buffer));
    out.allocs.push_back(to);
    out.replaced.push_back({r.buffer, to});
  }
  return out;
}

// Step 6: the block over the padded extents, reading and writing the padded buffers, inside
// its loops with the padded ones extended.
Stmt padded_nest(const BlockRealizeNode& realize, const BlockNest& nest_at, const PaddedIters& iters,
                 const PaddedCopies& copies) {
  auto new_block = std::make_shared<BlockNode>(*realize.block);
  for (IterVar& iv : new_block->iter_vars) {
    if (auto it = iters.extents.find(iv.var.get()); it != iters.extents.end()) iv.dom.extent = it->second;
  }
  Stmt nest = std::make_shared<BlockRealizeNode>(realize.iter_values, realize.predicate, Block(new_block));
  for (const auto& [from, to] : copies.replaced) nest = replace_buffer(nest, from, to);
  for (size_t k = nest_at.chain.size(); k-- > 0;) {
    const ForNode* original = nest_at.chain[k];
    auto loop = std::make_shared<ForNode>(*original);
    if (auto it = iters.loop_extents.find(original->loop_var.get()); it != iters.loop_extents.end())
      loop->extent = it->second;
    loop->body = nest;
    nest = loop;
  }
  return nest;
}

}  // namespace

void pad_einsum(ScheduleState& s, BlockSid block_sid, const std::vector<int64_t>& padding) {
  const BlockNode* block = &s.block_at(block_sid);
  const BlockRealizeNode* realize = s.info(block_sid)->realize;
  BlockSid scope_sid = s.scope_block(block_sid);
  check_stage_pipeline(s, scope_sid);
  check_padding_valid(s, block_sid, *block, padding);
  check_einsum(s, block_sid, *block);
  PaddedIters iters = padded_iters(s, block_sid, padding);
  check_padded_instances_harmless(s, block_sid, *block, iters);
  BlockNest nest_at = find_block_nest(s, scope_sid, block_sid);
  PaddedCopies copies = padded_copies(s, *block, iters);
  Stmt nest = padded_nest(*realize, nest_at, iters, copies);
  const std::vector<Stmt>& items = nest_at.items;
  std::vector<Stmt> new_items(items.begin(), items.begin() + nest_at.pos);
  new_items.insert(new_items.end(), copies.before.begin(), copies.before.end());
  new_items.push_back(nest);
  new_items.insert(new_items.end(), copies.after.begin(), copies.after.end());
  new_items.insert(new_items.end(), items.begin() + nest_at.pos + 1, items.end());
  rebuild_scope(s, scope_sid, [&](BlockNode& scope) {
    scope.body = rewrap(peel_decls(scope.body).wrappers, make_seq(new_items));
    scope.alloc_buffers.insert(scope.alloc_buffers.end(), copies.allocs.begin(), copies.allocs.end());
  });
}

}  // namespace tsch::schedule

// ---- instruction kind

namespace tsch::schedule {

void register_pad_einsum_kinds(KindList& kinds) {
  kinds.push_back(define_kind(
      "PadEinsum", "pad_einsum", {input("block", ParamType::Block), attr("padding", ParamType::IntList)},
      OutputForm::None,
      [](Schedule& sch, InstructionCall& c) {
        std::vector<int64_t> padding;
        for (const TraceArg& a : c.attrs[0].list) padding.push_back(a.as_int());
        pad_einsum(sch.state(), sch.block_sid(c.inputs[0]), padding);
      },
      "pad_einsum(block, padding): pad the einsum block's iterators to multiples of padding; the buffers they index "
      "get "
      "padded copies (X_pad), inputs copied in with zeros before the block, outputs copied back after it.",
      "every access of the block is a point at iterators or constants, each buffer accessed once; one positive integer "
      "per "
      "iterator",
      "C[i, j] += A[i, k] * B[j, k] over j in n, padding [32, 32, 32]  ->  B_pad (n padded to (n + 31) // 32 * 32) "
      "copied in, "
      "C computed into C_pad, C_pad copied back into C"));
}

}  // namespace tsch::schedule
