// tir.PlanAndUpdateBufferAllocationLocation: an allocation moves down to the innermost
// statement that still contains every access of its buffer (the accesses' lowest common
// ancestor), so a cache buffer written and read inside one loop iteration is allocated
// there — private to a parallel task, and small enough to compact (next pass) and to keep
// in registers. In a sequence it covers only the statements from its first to its last
// user, so later passes see where its lifetime ends. It never moves into vectorized or
// unrolled loops, which need plain bodies, nor into a loop whose iterations pass values to
// each other through the buffer; into a GPU thread binding only as its storage scope allows
// (local and shared: any, global: none).
#include <unordered_map>

#include "arith/simplify.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "transform/pass.h"

namespace tsch::transform {
namespace {

// Loads and stores, and uses of the buffer's pointer itself (an access_ptr, a tensor-core
// builtin's fragment).
bool accesses(const ir::Stmt& s, const ir::BufferNode* buf) {
  bool found = false;
  ir::for_each_expr(s, [&](const ir::PrimExpr& e) {
    if (auto* load = ir::as<ir::BufferLoadNode>(e)) found |= load->buffer.get() == buf;
    found |= e.get() == buf->data.get();
  });
  if (found) return true;
  ir::for_each_stmt(s, [&](const ir::Stmt& x) {
    if (auto* store = ir::as<ir::BufferStoreNode>(x)) found |= store->buffer.get() == buf;
  });
  return found;
}

bool reads(const ir::PrimExpr& e, const ir::BufferNode* buf) {
  bool found = false;
  if (e)
    ir::for_each_expr(e, [&](const ir::PrimExpr& x) {
      if (auto* load = ir::as<ir::BufferLoadNode>(x)) found |= load->buffer.get() == buf;
    });
  return found;
}

// How one run of `s` first touches `buf`: not at all, by a write that needs nothing from
// before, or otherwise (a read, a conditional write: values may come from earlier runs).
// `first` maps the loops of `s` entered so far to their first value: a reduction's init,
// lowered to `if k == 0: acc = 0`, is a write when k's loop starts inside `s`.
enum class FirstAccess { None, Write, Read };
using FirstIteration = std::unordered_map<const ir::VarNode*, ir::PrimExpr>;

FirstAccess first_access(const ir::Stmt& s, const ir::BufferNode* buf, FirstIteration& first) {
  if (auto* store = ir::as<ir::BufferStoreNode>(s)) {
    bool read = reads(store->value, buf);
    for (const auto& i : store->indices) read |= reads(i, buf);
    if (read) return FirstAccess::Read;
    return store->buffer.get() == buf ? FirstAccess::Write : FirstAccess::None;
  }
  if (auto* seq = ir::as<ir::SeqStmtNode>(s)) {
    for (const auto& item : seq->seq) {
      FirstAccess a = first_access(item, buf, first);
      if (a != FirstAccess::None) return a;
    }
    return FirstAccess::None;
  }
  if (auto* loop = ir::as<ir::ForNode>(s)) {
    if (reads(loop->min, buf) || reads(loop->extent, buf)) return FirstAccess::Read;
    int64_t extent;
    // A loop that may not run at all writes nothing for sure.
    if (!(ir::as_const_int(loop->extent, &extent) && extent > 0))
      return accesses(s, buf) ? FirstAccess::Read : FirstAccess::None;
    first[loop->loop_var.get()] = loop->min;
    FirstAccess a = first_access(loop->body, buf, first);
    first.erase(loop->loop_var.get());
    return a;
  }
  if (auto* branch = ir::as<ir::IfThenElseNode>(s)) {
    if (reads(branch->condition, buf)) return FirstAccess::Read;
    ir::PrimExpr taken = arith::simplify(ir::substitute(branch->condition, first));
    if (ir::is_one(taken)) return first_access(branch->then_case, buf, first);
    if (ir::is_zero(taken)) return branch->else_case ? first_access(branch->else_case, buf, first) : FirstAccess::None;
    return accesses(s, buf) ? FirstAccess::Read : FirstAccess::None;
  }
  if (auto* let = ir::as<ir::LetStmtNode>(s))
    return reads(let->value, buf) ? FirstAccess::Read : first_access(let->body, buf, first);
  // LowerMatchBuffer's marker of a region a builtin reaches through the pointer says whether
  // the block only writes it (mask 2).
  auto* ev = ir::as<ir::EvaluateNode>(s);
  auto* marker = ev ? ir::as<ir::CallNode>(ev->value) : nullptr;
  if (marker && marker->op == "tsch_buffer_region" && marker->args.size() == 3) {
    auto* region = ir::as<ir::BufferLoadNode>(marker->args[0]);
    if (region && region->buffer.get() == buf)
      return ir::is_const_int(marker->args[2], 2) ? FirstAccess::Write : FirstAccess::Read;
  }
  if (auto* alloc = ir::as<ir::AllocateNode>(s)) return first_access(alloc->body, buf, first);
  if (auto* decl = ir::as<ir::DeclBufferNode>(s)) return first_access(decl->body, buf, first);
  if (auto* c = ir::as<ir::AllocateConstNode>(s)) return first_access(c->body, buf, first);
  return accesses(s, buf) ? FirstAccess::Read : FirstAccess::None;
}

FirstAccess first_access(const ir::Stmt& s, const ir::BufferNode* buf) {
  FirstIteration first;
  return first_access(s, buf, first);
}

ir::Stmt sink(const ir::Buffer& buf, const ir::Stmt& s) {
  if (auto* loop = ir::as<ir::ForNode>(s)) {
    // An iteration that starts by reading the buffer reads what earlier iterations left
    // there: a reduction's accumulator whose init (`if k == 0`) is outside this loop's body.
    // The allocation stays outside (TVM keeps it above the loops of reduction iterators).
    bool carried = first_access(loop->body, buf.get()) == FirstAccess::Read;
    // A GPU buffer goes under thread bindings as TVM's LCA detector places it: local and
    // shared ones anywhere (a shared buffer under threadIdx is still one per block: its
    // region is relaxed over those threads when compacted), tensor-core fragments (a warp's
    // registers) too, global ones stay on the host.
    bool on_device = loop->for_kind == ir::ForKind::ThreadBinding &&
                     (buf->scope == "local" || buf->scope == "warp" || buf->scope.rfind("shared", 0) == 0 ||
                      buf->scope.rfind("wmma.", 0) == 0);
    // Threads and blocks never pass values through local or shared storage (each has its
    // own), so on the device a first access that looks carried (a write under the block's
    // T.where) does not keep the buffer out.
    // An unrolled loop is a serial one written out: a buffer its body uses goes inside, so
    // each unrolled copy gets the small per-iteration buffer (registers, not a spilled array).
    bool serial_like = loop->for_kind == ir::ForKind::Serial || loop->for_kind == ir::ForKind::Parallel ||
                       loop->for_kind == ir::ForKind::Unrolled;
    // A software-pipelined loop runs its body's statements in different iterations: a buffer
    // two of them share stays outside, where InjectSoftwarePipeline can give it versions.
    if (ir::find_attr(loop->annotations, "software_pipeline_stage")) {
      int users = 0;
      if (auto* seq = ir::as<ir::SeqStmtNode>(loop->body)) {
        for (const auto& item : seq->seq) users += accesses(item, buf.get()) ? 1 : 0;
      }
      if (users > 1) return std::make_shared<ir::AllocateNode>(buf, s);
    }
    if (on_device || (!carried && serial_like)) {
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
  } else if (auto* c = ir::as<ir::AllocateConstNode>(s)) {
    // Constant data around the users: the allocation goes inside it, towards them.
    auto copy = std::make_shared<ir::AllocateConstNode>(*c);
    copy->body = sink(buf, c->body);
    return copy;
  }
  return std::make_shared<ir::AllocateNode>(buf, s);
}

class AllocationPlanner : public ir::IRMutator {
 public:
  ir::Stmt mutate_Allocate(const ir::AllocateNode& n, const ir::Stmt& self) override {
    ir::Stmt t = IRMutator::mutate_Allocate(n, self);
    auto* alloc = ir::as<ir::AllocateNode>(t);
    return sink(alloc->buffer, alloc->body);
  }
};

}  // namespace

Pass plan_buffer_allocation() {
  return {"tir.PlanAndUpdateBufferAllocationLocation",
          [](const ir::PrimFunc& f) { return with_body(f, AllocationPlanner().mutate(f->body)); }};
}

}  // namespace tsch::transform
