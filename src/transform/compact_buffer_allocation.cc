// tir.CompactBufferAllocation: an allocated buffer shrinks to the region its accesses touch
// while the loops inside the allocation run: each dimension becomes the constant extent of
// that region and accesses are shifted by its start (an expression of the outer loops).
// Dimensions whose extent is not constant keep their size. A shared buffer allocated under
// threadIdx loops covers the region of all their threads. A buffer storage_align asked for
// gets strides padded as it asked (TVM applies buffer_dim_align here too).
#include <cstdlib>
#include <optional>

#include "arith/int_set.h"
#include "arith/simplify.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "ir/printer.h"
#include "ir/thread_storage_scope.h"
#include "transform/buffer_rewrite.h"
#include "transform/pass.h"

namespace tsch::transform {
namespace {

struct Region {
  std::vector<ir::PrimExpr> shape, offset;
};

arith::Interval range_of(const ir::ForNode* l) {
  return {l->min, arith::simplify(ir::sub(ir::add(l->min, l->extent), ir::make_int(1, l->extent->dtype)))};
}

// The region of `buf` its accesses in `body` touch with the variables of `dom` over their
// ranges: per dimension its start and constant extent (the whole dimension when not constant).
// `known` holds the ranges of the loops around the allocation: their variables stay symbolic
// (each iteration has its own region) but their ranges simplify the indices and the extents
// (`by % 512` is `by` in a blockIdx loop of 512, so two accesses written either way agree).
std::optional<Region> touched_region(const ir::Stmt& body, const ir::Buffer& buf, const arith::VarDomain& dom,
                                     const arith::VarDomain& known) {
  arith::VarDomain all = known;
  for (const auto& [v, range] : dom) all[v] = range;
  size_t rank = buf->shape.size();
  std::vector<std::optional<arith::Interval>> region(rank);
  bool ok = true;
  auto cover = [&](const std::vector<ir::PrimExpr>& idx) {
    if (idx.size() != rank) {
      ok = false;
      return;
    }
    for (size_t d = 0; d < rank; ++d) {
      arith::Interval iv = arith::eval_interval(arith::simplify(idx[d], all), dom);
      if (!iv.min || !iv.max) {
        ok = false;
        return;
      }
      region[d] = region[d] ? arith::interval_union(*region[d], iv) : iv;
    }
  };
  ir::for_each_expr(body, [&](const ir::PrimExpr& e) {
    if (auto* load = ir::as<ir::BufferLoadNode>(e); load && load->buffer == buf) cover(load->indices);
  });
  ir::for_each_stmt(body, [&](const ir::Stmt& x) {
    if (auto* store = ir::as<ir::BufferStoreNode>(x); store && store->buffer == buf) cover(store->indices);
  });
  if (!ok) return std::nullopt;
  Region out;
  for (size_t d = 0; d < rank; ++d) {
    int64_t extent, full;
    ir::PrimExpr lo = region[d] ? arith::simplify(region[d]->min, known) : ir::PrimExpr();
    ir::PrimExpr ext =
        region[d] ? arith::simplify(
                        ir::add(ir::sub(region[d]->max, region[d]->min), ir::make_int(1, region[d]->min->dtype)), known)
                  : ir::PrimExpr();
    if (lo && ir::as_const_int(ext, &extent) && extent > 0 &&
        (!ir::as_const_int(buf->shape[d], &full) || extent <= full)) {
      out.shape.push_back(ir::make_int(extent, buf->shape[d]->dtype));
      out.offset.push_back(lo);
    } else {
      out.shape.push_back(buf->shape[d]);
      out.offset.push_back(ir::make_int(0, buf->shape[d]->dtype));
    }
  }
  return out;
}

// Whether consecutive iterations of each pipelined loop touch regions that cannot overlap:
// some dimension's start moves by at least its extent per iteration. Then no value passes
// from one iteration to the next through the buffer, and one iteration's region is enough.
bool disjoint_per_iteration(const Region& r, const std::vector<const ir::ForNode*>& loops) {
  for (const ir::ForNode* l : loops) {
    bool uses = false, disjoint = false;
    for (size_t d = 0; d < r.offset.size(); ++d) {
      const ir::VarNode* v = l->loop_var.get();
      if (!ir::uses_var(r.offset[d], [v](const ir::VarNode* x) { return x == v; })) continue;
      uses = true;
      ir::PrimExpr next = ir::substitute(r.offset[d], {{v, ir::add(l->loop_var, ir::make_int(1, l->loop_var->dtype))}});
      int64_t step, extent;
      if (ir::as_const_int(arith::simplify(ir::sub(next, r.offset[d])), &step) &&
          ir::as_const_int(r.shape[d], &extent) && std::abs(step) >= extent)
        disjoint = true;
    }
    if (uses && !disjoint) return false;
  }
  return true;
}

// LowerMatchBuffer's placeholders for a view of an allocated buffer whose pointer is used
// itself (lower_match_buffer.cc) resolved against the layout the buffer now has: its data, its
// strides, and an offset that moves the view's start by the region's shift; its region markers
// dropped.
class ResolvePlaceholders : public ir::IRMutator {
 public:
  ResolvePlaceholders(const ir::VarNode* old_data, ir::Buffer now, const std::vector<ir::PrimExpr>& shift,
                      const arith::VarDomain& ranges)
      : old_(old_data), now_(std::move(now)), ranges_(ranges) {
    strides_ = now_->strides;
    if (strides_.empty()) {
      strides_.resize(now_->shape.size());
      ir::PrimExpr acc = ir::make_int(1);
      for (size_t i = now_->shape.size(); i-- > 0;) {
        strides_[i] = acc;
        acc = arith::simplify(ir::mul(acc, ir::cast(ir::DataType::int32(), now_->shape[i])));
      }
    }
    offset_ = ir::make_int(0);
    for (size_t i = 0; i < shift.size() && i < strides_.size(); ++i)
      offset_ = ir::sub(
          offset_, ir::mul(ir::cast(ir::DataType::int32(), shift[i]), ir::cast(ir::DataType::int32(), strides_[i])));
    offset_ = arith::simplify(offset_);
  }
  ir::PrimExpr mutate_Var(const ir::VarNode& v, const ir::PrimExpr& self) override {
    return &v == old_ ? now_->data : self;
  }

  ir::PrimExpr mutate_Call(const ir::CallNode& n, const ir::PrimExpr& self) override {
    const ir::CallNode* c = &n;
    if (!c->args.empty() && mine(c->args[0])) {
      int64_t axis = 0;
      if (c->op == "tsch_buffer_stride" && c->args.size() == 2 && ir::as_const_int(c->args[1], &axis) &&
          axis < static_cast<int64_t>(strides_.size()))
        return ir::cast(c->dtype, strides_[axis]);
      if (c->op == "tsch_buffer_elem_offset") return ir::cast(c->dtype, offset_);
    }
    ir::PrimExpr out = IRMutator::mutate_Call(n, self);
    // A call's offset argument that took the shifted start is simplified with the loops'
    // ranges, as the accesses were: the shift cancels against the terms it was taken from.
    auto* now = ir::as<ir::CallNode>(out);
    if (now && now != c && !ir::is_zero(offset_)) {
      std::vector<ir::PrimExpr> args = now->args;
      bool changed = false;
      for (size_t i = 0; i < args.size() && i < c->args.size(); ++i) {
        if (args[i] == c->args[i] || !args[i]->dtype.is_int() || ir::as<ir::IntImmNode>(args[i]) ||
            ir::as<ir::VarNode>(args[i]))
          continue;
        args[i] = arith::simplify(args[i], ranges_);
        changed = true;
      }
      if (changed) return std::make_shared<ir::CallNode>(now->dtype, now->op, std::move(args));
    }
    return out;
  }
  ir::Stmt mutate_Evaluate(const ir::EvaluateNode& ev, const ir::Stmt& self) override {
    auto* c = ir::as<ir::CallNode>(ev.value);
    if (c && c->op == "tsch_buffer_region" && !c->args.empty()) {
      auto* first = ir::as<ir::BufferLoadNode>(c->args[0]);
      if (first && (first->buffer->data.get() == old_ || first->buffer->data == now_->data)) return ir::make_seq({});
    }
    return IRMutator::mutate_Evaluate(ev, self);
  }

 private:
  bool mine(const ir::PrimExpr& data) const { return data.get() == old_ || data == now_->data; }
  const ir::VarNode* old_;
  ir::Buffer now_;
  const arith::VarDomain& ranges_;
  std::vector<ir::PrimExpr> strides_;
  ir::PrimExpr offset_;
};

ir::Stmt resolve_placeholders(const ir::AllocateNode& alloc, const ir::Buffer& now, ir::Stmt body,
                              const std::vector<ir::PrimExpr>& shift, const arith::VarDomain& ranges = {}) {
  return std::make_shared<ir::AllocateNode>(
      now, ResolvePlaceholders(alloc.buffer->data.get(), now, shift, ranges).mutate(body));
}

class Compactor : public ir::IRMutator {
 public:
  // The loops around an allocation, outermost first (thread-bound ones also in threads_).
  ir::Stmt mutate_For(const ir::ForNode& loop, const ir::Stmt& self) override {
    bool thread = loop.for_kind == ir::ForKind::ThreadBinding;
    if (thread) threads_.push_back(&loop);
    outer_.push_back(&loop);
    ir::Stmt t = IRMutator::mutate_For(loop, self);
    outer_.pop_back();
    if (thread) threads_.pop_back();
    return t;
  }

  ir::Stmt mutate_Allocate(const ir::AllocateNode& n, const ir::Stmt& self) override {
    ir::Stmt t = IRMutator::mutate_Allocate(n, self);
    auto* alloc = ir::as<ir::AllocateNode>(t);
    // An enclosing thread loop of extent 1 is its min everywhere inside: accesses whose indices
    // a schedule already folded it out of (a unit blockIdx) and those that still name it then
    // agree, and their union stays the one tile each thread touches.
    std::unordered_map<const ir::VarNode*, ir::PrimExpr> unit_threads;
    for (const ir::ForNode* l : threads_) {
      if (ir::is_const_int(l->extent, 1)) unit_threads[l->loop_var.get()] = l->min;
    }
    if (!unit_threads.empty()) {
      t = std::make_shared<ir::AllocateNode>(alloc->buffer, ir::substitute(alloc->body, unit_threads));
      alloc = ir::as<ir::AllocateNode>(t);
    }
    // TVM's compaction gives every allocated buffer new strides (storage_align's, else none).
    // tsch keeps declared strides that fit the buffer; strides of another rank (cache_index
    // declares [1] at any rank, as TVM does) could never be flattened, and are dropped here.
    bool odd_strides = !alloc->buffer->strides.empty() && alloc->buffer->strides.size() != alloc->buffer->shape.size();
    if ((!alloc->buffer->strides.empty() && !odd_strides) || alloc->buffer->elem_offset) return t;
    const ir::Buffer& buf = alloc->buffer;
    size_t rank = buf->shape.size();
    // Ranges of the loops inside the allocation; outer variables stay symbolic. A software-
    // pipelined loop's variable stays symbolic too when each of its iterations touches a region
    // of its own (then the buffer holds one iteration's: InjectSoftwarePipeline gives it versions).
    arith::VarDomain dom;
    std::vector<const ir::ForNode*> pipelined;
    ir::for_each_stmt(alloc->body, [&](const ir::Stmt& x) {
      auto* loop = ir::as<ir::ForNode>(x);
      if (!loop) return;
      if (ir::find_attr(loop->annotations, "software_pipeline_stage"))
        pipelined.push_back(loop);
      else
        dom[loop->loop_var.get()] = range_of(loop);
    });
    // A buffer the threads of enclosing thread-bound loops share (shared memory under
    // threadIdx) holds what all of them touch.
    for (const ir::ForNode* l : threads_) {
      if (ir::storage_shared_by_thread(buf->scope, l->thread_tag)) dom[l->loop_var.get()] = range_of(l);
    }
    arith::VarDomain known;
    for (const ir::ForNode* l : outer_) {
      if (!dom.count(l->loop_var.get())) known[l->loop_var.get()] = range_of(l);
    }
    std::optional<Region> region = touched_region(alloc->body, buf, dom, known);
    if (region && !pipelined.empty() && !disjoint_per_iteration(*region, pipelined)) {
      for (const ir::ForNode* l : pipelined) dom[l->loop_var.get()] = range_of(l);
      region = touched_region(alloc->body, buf, dom, known);
    }
    if (!region) return resolve_placeholders(*alloc, buf, alloc->body, {});
    const std::vector<ir::PrimExpr>& shape = region->shape;
    const std::vector<ir::PrimExpr>& offset = region->offset;
    bool changed = false;
    for (size_t d = 0; d < rank; ++d)
      changed |= !ir::is_zero(offset[d]) || ir::script(shape[d]) != ir::script(buf->shape[d]);
    if (!changed && buf->dim_align.empty() && !odd_strides) return resolve_placeholders(*alloc, buf, alloc->body, {});
    ir::Buffer compact = ir::buffer_with(buf, buf->name, shape, buf->scope);
    if (odd_strides) {
      auto node = std::make_shared<ir::BufferNode>(*compact);
      node->strides.clear();
      compact = node;
    }
    if (!buf->dim_align.empty()) {
      // storage_align (TVM's rule): from the innermost axis out, an axis asked for
      // (factor, offset) gets the next stride s with s % factor == offset.
      std::vector<int64_t> extents(rank);
      bool constant = true;
      for (size_t d = 0; d < rank; ++d) constant = constant && ir::as_const_int(shape[d], &extents[d]);
      if (constant) {
        std::vector<ir::PrimExpr> strides(rank);
        int64_t stride = 1;
        for (size_t d = rank; d-- > 0;) {
          for (const auto& [axis, factor, off] : buf->dim_align) {
            if (static_cast<size_t>(axis) == d && factor > 0) stride += ((factor + off - stride % factor) % factor);
          }
          strides[d] = ir::make_int(stride, shape[d]->dtype);
          stride *= extents[d];
        }
        auto node = std::make_shared<ir::BufferNode>(*compact);
        node->strides = std::move(strides);
        compact = node;
      }
    }
    // Accesses shift by the region's start, simplified with every loop's range (as the start
    // was: `ty % 4 // 2 * 16 - ty // 2 * 16` is 0 when ty < 4).
    arith::VarDomain ranges = known;
    ir::for_each_stmt(alloc->body, [&](const ir::Stmt& x) {
      if (auto* loop = ir::as<ir::ForNode>(x)) ranges[loop->loop_var.get()] = range_of(loop);
    });
    ir::Stmt body =
        redirect_buffer(alloc->body, buf.get(), compact, [&offset, &ranges](const std::vector<ir::PrimExpr>& idx) {
          std::vector<ir::PrimExpr> out;
          for (size_t i = 0; i < idx.size(); ++i)
            out.push_back(ir::is_zero(offset[i])
                              ? idx[i]
                              : arith::simplify(ir::sub(idx[i], ir::cast(idx[i]->dtype, offset[i])), ranges));
          return out;
        });
    return resolve_placeholders(*alloc, compact, body, offset, ranges);
  }

 private:
  std::vector<const ir::ForNode*> threads_;
  std::vector<const ir::ForNode*> outer_;  // every loop around the node being visited
};

}  // namespace

Pass compact_buffer_allocation() {
  return {"tir.CompactBufferAllocation",
          [](const ir::PrimFunc& f) { return with_body(f, Compactor().mutate(f->body)); }};
}

}  // namespace tsch::transform
