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

namespace tsch::schedule {

using namespace ir;

namespace {

class Relayout : public IRMutator {
 public:
  Relayout(const Buffer& from, const Buffer& to, const std::vector<Var>& params, const std::vector<PrimExpr>& outputs)
      : from_(from), to_(to), params_(params), outputs_(outputs) {}

  std::vector<PrimExpr> map(const std::vector<PrimExpr>& indices) const {
    std::unordered_map<const VarNode*, PrimExpr> vmap;
    for (size_t i = 0; i < params_.size(); ++i) vmap[params_[i].get()] = indices[i];
    std::vector<PrimExpr> out;
    for (const auto& o : outputs_) out.push_back(arith::simplify(substitute(o, vmap)));
    return out;
  }

  BufferRegion map_region(const BufferRegion& r) const {
    arith::VarDomain dom;
    for (size_t i = 0; i < params_.size(); ++i) dom[params_[i].get()] = arith::interval_of(r.region[i]);
    BufferRegion out{to_, {}};
    for (const auto& o : outputs_) out.region.push_back(arith::range_of(arith::eval_interval(o, dom)));
    return out;
  }

  PrimExpr mutate(const PrimExpr& e) override {
    PrimExpr out = mutate_children(e);
    if (auto* load = as<BufferLoadNode>(out); load && load->buffer == from_) {
      return std::make_shared<BufferLoadNode>(load->dtype, to_, map(load->indices));
    }
    return out;
  }
  Stmt mutate(const Stmt& s) override {
    Stmt out = mutate_children(s);
    if (auto* store = as<BufferStoreNode>(out); store && store->buffer == from_) {
      return std::make_shared<BufferStoreNode>(to_, store->value, map(store->indices));
    }
    if (auto* block = as<BlockNode>(out)) {
      auto copy = std::make_shared<BlockNode>(*block);
      bool touched = false;
      for (auto* regions : {&copy->reads, &copy->writes}) {
        for (auto& r : *regions) {
          if (r.buffer == from_) {
            r = map_region(r);
            touched = true;
          }
        }
      }
      for (auto& b : copy->alloc_buffers) {
        if (b == from_) {
          b = to_;
          touched = true;
        }
      }
      return touched ? Stmt(copy) : out;
    }
    return out;
  }

 private:
  const Buffer& from_;
  const Buffer& to_;
  const std::vector<Var>& params_;
  const std::vector<PrimExpr>& outputs_;
};

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
  Relayout relayout(buffer, changed, params, outputs);
  const BlockNode* root_block = s.block(root);
  Stmt new_root = relayout.mutate(Stmt(std::make_shared<BlockNode>(*root_block)));
  const BlockRealizeNode* r = s.info(root)->realize;
  s.replace(root, std::make_shared<BlockRealizeNode>(r->iter_values, r->predicate, std::static_pointer_cast<const BlockNode>(new_root)));
  if (is_param) s.replace_param_buffer(func, buffer, changed);
}

}  // namespace tsch::schedule
