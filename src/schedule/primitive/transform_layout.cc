// transform_layout: re-index a buffer through an index map (`lambda i, j: (i // 16, j, i % 16)`),
// changing its shape and every access, read/write region and allocation (TVM's
// TransformLayout), or the parameter's buffer_map entry. The map must be a bijective
// affine map of the buffer's index space.
#include <fmt/format.h>

#include "arith/int_set.h"
#include "arith/iter_map.h"
#include "arith/simplify.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "ir/printer.h"
#include "schedule/error.h"
#include "schedule/primitives.h"
#include "schedule/utils.h"

namespace tsch::schedule {

using namespace ir;

namespace {

// The index map applied to one access, and to a region (its bounding box).
BufferReindex through_index_map(const std::vector<Var>& params, const std::vector<PrimExpr>& outputs) {
  BufferReindex reindex;
  reindex.indices = [&params, &outputs](const std::vector<PrimExpr>& indices) {
    std::unordered_map<const VarNode*, PrimExpr> vmap;
    for (size_t i = 0; i < params.size(); ++i) vmap[params[i].get()] = indices[i];
    std::vector<PrimExpr> out;
    for (const auto& o : outputs) out.push_back(arith::simplify(substitute(o, vmap)));
    return out;
  };
  reindex.region = [&params, &outputs](const std::vector<Range>& region) {
    arith::VarDomain dom;
    for (size_t i = 0; i < params.size(); ++i) dom[params[i].get()] = arith::interval_of(region[i]);
    std::vector<Range> out;
    for (const auto& o : outputs) out.push_back(arith::range_of(arith::eval_interval(o, dom)));
    return out;
  };
  return reindex;
}

bool is_matched(const ScheduleState& s, const std::string& func, const Buffer& buffer) {
  for (uint64_t b : s.blocks_in(func)) {
    for (const auto& m : s.block(b)->match_buffers) {
      if (m.source.buffer == buffer) return true;
    }
  }
  return false;
}

}  // namespace

void transform_layout(ScheduleState& s, uint64_t block_sid, const Buffer& buffer, const std::vector<Var>& params,
                      const std::vector<PrimExpr>& outputs) {
  // Step 1. Check: a buffer allocated in the function; a bijective affine map of its shape.
  const std::string& func = s.info(block_sid)->func;
  uint64_t root = s.root_of(func);
  bool allocated = false;
  for (const auto& a : s.block(root)->alloc_buffers) allocated |= a == buffer;
  for (uint64_t b : s.blocks_in(func)) {
    for (const auto& a : s.block(b)->alloc_buffers) allocated |= a == buffer;
  }
  bool is_param = false;
  for (const auto& [name, f] : s.mod()->functions) {
    if (name != func) continue;
    for (const auto& [param, b] : f->buffer_map) is_param |= b == buffer;
  }
  if (!allocated && !is_param) {
    fail("transform_layout", {block_sid}, "Buffer " + buffer->name + " is neither allocated in nor a parameter of function " + func);
  }
  if (is_matched(s, func, buffer)) {
    fail("transform_layout", {block_sid}, "not supported yet: transform_layout of a buffer used by T.match_buffer (" + buffer->name + ")");
  }
  if (params.size() != buffer->shape.size()) {
    fail("transform_layout", {block_sid},
         fmt::format("The index map takes {} indices but buffer {} has {} dimensions", params.size(), buffer->name, buffer->shape.size()));
  }
  arith::LoopExtents extents;
  arith::VarDomain dom;
  for (size_t i = 0; i < params.size(); ++i) {
    int64_t n;
    if (!as_const_int(buffer->shape[i], &n)) fail("transform_layout", {block_sid}, "not supported yet: transform_layout of a buffer with a symbolic shape");
    extents[params[i].get()] = n;
    dom[params[i].get()] = arith::Interval{make_int(0, params[i]->dtype), make_int(n - 1, params[i]->dtype)};
  }
  arith::IterMapResult map = arith::detect_iter_map(outputs, extents, true);
  if (!map.ok) fail("transform_layout", {block_sid}, "The index map is not bijective affine: the map " + map.error);
  std::vector<PrimExpr> shape;
  for (const auto& o : outputs) {
    arith::Interval range = arith::eval_interval(o, dom);
    int64_t lo, hi;
    if (!range.min || !as_const_int(range.min, &lo) || !as_const_int(range.max, &hi) || lo != 0) {
      fail("transform_layout", {block_sid}, "The index map's outputs must range over [0, n): " + ir::script(o));
    }
    shape.push_back(make_int(hi + 1, buffer->shape[0]->dtype));
  }
  // Step 2. Rewrite the whole function.
  Buffer changed = buffer_with(buffer, buffer->name, shape, buffer->scope);
  BufferReindex reindex = through_index_map(params, outputs);
  Stmt new_root = replace_buffer(Stmt(std::make_shared<BlockNode>(*s.block(root))), buffer, changed, &reindex);
  const BlockRealizeNode* r = s.info(root)->realize;
  s.replace(root, std::make_shared<BlockRealizeNode>(r->iter_values, r->predicate, std::static_pointer_cast<const BlockNode>(new_root)));
  if (is_param) s.replace_param_buffer(func, buffer, changed);
}

}  // namespace tsch::schedule
