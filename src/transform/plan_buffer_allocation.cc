// tir.PlanAndUpdateBufferAllocationLocation: an allocation moves down to the innermost
// statement that still contains every access of its buffer (the accesses' lowest common
// ancestor), so a cache buffer written and read inside one loop iteration is allocated
// there — private to a parallel task, and small enough to compact (next pass) and to keep
// in registers. It never moves into vectorized or unrolled loops, which need plain bodies.
#include "ir/functor.h"
#include "ir/op.h"
#include "transform/pass.h"

namespace tsch::transform {
namespace {

bool accesses(const ir::Stmt& s, const ir::BufferNode* buf) {
  bool found = false;
  ir::for_each_expr(s, [&](const ir::PrimExpr& e) {
    if (auto* load = ir::as<ir::BufferLoadNode>(e)) found |= load->buffer.get() == buf;
  });
  if (found) return true;
  ir::for_each_stmt(s, [&](const ir::Stmt& x) {
    if (auto* store = ir::as<ir::BufferStoreNode>(x)) found |= store->buffer.get() == buf;
  });
  return found;
}

ir::Stmt sink(const ir::Buffer& buf, const ir::Stmt& s) {
  if (auto* loop = ir::as<ir::ForNode>(s)) {
    if (loop->for_kind == ir::ForKind::Serial || loop->for_kind == ir::ForKind::Parallel) {
      auto f = std::make_shared<ir::ForNode>(*loop);
      f->body = sink(buf, loop->body);
      return f;
    }
  } else if (auto* seq = ir::as<ir::SeqStmtNode>(s)) {
    int user = -1;
    for (size_t i = 0; i < seq->seq.size(); ++i) {
      if (!accesses(seq->seq[i], buf.get())) continue;
      if (user >= 0) return std::make_shared<ir::AllocateNode>(buf, s);  // two users: allocate here
      user = static_cast<int>(i);
    }
    if (user < 0) return s;  // no access at all: the buffer is dropped
    std::vector<ir::Stmt> items = seq->seq;
    items[user] = sink(buf, items[user]);
    return std::make_shared<ir::SeqStmtNode>(std::move(items));
  } else if (auto* let = ir::as<ir::LetStmtNode>(s)) {
    return std::make_shared<ir::LetStmtNode>(let->var, let->value, sink(buf, let->body));
  }
  return std::make_shared<ir::AllocateNode>(buf, s);
}

class AllocationPlanner : public ir::IRMutator {
 public:
  using IRMutator::mutate;
  ir::Stmt mutate(const ir::Stmt& s) override {
    ir::Stmt t = mutate_children(s);
    auto* alloc = ir::as<ir::AllocateNode>(t);
    if (!alloc) return t;
    return sink(alloc->buffer, alloc->body);
  }
};

}  // namespace

Pass plan_buffer_allocation() {
  return {"tir.PlanAndUpdateBufferAllocationLocation", [](const ir::PrimFunc& f) { return with_body(f, AllocationPlanner().mutate(f->body)); }};
}

}  // namespace tsch::transform
