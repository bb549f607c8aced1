// tir.LowerMatchBuffer: accesses to a buffer declared with T.match_buffer (a view of a region
// of another buffer) become accesses to the source buffer, offset by the region's start.
#include "ir/functor.h"
#include "ir/op.h"
#include "transform/pass.h"

namespace tsch::transform {
namespace {

struct View {
  ir::BufferRegion source;
  std::vector<size_t> axes;  // source axis of each view axis (unit axes of the region skipped)
};

class MatchBufferLowerer : public ir::IRMutator {
 public:
  using IRMutator::mutate;
  ir::PrimExpr mutate(const ir::PrimExpr& e) override {
    ir::PrimExpr t = mutate_children(e);
    auto* load = ir::as<ir::BufferLoadNode>(t);
    if (!load) return t;
    auto it = views_.find(load->buffer.get());
    if (it == views_.end()) return t;
    return std::make_shared<ir::BufferLoadNode>(load->dtype, it->second.source.buffer, source_indices(it->second, load->indices));
  }

  ir::Stmt mutate(const ir::Stmt& s) override {
    if (auto* realize = ir::as<ir::BlockRealizeNode>(s); realize && !realize->block->match_buffers.empty()) {
      for (const auto& m : realize->block->match_buffers) views_[m.buffer.get()] = make_view(m);
      auto b = std::make_shared<ir::BlockNode>(*realize->block);
      b->match_buffers.clear();
      b->body = mutate(b->body);
      if (b->init) b->init = mutate(b->init);
      return std::make_shared<ir::BlockRealizeNode>(realize->iter_values, realize->predicate, b);
    }
    ir::Stmt t = mutate_children(s);
    auto* store = ir::as<ir::BufferStoreNode>(t);
    if (!store) return t;
    auto it = views_.find(store->buffer.get());
    if (it == views_.end()) return t;
    return std::make_shared<ir::BufferStoreNode>(it->second.source.buffer, store->value, source_indices(it->second, store->indices));
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

  std::vector<ir::PrimExpr> source_indices(const View& v, const std::vector<ir::PrimExpr>& idx) {
    std::vector<ir::PrimExpr> out;
    for (const auto& r : v.source.region) out.push_back(r.min);
    for (size_t k = 0; k < idx.size() && k < v.axes.size(); ++k) {
      size_t ax = v.axes[k];
      out[ax] = ir::add(out[ax], ir::cast(out[ax]->dtype, idx[k]));
    }
    return out;
  }

  std::unordered_map<const ir::BufferNode*, View> views_;
};

}  // namespace

Pass lower_match_buffer() {
  return {"tir.LowerMatchBuffer", [](const ir::PrimFunc& f) { return with_body(f, MatchBufferLowerer().mutate(f->body)); }};
}

}  // namespace tsch::transform
