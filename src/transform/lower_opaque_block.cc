// tir.LowerOpaqueBlock: blocks disappear. A block's predicate becomes an `if`, its
// alloc_buffers become allocations around its body (a buffer storage_align asked for carries
// the request in its dim_align, for CompactBufferAllocation). As TVM's, a loop of extent 1 without
// annotations or a thread binding goes too (its variable replaced by the loop's start).
#include <array>
#include <unordered_map>

#include "ir/functor.h"
#include "ir/op.h"
#include "transform/buffer_rewrite.h"
#include "transform/pass.h"

namespace tsch::transform {
namespace {

// storage_align's requests: each block's "buffer_dim_align" entries [buffer_index, axis,
// factor, offset], by the buffer the block writes at buffer_index.
std::unordered_map<const ir::BufferNode*, std::vector<std::array<int64_t, 3>>> dim_aligns(const ir::Stmt& body) {
  std::unordered_map<const ir::BufferNode*, std::vector<std::array<int64_t, 3>>> out;
  ir::for_each_stmt(body, [&](const ir::Stmt& s) {
    auto* realize = ir::as<ir::BlockRealizeNode>(s);
    if (!realize) return;
    const ir::BlockNode& block = *realize->block;
    const ir::AttrValue* list = ir::find_attr(block.annotations, "buffer_dim_align");
    if (!list) return;
    for (const ir::AttrValue& e : list->array) {
      if (e.array.size() != 4) continue;
      int64_t index = e.array[0].i;
      if (index < 0 || index >= static_cast<int64_t>(block.writes.size())) continue;
      const ir::Buffer& buf = block.writes[static_cast<size_t>(index)].buffer;
      int64_t axis = e.array[1].i, rank = static_cast<int64_t>(buf->shape.size());
      if (axis < 0) axis += rank;
      if (axis < 0 || axis >= rank) continue;
      out[buf.get()].push_back({axis, e.array[2].i, e.array[3].i});
    }
  });
  return out;
}

class BlockRemover : public ir::IRMutator {
 public:
  explicit BlockRemover(const ir::Stmt& body) : aligns_(dim_aligns(body)) {}
  ir::Stmt mutate_For(const ir::ForNode& loop, const ir::Stmt& self) override {
    if (ir::is_one(loop.extent) && loop.annotations.empty() && loop.for_kind != ir::ForKind::ThreadBinding) {
      return mutate(ir::substitute(loop.body, {{loop.loop_var.get(), loop.min}}));
    }
    return IRMutator::mutate_For(loop, self);
  }

  ir::Stmt mutate_BlockRealize(const ir::BlockRealizeNode& n, const ir::Stmt&) override {
    const ir::BlockRealizeNode* realize = &n;
    const ir::BlockNode& block = *realize->block;
    ir::Stmt body = mutate(block.body);
    if (realize->predicate && !ir::is_one(realize->predicate))
      body = std::make_shared<ir::IfThenElseNode>(realize->predicate, body, nullptr);
    for (auto it = block.alloc_buffers.rbegin(); it != block.alloc_buffers.rend(); ++it) {
      ir::Buffer buf = *it;
      if (auto a = aligns_.find(buf.get()); a != aligns_.end()) {
        // The allocation carries the layout request into compaction.
        auto aligned = std::make_shared<ir::BufferNode>(*buf);
        aligned->dim_align = a->second;
        body = redirect_buffer(body, buf.get(), aligned);
        buf = aligned;
      }
      body = std::make_shared<ir::AllocateNode>(buf, body);
    }
    return body;
  }

 private:
  std::unordered_map<const ir::BufferNode*, std::vector<std::array<int64_t, 3>>> aligns_;
};

}  // namespace

Pass lower_opaque_block() {
  return {"tir.LowerOpaqueBlock",
          [](const ir::PrimFunc& f) { return with_body(f, BlockRemover(f->body).mutate(f->body)); }};
}

}  // namespace tsch::transform
