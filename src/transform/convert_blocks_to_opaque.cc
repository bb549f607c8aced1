// tir.ConvertBlocksToOpaque: block iteration variables are replaced by the values bound to
// them, so the block no longer has iterators and its body reads the loop variables directly.
#include "ir/functor.h"
#include "ir/op.h"
#include "transform/pass.h"

namespace tsch::transform {
namespace {

class OpaqueConverter : public ir::IRMutator {
 public:
  ir::Stmt mutate_BlockRealize(const ir::BlockRealizeNode& n, const ir::Stmt&) override {
    const ir::BlockRealizeNode* realize = &n;
    const ir::BlockNode& block = *realize->block;
    std::unordered_map<const ir::VarNode*, ir::PrimExpr> vmap;
    for (size_t i = 0; i < block.iter_vars.size(); ++i) vmap[block.iter_vars[i].var.get()] = realize->iter_values[i];
    auto b = std::make_shared<ir::BlockNode>(block);
    b->iter_vars.clear();
    b->body = mutate(ir::substitute(block.body, vmap));
    if (block.init) b->init = mutate(ir::substitute(block.init, vmap));
    for (auto& m : b->match_buffers)
      for (auto& r : m.source.region) r = {ir::substitute(r.min, vmap), ir::substitute(r.extent, vmap)};
    auto subst_regions = [&](std::vector<ir::BufferRegion>& regions) {
      for (auto& region : regions)
        for (auto& r : region.region) r = {ir::substitute(r.min, vmap), ir::substitute(r.extent, vmap)};
    };
    subst_regions(b->reads);
    subst_regions(b->writes);
    return std::make_shared<ir::BlockRealizeNode>(std::vector<ir::PrimExpr>{}, realize->predicate, b);
  }
};

}  // namespace

Pass convert_blocks_to_opaque() {
  return {"tir.ConvertBlocksToOpaque",
          [](const ir::PrimFunc& f) { return with_body(f, OpaqueConverter().mutate(f->body)); }};
}

}  // namespace tsch::transform
