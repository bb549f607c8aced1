#include "arith/block_access.h"

#include <unordered_set>

#include "arith/int_set.h"
#include "arith/simplify.h"
#include "ir/functor.h"
#include "ir/op.h"

namespace tsch::arith {

using namespace ir;

namespace {

// Regions per buffer in order of first access, each dimension an interval union.
struct RegionSet {
  std::vector<Buffer> order;
  std::vector<std::vector<Interval>> dims;

  void add(const Buffer& b, const std::vector<Interval>& region) {
    for (size_t i = 0; i < order.size(); ++i) {
      if (order[i] != b) continue;
      for (size_t d = 0; d < region.size() && d < dims[i].size(); ++d) {
        const Interval& cur = dims[i][d];
        const Interval& add = region[d];
        dims[i][d] = (!cur.min || !add.min) ? Interval{} : interval_union(cur, add);
      }
      return;
    }
    order.push_back(b);
    dims.push_back(region);
  }

  std::vector<BufferRegion> to_regions(const std::unordered_set<const BufferNode*>& excluded) const {
    std::vector<BufferRegion> out;
    for (size_t i = 0; i < order.size(); ++i) {
      if (excluded.count(order[i].get())) continue;
      BufferRegion r{order[i], {}};
      for (size_t d = 0; d < dims[i].size(); ++d) {
        const Interval& iv = dims[i][d];
        if (!iv.min) {
          // Unknown bounds: the whole dimension.
          const PrimExpr& extent = order[i]->shape[d];
          r.region.push_back(Range{make_int(0, extent->dtype), extent});
        } else {
          r.region.push_back(range_of(iv));
        }
      }
      out.push_back(std::move(r));
    }
    return out;
  }
};

class Detector : public IRVisitor {
 public:
  RegionSet reads, writes, opaques;
  bool look_into_containers = false;                                   // nested undeclared containers: their bodies
  std::unordered_set<const BufferNode*> inner_allocs;                  // buffers such containers allocate
  std::unordered_map<const BufferNode*, const BufferRegion*> matched;  // match_buffer -> its source
  std::unordered_map<const VarNode*, Buffer> owners;                   // data pointer -> its buffer

  void visit_BufferLoad(const BufferLoadNode& load) override {
    add_access(reads, load.buffer, load.indices);
    IRVisitor::visit_BufferLoad(load);
  }

  void visit_Call(const CallNode& call) override {
    if (call.op == "tvm_access_ptr" && call.args.size() == 5) {
      // TVM's detector: the mask says how the pointer is used; the whole buffer is accessed.
      auto* data = as<VarNode>(call.args[1]);
      int64_t mask;
      auto owner = data ? owners.find(data) : owners.end();
      if (owner != owners.end() && as_const_int(call.args[4], &mask)) {
        if ((mask & 1) && (mask & 2))
          add_whole(opaques, owner->second);
        else if (mask & 1)
          add_whole(reads, owner->second);
        else if (mask & 2)
          add_whole(writes, owner->second);
        return;
      }
    }
    IRVisitor::visit_Call(call);
  }

  void visit_Var(const VarNode& var) override {
    if (auto owner = owners.find(&var); owner != owners.end()) add_whole(opaques, owner->second);
  }

  void visit_For(const ForNode& loop) override {
    visit(loop.min);
    visit(loop.extent);
    Interval range = interval_of(Range{loop.min, loop.extent});
    dom_[loop.loop_var.get()] = eval_bounds(range);
    visit(loop.body);
    dom_.erase(loop.loop_var.get());
  }

  void visit_BufferStore(const BufferStoreNode& store) override {
    add_access(writes, store.buffer, store.indices);
    IRVisitor::visit_BufferStore(store);
  }

  void visit_BlockRealize(const BlockRealizeNode& realize) override {
    // A nested block: its declared regions, with its iterators replaced by their bindings.
    if (look_into_containers && is_undeclared_container(*realize.block)) {
      look_into(realize);
      return;
    }
    std::unordered_map<const VarNode*, PrimExpr> bind;
    for (size_t i = 0; i < realize.iter_values.size(); ++i) {
      bind[realize.block->iter_vars[i].var.get()] = realize.iter_values[i];
      visit(realize.iter_values[i]);
    }
    auto add_regions = [&](const std::vector<BufferRegion>& regions, RegionSet& into) {
      for (const auto& r : regions) {
        std::vector<Interval> dims;
        for (const auto& range : r.region) {
          Interval lo = eval_interval(substitute(range.min, bind), dom_);
          Interval hi = eval_interval(
              substitute(simplify(sub(add(range.min, range.extent), make_int(1, range.extent->dtype))), bind), dom_);
          dims.push_back((!lo.min || !hi.min) ? Interval{} : Interval{lo.min, hi.max});
        }
        into.add(r.buffer, dims);
      }
    };
    add_regions(realize.block->reads, reads);
    add_regions(realize.block->writes, writes);
  }

  void visit_LetStmt(const LetStmtNode& let) override {
    visit(let.value);
    dom_[let.var.get()] = eval_interval(let.value, dom_);
    visit(let.body);
    dom_.erase(let.var.get());
  }

 private:
  // An undeclared container's body, its iterators ranging over the bounds of their bindings.
  void look_into(const BlockRealizeNode& realize) {
    const BlockNode& block = *realize.block;
    for (size_t i = 0; i < realize.iter_values.size(); ++i) {
      visit(realize.iter_values[i]);
      dom_[block.iter_vars[i].var.get()] = eval_bounds(eval_interval(realize.iter_values[i], dom_));
    }
    visit(realize.predicate);
    for (const auto& b : block.alloc_buffers) inner_allocs.insert(b.get());
    for (const auto& m : block.match_buffers) matched[m.buffer.get()] = &m.source;
    if (block.init) visit(block.init);
    visit(block.body);
    for (const auto& iv : block.iter_vars) dom_.erase(iv.var.get());
  }

  void add_access(RegionSet& into, const Buffer& buffer, const std::vector<PrimExpr>& indices) {
    if (!add_matched(into, buffer)) into.add(buffer, relax(indices));
  }

  // The whole of `buffer`, through its pointer.
  void add_whole(RegionSet& into, const Buffer& buffer) {
    if (!add_matched(into, buffer)) into.add(buffer, whole_region(buffer));
  }

  // TVM's detector: an access through a match_buffer is one of the whole source region it
  // stands for. False for other buffers.
  bool add_matched(RegionSet& into, const Buffer& buffer) {
    auto it = matched.find(buffer.get());
    if (it == matched.end()) return false;
    std::vector<Interval> dims;
    for (const auto& range : it->second->region) {
      Interval lo = eval_interval(range.min, dom_);
      Interval hi = eval_interval(simplify(sub(add(range.min, range.extent), make_int(1, range.extent->dtype))), dom_);
      dims.push_back((!lo.min || !hi.min) ? Interval{} : Interval{lo.min, hi.max});
    }
    into.add(it->second->buffer, dims);
    return true;
  }

  static std::vector<Interval> whole_region(const Buffer& b) {
    std::vector<Interval> out;
    for (const auto& extent : b->shape) out.push_back(interval_of(Range{make_int(0, extent->dtype), extent}));
    return out;
  }

  Interval eval_bounds(const Interval& i) {
    Interval lo = eval_interval(i.min, dom_), hi = eval_interval(i.max, dom_);
    if (!lo.min || !hi.min) return Interval{};
    return {lo.min, hi.max};
  }

  // TVM's interval evaluator knows no calls but T.vscale (T.floor, T.if_then_else) and no loads
  // of non-integers or at relaxed indices: an index through one covers the whole dimension,
  // even where no loop varies it (`x[T.Cast("int32", T.floor(v * 2 + 0.5))]` reads x[0:200]).
  bool opaque_to_intervals(const PrimExpr& e) const {
    struct Finder : IRVisitor {
      const VarDomain& dom;
      bool found = false;
      explicit Finder(const VarDomain& d) : dom(d) {}
      using IRVisitor::visit;
      // Whole-node on purpose: the search stops at the first find, whatever the node.
      void visit(const PrimExpr& x) override {
        if (!found) IRVisitor::visit(x);
      }
      void visit_Call(const CallNode& call) override { found = call.op != "vscale"; }
      void visit_BufferLoad(const BufferLoadNode& load) override {
        found = !load.dtype.is_int() && !load.dtype.is_uint();
        for (const auto& index : load.indices)
          found = found || uses_var(index, [&](const VarNode* v) { return dom.count(v) > 0; });
        // Not its children: otherwise the load itself, a point.
      }
    } finder(dom_);
    finder.visit(e);
    return finder.found;
  }

  std::vector<Interval> relax(const std::vector<PrimExpr>& indices) {
    std::vector<Interval> out;
    for (const auto& idx : indices) {
      if (opaque_to_intervals(idx)) {
        out.push_back(Interval{});
        continue;
      }
      // A vector access (T.Ramp) covers its lanes: base .. base + stride * (lanes - 1).
      if (auto* ramp = as<RampNode>(idx)) {
        PrimExpr last = add(ramp->base, mul(ramp->stride, make_int(ramp->lanes - 1, ramp->stride->dtype)));
        Interval lo = eval_interval(ramp->base, dom_), hi = eval_interval(simplify(last), dom_);
        out.push_back(!lo.min || !hi.min ? Interval{}
                                         : interval_union(Interval{lo.min, lo.max}, Interval{hi.min, hi.max}));
        continue;
      }
      out.push_back(eval_interval(idx, dom_));
    }
    return out;
  }

  VarDomain dom_;
};

// TVM's detector over a block's init and body; `d` set up by the caller.
AccessRegions infer(Detector& d, const Stmt& body, const Stmt& init, const std::vector<Buffer>& allocated,
                    const std::vector<MatchBufferRegion>& matches, const std::vector<Buffer>& data_owners) {
  for (const auto& m : matches) d.matched[m.buffer.get()] = &m.source;
  // The first owner of a pointer wins: a T.decl_buffer over a parameter's data stays a view of it.
  for (const auto& b : data_owners) d.owners.emplace(b->data.get(), b);
  if (init) d.visit(init);
  d.visit(body);
  std::unordered_set<const BufferNode*> own = d.inner_allocs;
  for (const auto& b : allocated) own.insert(b.get());
  // A buffer accessed opaquely is listed once, after the others, among both reads and writes.
  std::unordered_set<const BufferNode*> excluded = own;
  for (const auto& b : d.opaques.order) excluded.insert(b.get());
  std::vector<BufferRegion> writes = d.writes.to_regions(excluded);
  if (init) {
    for (const auto& b : d.writes.order) excluded.insert(b.get());
  }
  std::vector<BufferRegion> reads = d.reads.to_regions(excluded);
  std::vector<BufferRegion> opaques = d.opaques.to_regions(own);
  for (const auto& r : opaques) {
    reads.push_back(r);
    writes.push_back(r);
  }
  return AccessRegions{reads, writes, opaques};
}

}  // namespace

AccessRegions infer_access_regions(const Stmt& body, const Stmt& init, const std::vector<Buffer>& allocated,
                                   const std::vector<MatchBufferRegion>& matches,
                                   const std::vector<Buffer>& data_owners) {
  Detector d;
  return infer(d, body, init, allocated, matches, data_owners);
}

bool is_undeclared_container(const BlockNode& block) {
  if (!block.reads.empty() || !block.writes.empty()) return false;
  bool holds_block = false;
  for_each_stmt(block.body, [&](const Stmt& x) { holds_block = holds_block || as<BlockRealizeNode>(x) != nullptr; });
  return holds_block;
}

AccessRegions effective_access_regions(const BlockNode& block) {
  if (!is_undeclared_container(block)) return AccessRegions{block.reads, block.writes, {}};
  Detector d;
  d.look_into_containers = true;
  return infer(d, block.body, block.init, block.alloc_buffers, block.match_buffers, {});
}

}  // namespace tsch::arith
