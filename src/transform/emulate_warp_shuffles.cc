#include "transform/emulate_warp_shuffles.h"

#include <map>

#include "ir/functor.h"
#include "ir/op.h"
#include "support/error.h"
#include "transform/pass.h"

namespace tsch::transform {
namespace {

using namespace ir;

bool is_shuffle(const CallNode* c) {
  return c && (c->op == "tvm_warp_shuffle_down" || c->op == "tvm_warp_shuffle") && c->args.size() == 5;
}

const CallNode* find_shuffle(const Stmt& s) {
  const CallNode* found = nullptr;
  for_each_expr(s, [&](const PrimExpr& e) {
    if (auto* c = as<CallNode>(e); !found && is_shuffle(c)) found = c;
  });
  return found;
}

class Emulator : public IRMutator {
 public:
  PrimExpr mutate_Call(const CallNode& n, const PrimExpr& self) override {
    PrimExpr t = IRMutator::mutate_Call(n, self);
    auto* c = as<CallNode>(t);
    if (c && c->op == "tvm_warp_activemask") return make_int(0xffffffffLL, DataType::uint(32));
    return t;
  }

  Stmt mutate_For(const ForNode& loop, const Stmt& self) override {
    if (loop.for_kind != ForKind::ThreadBinding || loop.thread_tag.rfind("threadIdx.", 0) != 0)
      return IRMutator::mutate_For(loop, self);
    axes_[loop.thread_tag] = {loop.loop_var, loop.extent};
    Stmt out = IRMutator::mutate_For(loop, self);
    axes_.erase(loop.thread_tag);
    return out;
  }

  // The leaves that may read a shuffle.
  Stmt mutate_BufferStore(const BufferStoreNode& n, const Stmt& self) override {
    const CallNode* shuffle = find_shuffle(self);
    return shuffle ? exchange(self, *shuffle) : IRMutator::mutate_BufferStore(n, self);
  }
  Stmt mutate_Evaluate(const EvaluateNode& n, const Stmt& self) override {
    const CallNode* shuffle = find_shuffle(self);
    // The shuffle's own operands hold no shuffle (the lowering makes none that nest); its
    // mask may read T.tvm_warp_activemask(), which needs no exchange.
    return shuffle ? exchange(self, *shuffle) : IRMutator::mutate_Evaluate(n, self);
  }

 private:
  struct Axis {
    Var var;
    PrimExpr extent;
  };

  // `s` (a store or evaluation reading one shuffle) with the shuffle read through shared memory.
  Stmt exchange(const Stmt& s, const CallNode& shuffle) {
    // The thread's position in its block and the block's thread count.
    PrimExpr tid = make_int(0), threads = make_int(1);
    for (const char* tag : {"threadIdx.z", "threadIdx.y", "threadIdx.x"}) {
      auto it = axes_.find(tag);
      if (it == axes_.end()) continue;
      tid = add(mul(tid, it->second.extent), it->second.var);
      threads = mul(threads, it->second.extent);
    }
    int64_t count = 0;
    TSCH_USER_ASSERT(as_const_int(threads, &count), NotImplementedError)
        << "not supported yet: a warp shuffle on the CPU emulation in a block of a symbolic thread count";
    const PrimExpr& value = shuffle.args[1];
    const PrimExpr& arg = shuffle.args[2];
    const PrimExpr& width = shuffle.args[3];
    Buffer xchg = make_buffer("warp_exchange", value->dtype, {make_int(count)}, "shared");
    PrimExpr lane = floormod(tid, width);
    PrimExpr read;
    if (shuffle.op == "tvm_warp_shuffle_down") {
      PrimExpr inside = make_binary(ExprKind::LT, add(lane, arg), width);
      read = std::make_shared<CallNode>(value->dtype, "if_then_else",
                                        std::vector<PrimExpr>{inside, buffer_load(xchg, {add(tid, arg)}), value});
    } else {
      read = buffer_load(xchg, {add(sub(tid, lane), arg)});
    }
    const CallNode* target = &shuffle;
    // A statement reading several shuffles exchanges them one after the other.
    Stmt replaced = mutate(substitute_calls(s, target, read));
    auto barrier = [] {
      return std::make_shared<EvaluateNode>(
          call(DataType::int32(), "tvm_storage_sync", {std::make_shared<StringImmNode>("shared")}));
    };
    Stmt body = make_seq(
        {std::make_shared<BufferStoreNode>(xchg, value, std::vector<PrimExpr>{tid}), barrier(), replaced, barrier()});
    return std::make_shared<AllocateNode>(xchg, body);
  }

  // `s` with the call node `target` replaced by `by`.
  static Stmt substitute_calls(const Stmt& s, const CallNode* target, const PrimExpr& by) {
    struct Replace : IRMutator {
      const CallNode* target;
      PrimExpr by;
      PrimExpr mutate_Call(const CallNode& n, const PrimExpr& self) override {
        return &n == target ? by : IRMutator::mutate_Call(n, self);
      }
    } r;
    r.target = target;
    r.by = by;
    return r.mutate(s);
  }

  std::map<std::string, Axis> axes_;
};

}  // namespace

IRModule emulate_warp_shuffles(const IRModule& lowered) {
  auto out = std::make_shared<IRModuleNode>();
  out->attrs = lowered->attrs;
  for (const auto& [name, base] : lowered->functions) {
    PrimFunc f = as_prim_func(base);
    out->functions.emplace_back(name, f ? with_body(f, Emulator().mutate(f->body)) : base);
  }
  return out;
}

}  // namespace tsch::transform
