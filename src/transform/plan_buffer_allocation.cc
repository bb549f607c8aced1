// tir.PlanAndUpdateBufferAllocationLocation: an allocation moves down to the innermost
// statement that still contains every access of its buffer (the accesses' lowest common
// ancestor), so a cache buffer written and read inside one loop iteration is allocated
// there — private to a parallel task, and small enough to compact (next pass) and to keep
// in registers. In a sequence it covers only the statements from its first to its last
// user, so later passes see where its lifetime ends. It never moves into vectorized or
// unrolled loops, which need plain bodies.
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
    int first = -1, last = -1;
    for (size_t i = 0; i < seq->seq.size(); ++i) {
      if (!accesses(seq->seq[i], buf.get())) continue;
      if (first < 0) first = static_cast<int>(i);
      last = static_cast<int>(i);
    }
    if (first < 0) return s;  // no access at all: the buffer is dropped
    std::vector<ir::Stmt> items(seq->seq.begin(), seq->seq.begin() + first);
    if (first == last) {
      items.push_back(sink(buf, seq->seq[first]));
    } else {
      // Several users: the allocation covers only the statements from the first to the last.
      std::vector<ir::Stmt> users(seq->seq.begin() + first, seq->seq.begin() + last + 1);
      items.push_back(std::make_shared<ir::AllocateNode>(buf, ir::make_seq(std::move(users))));
    }
    items.insert(items.end(), seq->seq.begin() + last + 1, seq->seq.end());
    return ir::make_seq(std::move(items));
  } else if (auto* inner = ir::as<ir::AllocateNode>(s)) {
    return std::make_shared<ir::AllocateNode>(inner->buffer, sink(buf, inner->body));
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
