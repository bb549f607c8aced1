// tir.StorageRewrite (the reuse part): allocations that are siblings in one sequence live
// one after the other, so those of the same dtype and scope share one allocation of the
// largest size. Runs on flat (1-D) buffers with constant sizes.
#include "ir/functor.h"
#include "ir/op.h"
#include "transform/buffer_rewrite.h"
#include "transform/pass.h"

namespace tsch::transform {
namespace {

// The constant element count of a flat allocation, or -1.
int64_t flat_size(const ir::Buffer& b) {
  int64_t n;
  if (b->shape.size() != 1 || !ir::as_const_int(b->shape[0], &n)) return -1;
  return n;
}

class StorageReuser : public ir::IRMutator {
 public:
  ir::Stmt mutate_SeqStmt(const ir::SeqStmtNode& n, const ir::Stmt& self) override {
    ir::Stmt t = IRMutator::mutate_SeqStmt(n, self);
    auto* seq = ir::as<ir::SeqStmtNode>(t);
    if (!seq) return t;
    // Group the children that are allocations by (dtype, scope); keep the first of each group.
    std::vector<ir::Stmt> items = seq->seq;
    std::vector<ir::Buffer> shared;
    for (size_t i = 0; i < items.size(); ++i) {
      auto* alloc = ir::as<ir::AllocateNode>(items[i]);
      if (!alloc || flat_size(alloc->buffer) < 0) continue;
      for (size_t j = i + 1; j < items.size(); ++j) {
        auto* other = ir::as<ir::AllocateNode>(items[j]);
        if (!other || flat_size(other->buffer) < 0 || other->buffer->dtype != alloc->buffer->dtype ||
            other->buffer->scope != alloc->buffer->scope)
          continue;
        // items[j] uses items[i]'s memory (grown to the larger size).
        int64_t size = std::max(flat_size(alloc->buffer), flat_size(other->buffer));
        ir::Buffer merged = ir::buffer_with(alloc->buffer, alloc->buffer->name,
                                            {ir::make_int(size, alloc->buffer->shape[0]->dtype)}, alloc->buffer->scope);
        ir::Stmt first = redirect_buffer(alloc->body, alloc->buffer.get(), merged);
        ir::Stmt second = redirect_buffer(other->body, other->buffer.get(), merged);
        std::vector<ir::Stmt> middle(items.begin() + i + 1, items.begin() + j);
        std::vector<ir::Stmt> body = {first};
        body.insert(body.end(), middle.begin(), middle.end());
        body.push_back(second);
        items[i] = std::make_shared<ir::AllocateNode>(merged, ir::make_seq(std::move(body)));
        items.erase(items.begin() + i + 1, items.begin() + j + 1);
        return mutate(ir::make_seq(std::move(items)));  // merge the next sibling into it too
      }
    }
    return t;
  }
};

}  // namespace

Pass storage_rewrite() {
  // PassContext config tir.disable_storage_rewrite: every allocation keeps its own memory.
  return prim_func_pass(
      {"tir.StorageRewrite", 0, {}}, [](const ir::PrimFunc& f, const ir::IRModule&, const PassContext& ctx) {
        return ctx.config_flag("tir.disable_storage_rewrite") ? f : with_body(f, StorageReuser().mutate(f->body));
      });
}

}  // namespace tsch::transform
