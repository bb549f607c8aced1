// tir.LowerMatchBuffer: accesses to a buffer declared with T.match_buffer (a view of a region
// of another buffer) become accesses to the source buffer, offset by the region's start.
#include <unordered_set>

#include "arith/simplify.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "transform/pass.h"

namespace tsch::transform {
namespace {

struct View {
  ir::BufferRegion source;
  std::vector<size_t> axes;  // source axis of each view axis (unit axes of the region skipped)
};

// A buffer's elem_offset as lowering sees it. A parameter's own variable is 0: the runtime
// passes the data pointer of a view already advanced by its offset (TVM binds it to the
// DLTensor's byte_offset).
ir::PrimExpr effective_elem_offset(const ir::Buffer& b,
                                   const std::unordered_map<const ir::VarNode*, ir::PrimExpr>& vars) {
  if (!b->elem_offset) return ir::make_int(0);
  return ir::substitute(b->elem_offset, vars);
}

// The strides of `b`: its own, else the compact row-major ones.
std::vector<ir::PrimExpr> strides_of(const ir::Buffer& b) {
  if (!b->strides.empty()) return b->strides;
  std::vector<ir::PrimExpr> out(b->shape.size());
  ir::DataType t = b->shape.empty() ? ir::DataType::int32() : b->shape[0]->dtype;
  ir::PrimExpr acc = ir::make_int(1, t);
  for (size_t i = b->shape.size(); i-- > 0;) {
    out[i] = acc;
    acc = ir::mul(acc, ir::cast(t, b->shape[i]));
  }
  return out;
}

class MatchBufferLowerer : public ir::IRMutator {
 public:
  explicit MatchBufferLowerer(const ir::PrimFunc& f) {
    for (const auto& [param, b] : f->buffer_map) {
      params_.insert(b.get());
      if (auto* v = b->elem_offset ? ir::as<ir::VarNode>(b->elem_offset) : nullptr)
        vars_[v] = ir::make_int(0, v->dtype);
    }
  }

  ir::PrimExpr mutate_Var(const ir::VarNode& v, const ir::PrimExpr& self) override {
    auto it = vars_.find(&v);
    return it == vars_.end() ? self : it->second;
  }

  ir::PrimExpr mutate_BufferLoad(const ir::BufferLoadNode& n, const ir::PrimExpr& self) override {
    ir::PrimExpr t = IRMutator::mutate_BufferLoad(n, self);
    auto* load = ir::as<ir::BufferLoadNode>(t);
    if (!load) return t;
    auto it = views_.find(load->buffer.get());
    if (it == views_.end()) return t;
    return std::make_shared<ir::BufferLoadNode>(load->dtype, it->second.source.buffer,
                                                source_indices(it->second, load->indices));
  }

  ir::Stmt mutate_BlockRealize(const ir::BlockRealizeNode& n, const ir::Stmt& self) override {
    if (n.block->match_buffers.empty()) return IRMutator::mutate_BlockRealize(n, self);
    const ir::BlockRealizeNode* realize = &n;
    std::vector<ir::Stmt> markers;
    for (const auto& m : realize->block->match_buffers) {
      ir::MatchBufferRegion bound{m.buffer, {m.source.buffer, {}}};
      for (const auto& r : m.source.region) bound.source.region.push_back({mutate(r.min), mutate(r.extent)});
      View v = make_view(bound);
      bool opaque = used_opaquely(*m.buffer, realize->block->body);
      if (opaque && movable(v.source.buffer))
        markers.push_back(region_marker(v.source, access_mask(*realize->block, m.source.buffer.get())));
      bind_view_vars(m.buffer, v, opaque);
      views_[m.buffer.get()] = v;
    }
    auto b = std::make_shared<ir::BlockNode>(*realize->block);
    b->match_buffers.clear();
    b->body = mutate(b->body);
    if (!markers.empty()) {
      markers.push_back(b->body);
      b->body = ir::make_seq(std::move(markers));
    }
    if (b->init) b->init = mutate(b->init);
    return std::make_shared<ir::BlockRealizeNode>(realize->iter_values, realize->predicate, b);
  }

  // The view's stores go to its source (which is never a view: nested views map to the outermost).
  ir::Stmt mutate_BufferStore(const ir::BufferStoreNode& n, const ir::Stmt& self) override {
    ir::Stmt t = IRMutator::mutate_BufferStore(n, self);
    auto* store = ir::as<ir::BufferStoreNode>(t);
    if (!store) return t;
    auto it = views_.find(store->buffer.get());
    if (it == views_.end()) return t;
    return std::make_shared<ir::BufferStoreNode>(it->second.source.buffer, store->value,
                                                 source_indices(it->second, store->indices));
  }

 private:
  View make_view(const ir::MatchBufferRegion& m) {
    View v{m.source, {}};
    // A nested view maps straight to the outermost source.
    auto outer = views_.find(m.source.buffer.get());
    if (outer != views_.end()) {
      std::vector<ir::PrimExpr> mins;
      for (const auto& r : m.source.region) mins.push_back(r.min);
      std::vector<ir::PrimExpr> src = source_indices(outer->second, mins);
      ir::BufferRegion flat{outer->second.source.buffer, {}};
      for (size_t i = 0; i < src.size(); ++i) flat.region.push_back({src[i], ir::make_int(1, src[i]->dtype)});
      // Keep the extents of the inner region on the axes it maps to.
      for (size_t k = 0; k < outer->second.axes.size() && k < m.source.region.size(); ++k)
        flat.region[outer->second.axes[k]].extent = m.source.region[k].extent;
      v.source = flat;
    }
    size_t rank = m.buffer->shape.size(), src_rank = v.source.region.size();
    std::vector<size_t> non_unit;
    for (size_t i = 0; i < src_rank; ++i)
      if (!ir::is_one(v.source.region[i].extent)) non_unit.push_back(i);
    if (rank == src_rank) {
      for (size_t i = 0; i < rank; ++i) v.axes.push_back(i);
    } else if (non_unit.size() == rank) {
      v.axes = non_unit;
    } else {
      for (size_t i = 0; i < rank; ++i) v.axes.push_back(src_rank - rank + i);  // trailing axes
    }
    return v;
  }

  // The view's own variables take the values its region gives them (TVM's LowerMatchBuffer
  // binds data, elem_offset, strides and shape): its data is the source's, its elem_offset
  // the source element at the region's start, its strides the source's on the axes it keeps.
  //
  // A view whose pointer, offset or strides the block uses itself (an access_ptr, the
  // tensor-core builtins) over a buffer the function allocates is expressed in placeholders —
  // T.tsch_buffer_elem_offset(data), T.tsch_buffer_stride(data, axis) — with a marker of the
  // region it covers (T.tsch_buffer_region(first element, last element)): the allocation's
  // layout is CompactBufferAllocation's to choose, and it resolves them (as TVM's order, which
  // compacts before lowering match buffers, gets for free).
  void bind_view_vars(const ir::Buffer& view, const View& v, bool opaque) {
    const ir::Buffer& src = v.source.buffer;
    auto bind = [&](const ir::PrimExpr& what, const ir::PrimExpr& value) {
      if (auto* var = what ? ir::as<ir::VarNode>(what) : nullptr; var && !vars_.count(var)) {
        vars_[var] = value->dtype == var->dtype ? value : ir::cast(var->dtype, value);
      }
    };
    bind(view->data, src->data);
    std::vector<ir::PrimExpr> strides = strides_of(src);
    ir::PrimExpr offset = effective_elem_offset(src, vars_);
    if (opaque && movable(src)) {
      ir::DataType t = offset->dtype;
      for (size_t i = 0; i < strides.size(); ++i)
        strides[i] =
            ir::call(strides[i]->dtype, "tsch_buffer_stride", {src->data, ir::make_int(static_cast<int64_t>(i))});
      offset = ir::call(t, "tsch_buffer_elem_offset", {src->data});
    }
    for (size_t i = 0; i < v.source.region.size(); ++i) {
      const ir::PrimExpr& min = v.source.region[i].min;
      offset = ir::add(offset, ir::mul(ir::cast(offset->dtype, min), ir::cast(offset->dtype, strides[i])));
    }
    bind(view->elem_offset, arith::simplify(offset));
    for (size_t k = 0; k < view->strides.size() && k < v.axes.size(); ++k) bind(view->strides[k], strides[v.axes[k]]);
    for (size_t k = 0; k < view->shape.size() && k < v.axes.size(); ++k)
      bind(view->shape[k], v.source.region[v.axes[k]].extent);
  }

  // Whether the block uses the view's pointer, offset or strides other than through loads and
  // stores of the view.
  static bool used_opaquely(const ir::BufferNode& view, const ir::Stmt& body) {
    std::unordered_set<const ir::VarNode*> own{view.data.get()};
    if (auto* v = view.elem_offset ? ir::as<ir::VarNode>(view.elem_offset) : nullptr) own.insert(v);
    for (const auto& st : view.strides)
      if (auto* v = ir::as<ir::VarNode>(st)) own.insert(v);
    bool used = false;
    ir::for_each_expr(body, [&](const ir::PrimExpr& e) {
      if (auto* v = ir::as<ir::VarNode>(e); v && own.count(v)) used = true;
    });
    return used;
  }
  // An allocated buffer of the default layout, which CompactBufferAllocation may reshape.
  bool movable(const ir::Buffer& b) const { return !params_.count(b.get()) && b->strides.empty() && !b->elem_offset; }

  // 1: the block reads the buffer, 2: writes it, 3: both (its declared regions).
  static int64_t access_mask(const ir::BlockNode& block, const ir::BufferNode* buf) {
    int64_t mask = 0;
    for (const auto& r : block.reads)
      if (r.buffer.get() == buf) mask |= 1;
    for (const auto& r : block.writes)
      if (r.buffer.get() == buf) mask |= 2;
    return mask ? mask : 3;
  }

  static ir::Stmt region_marker(const ir::BufferRegion& r, int64_t mask) {
    std::vector<ir::PrimExpr> first, last;
    for (const auto& d : r.region) {
      first.push_back(d.min);
      last.push_back(arith::simplify(ir::sub(ir::add(d.min, d.extent), ir::make_int(1, d.extent->dtype))));
    }
    return std::make_shared<ir::EvaluateNode>(
        ir::call(ir::DataType::int32(), "tsch_buffer_region",
                 {ir::buffer_load(r.buffer, first), ir::buffer_load(r.buffer, last), ir::make_int(mask)}));
  }

  std::vector<ir::PrimExpr> source_indices(const View& v, const std::vector<ir::PrimExpr>& idx) {
    std::vector<ir::PrimExpr> out;
    for (const auto& r : v.source.region) out.push_back(r.min);
    for (size_t k = 0; k < idx.size() && k < v.axes.size(); ++k) {
      size_t ax = v.axes[k];
      ir::PrimExpr i = ir::cast(out[ax]->dtype.with_lanes(idx[k]->dtype.lanes), idx[k]);
      // A ramp keeps its form with the region's start in its base.
      auto* ramp = ir::as<ir::RampNode>(i);
      out[ax] = ramp && out[ax]->dtype.lanes == 1
                    ? std::make_shared<ir::RampNode>(ir::add(out[ax], ramp->base), ramp->stride, ramp->lanes)
                    : ir::add(out[ax], i);
    }
    return out;
  }

  std::unordered_map<const ir::BufferNode*, View> views_;
  std::unordered_map<const ir::VarNode*, ir::PrimExpr> vars_;
  std::unordered_set<const ir::BufferNode*> params_;
};

}  // namespace

Pass lower_match_buffer() {
  return {"tir.LowerMatchBuffer",
          [](const ir::PrimFunc& f) { return with_body(f, MatchBufferLowerer(f).mutate(f->body)); }};
}

}  // namespace tsch::transform
