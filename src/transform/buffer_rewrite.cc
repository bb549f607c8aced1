#include "transform/buffer_rewrite.h"

namespace tsch::transform {
namespace {

class Redirector : public ir::IRMutator {
 public:
  Redirector(const ir::BufferNode* from, ir::Buffer to, IndexMap indices)
      : from_(from), to_(std::move(to)), indices_(std::move(indices)) {}
  using IRMutator::mutate;
  ir::PrimExpr mutate(const ir::PrimExpr& e) override {
    ir::PrimExpr t = mutate_children(e);
    auto* load = ir::as<ir::BufferLoadNode>(t);
    if (!load || load->buffer.get() != from_) return t;
    return std::make_shared<ir::BufferLoadNode>(load->dtype, to_, map(load->indices));
  }
  ir::Stmt mutate(const ir::Stmt& s) override {
    ir::Stmt t = mutate_children(s);
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

}  // namespace

ir::Stmt redirect_buffer(const ir::Stmt& body, const ir::BufferNode* from, const ir::Buffer& to, IndexMap indices) {
  return Redirector(from, to, std::move(indices)).mutate(body);
}

}  // namespace tsch::transform
