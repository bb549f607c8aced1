#include "transform/buffer_rewrite.h"

#include "ir/op.h"

namespace tsch::transform {
namespace {

class Redirector : public ir::IRMutator {
 public:
  Redirector(const ir::BufferNode* from, ir::Buffer to, IndexMap indices)
      : from_(from), to_(std::move(to)), indices_(std::move(indices)) {}
  ir::PrimExpr mutate_Var(const ir::VarNode& v, const ir::PrimExpr& self) override {
    // The data pointer itself (T.ptx_cp_async, T.tvm_access_ptr) follows when elements keep
    // their offsets.
    if (!indices_ && &v == from_->data.get()) return to_->data;
    return self;
  }
  ir::PrimExpr mutate_BufferLoad(const ir::BufferLoadNode& n, const ir::PrimExpr& self) override {
    ir::PrimExpr t = IRMutator::mutate_BufferLoad(n, self);
    auto* load = ir::as<ir::BufferLoadNode>(t);
    if (!load || load->buffer.get() != from_) return t;
    return std::make_shared<ir::BufferLoadNode>(load->dtype, to_, map(load->indices));
  }
  ir::Stmt mutate_BufferStore(const ir::BufferStoreNode& n, const ir::Stmt& self) override {
    ir::Stmt t = IRMutator::mutate_BufferStore(n, self);
    auto* store = ir::as<ir::BufferStoreNode>(t);
    if (!store || store->buffer.get() != from_) return t;
    return std::make_shared<ir::BufferStoreNode>(to_, store->value, map(store->indices));
  }

 private:
  std::vector<ir::PrimExpr> map(const std::vector<ir::PrimExpr>& idx) const { return indices_ ? indices_(idx) : idx; }
  const ir::BufferNode* from_;
  ir::Buffer to_;
  IndexMap indices_;
};

class FreshAllocations : public ir::IRMutator {
 public:
  ir::Stmt mutate_Allocate(const ir::AllocateNode& alloc, const ir::Stmt&) override {
    const ir::Buffer& old = alloc.buffer;
    ir::Buffer fresh = ir::buffer_with(old, old->name, old->shape, old->scope);
    ir::Stmt body = redirect_buffer(alloc.body, old.get(), fresh);  // its pointer's uses too
    return std::make_shared<ir::AllocateNode>(fresh, mutate(body));
  }
};

}  // namespace

ir::Stmt fresh_allocations(const ir::Stmt& s) { return FreshAllocations().mutate(s); }

ir::Stmt redirect_buffer(const ir::Stmt& body, const ir::BufferNode* from, const ir::Buffer& to, IndexMap indices) {
  return Redirector(from, to, std::move(indices)).mutate(body);
}

}  // namespace tsch::transform
