#include "codegen/interrupt_chunks.h"

#include "ir/functor.h"
#include "ir/op.h"

namespace tsch::codegen {

namespace {

bool holds_loop(const ir::Stmt& s) {
  bool found = false;
  ir::for_each_stmt(s, [&](const ir::Stmt& x) { found = found || ir::as<ir::ForNode>(x) != nullptr; });
  return found;
}

class ChunkLongLoops : public ir::IRMutator {
 public:
  ir::Stmt mutate_For(const ir::ForNode& node, const ir::Stmt& self) override {
    ir::Stmt out = IRMutator::mutate_For(node, self);
    auto* loop = ir::as<ir::ForNode>(out);
    if (!loop->has_trivial_step() || holds_loop(loop->body)) return out;
    // A parallel loop's tasks each run a range of it: chunked the same way, a task polls
    // between its chunks (the chunks are what the thread pool shares out).
    if (loop->for_kind != ir::ForKind::Serial && loop->for_kind != ir::ForKind::Parallel) return out;
    int64_t extent;
    if (ir::as_const_int(loop->extent, &extent) && extent <= kInterruptChunk) return out;
    // A loop variable narrower than 32 bits counts fewer than 2**16 iterations (and cannot
    // hold the chunk size).
    if (!loop->loop_var->dtype.is_int() && !loop->loop_var->dtype.is_uint()) return out;
    if (loop->loop_var->dtype.bits < 32 || loop->loop_var->dtype.lanes != 1) return out;
    // for chunk in range(ceildiv(n, C)):
    //   for inner in range(min(C, n - chunk * C)):
    //     i = min + chunk * C + inner; body
    ir::DataType t = loop->loop_var->dtype;
    ir::PrimExpr c = ir::make_int(kInterruptChunk, t);
    ir::PrimExpr n = ir::cast(t, loop->extent);
    ir::Var chunk = ir::copy_var(*loop->loop_var, loop->loop_var->name + "_chunk");
    ir::Var inner = ir::copy_var(*loop->loop_var, loop->loop_var->name + "_inner");
    ir::PrimExpr chunks = ir::floordiv(ir::add(n, ir::make_int(kInterruptChunk - 1, t)), c);
    ir::PrimExpr rest = ir::sub(n, ir::mul(chunk, c));
    ir::PrimExpr inner_extent = ir::make_binary(ir::ExprKind::Min, c, rest);
    ir::PrimExpr index = ir::add(ir::cast(t, loop->min), ir::add(ir::mul(chunk, c), inner));
    ir::Stmt body = std::make_shared<ir::LetStmtNode>(loop->loop_var, index, loop->body);
    auto inner_loop = std::make_shared<ir::ForNode>(inner, ir::make_int(0, t), inner_extent, ir::ForKind::Serial, body);
    auto outer_loop = std::make_shared<ir::ForNode>(chunk, ir::make_int(0, t), chunks, loop->for_kind, inner_loop);
    (loop->for_kind == ir::ForKind::Serial ? inner_loop : outer_loop)->annotations = loop->annotations;
    return outer_loop;
  }
};

}  // namespace

ir::Stmt chunk_for_interrupts(const ir::Stmt& body) { return ChunkLongLoops().mutate(body); }

}  // namespace tsch::codegen
