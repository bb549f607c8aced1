// The CPU emulation of GPU kernels (the MCUDA / CuPBoP technique): each kernel becomes loops
// over its thread blocks around the block's program, and the program runs for every thread
// of the block between two barriers before any thread goes past the second. A barrier
// T.tvm_storage_sync("shared") splits the program into phases: a statement sequence around it
// is split, and a loop or uniform branch containing one is kept outside the thread loops with
// its body split. Shared buffers are allocated once per block; local buffers live across a
// barrier as one copy per thread.
#include "transform/threads_as_loops.h"

#include <map>
#include <unordered_map>
#include <unordered_set>

#include "ir/functor.h"
#include "ir/op.h"
#include "support/error.h"
#include "transform/emulate_mma.h"
#include "transform/emulate_warp_shuffles.h"
#include "transform/emulate_wmma.h"
#include "transform/pipeline.h"

namespace tsch::transform {
namespace {

using namespace ir;

bool is_barrier(const Stmt& s) {
  auto* e = as<EvaluateNode>(s);
  auto* c = e ? as<CallNode>(e->value) : nullptr;
  return c && c->op == "tvm_storage_sync";
}

// A statement the threads may run one after another without meeting: no barrier, no
// shared allocation inside.
bool is_straight(const Stmt& s) {
  bool straight = true;
  for_each_stmt(s, [&](const Stmt& x) {
    if (is_barrier(x)) straight = false;
    if (auto* a = as<AllocateNode>(x); a && a->buffer->scope != "local") straight = false;
  });
  return straight;
}

const char* kBlockTags[] = {"blockIdx.z", "blockIdx.y", "blockIdx.x"};
const char* kThreadTags[] = {"threadIdx.z", "threadIdx.y", "threadIdx.x"};

class KernelEmulation {
 public:
  KernelEmulation(const Stmt& kernel, ThreadOrder order) : order_(order) { collect(kernel); }

  Stmt run(const Stmt& kernel) {
    Stmt body = fission(strip(wmma_on_first_lanes(kernel)));
    for (int i = 2; i >= 0; --i) {
      auto it = axes_.find(kBlockTags[i]);
      if (it != axes_.end())
        body = std::make_shared<ForNode>(it->second.var, make_int(0), it->second.extent, ForKind::Serial, body);
    }
    // Constant block sizes were checked at build (split_host_device); a symbolic one is
    // checked at the launch, before per-thread copies sized by it are allocated.
    bool symbolic = false;
    std::vector<PrimExpr> args{std::make_shared<StringImmNode>(kEmulationLaunchCheck)};
    for (int i = 2; i >= 0; --i) {
      auto it = axes_.find(kThreadTags[i]);
      PrimExpr extent = it == axes_.end() ? make_int(1, DataType::int64()) : cast(DataType::int64(), it->second.extent);
      int64_t c;
      symbolic |= !as_const_int(extent, &c);
      args.push_back(extent);
    }
    if (!symbolic) return body;
    Stmt check = std::make_shared<EvaluateNode>(call(DataType::int32(), "call_packed", args));
    return std::make_shared<SeqStmtNode>(std::vector<Stmt>{check, body});
  }

 private:
  struct Axis {
    Var var;
    PrimExpr extent;
  };

  // The axes and their canonical variables (the outermost loop's); inner loops bound to the
  // same axis are the same thread index.
  void collect(const Stmt& kernel) {
    for_each_stmt(kernel, [&](const Stmt& s) {
      if (!is_thread_loop(s)) return;
      auto* f = as<ForNode>(s);
      auto [it, fresh] = axes_.emplace(f->thread_tag, Axis{f->loop_var, f->extent});
      if (!fresh) canonical_[f->loop_var.get()] = it->second.var;
    });
    for (const char* tag : kThreadTags) {
      auto it = axes_.find(tag);
      if (it == axes_.end()) continue;
      threads_.push_back(it->second);
      thread_vars_.insert(it->second.var.get());
    }
  }

  // Tensor-core operations run once per warp (emulate_wmma.h, emulate_mma.h).
  Stmt wmma_on_first_lanes(const Stmt& kernel) const {
    auto x = axes_.find("threadIdx.x");
    if (x == axes_.end()) return emulate_mma(emulate_wmma(kernel, nullptr, nullptr, {}), nullptr, nullptr, {});
    std::unordered_set<const VarNode*> x_vars{x->second.var.get()};
    for (const auto& [v, canonical] : canonical_)
      if (canonical.get() == x->second.var.get()) x_vars.insert(v);
    return emulate_mma(emulate_wmma(kernel, x->second.var, x->second.extent, x_vars), x->second.var, x->second.extent,
                       x_vars);
  }

  // The kernel as one thread's program: thread-bound loops replaced by their bodies.
  Stmt strip(const Stmt& kernel) {
    class Strip : public IRMutator {
     public:
      explicit Strip(const std::unordered_map<const VarNode*, PrimExpr>& canonical) : canonical_(canonical) {}
      Stmt mutate_For(const ForNode& loop, const Stmt& self) override {
        if (is_thread_loop(self)) return mutate(loop.body);
        return IRMutator::mutate_For(loop, self);
      }
      PrimExpr mutate_Var(const VarNode& v, const PrimExpr& self) override {
        auto it = canonical_.find(&v);
        return it != canonical_.end() ? it->second : self;
      }

     private:
      const std::unordered_map<const VarNode*, PrimExpr>& canonical_;
    };
    return Strip(canonical_).mutate(kernel);
  }

  bool uses_thread(const PrimExpr& e) const {
    return e && uses_var(e, [&](const VarNode* v) { return thread_vars_.count(v) > 0 || per_thread_.count(v) > 0; });
  }
  bool reads_memory(const PrimExpr& e) const {
    bool reads = false;
    for_each_expr(e, [&](const PrimExpr& x) { reads = reads || as<BufferLoadNode>(x) != nullptr; });
    return reads;
  }

  // `s` run by every thread of the block, in the chosen order. Values the threads bound
  // before a barrier (`recomputed_`) are bound again inside.
  Stmt for_each_thread(Stmt s) {
    for (auto it = recomputed_.rbegin(); it != recomputed_.rend(); ++it) {
      bool used = false;
      for_each_expr(s, [&](const PrimExpr& e) { used = used || (as<VarNode>(e) == it->first.get()); });
      if (used) s = std::make_shared<LetStmtNode>(it->first, it->second, s);
    }
    for (auto it = threads_.rbegin(); it != threads_.rend(); ++it) {
      if (order_ == ThreadOrder::Forward) {
        s = std::make_shared<ForNode>(it->var, make_int(0, it->extent->dtype), it->extent, ForKind::Serial, s);
      } else {
        Var t = make_var(it->var->name + "_reversed", it->var->dtype);
        Stmt body = std::make_shared<LetStmtNode>(it->var, sub(sub(it->extent, make_int(1, it->extent->dtype)), t), s);
        s = std::make_shared<ForNode>(t, make_int(0, it->extent->dtype), it->extent, ForKind::Serial, body);
      }
    }
    return s;
  }

  [[noreturn]] void refuse(const std::string& what) const {
    TSCH_USER_ASSERT(false, NotImplementedError)
        << "not supported yet: running on the CPU a CUDA kernel with a barrier " << what;
  }

  Stmt fission(const Stmt& s) {
    if (is_barrier(s)) return make_seq({});
    if (is_straight(s)) return for_each_thread(s);
    switch (s->kind) {
      case StmtKind::SeqStmt: {
        std::vector<Stmt> out, run;
        auto flush = [&] {
          if (!run.empty()) out.push_back(for_each_thread(make_seq(std::move(run))));
          run.clear();
        };
        for (const Stmt& x : as<SeqStmtNode>(s)->seq) {
          if (is_straight(x)) {
            run.push_back(x);
            continue;
          }
          flush();
          out.push_back(fission(x));
        }
        flush();
        return make_seq(std::move(out));
      }
      case StmtKind::For: {
        auto* f = as<ForNode>(s);
        if (uses_thread(f->min) || uses_thread(f->extent))
          refuse("inside a loop whose bounds depend on the thread (" + f->loop_var->name + ")");
        auto loop = std::make_shared<ForNode>(*f);
        loop->for_kind = ForKind::Serial;
        loop->body = fission(f->body);
        return loop;
      }
      case StmtKind::IfThenElse: {
        auto* branch = as<IfThenElseNode>(s);
        if (uses_thread(branch->condition)) refuse("under a condition that depends on the thread");
        return std::make_shared<IfThenElseNode>(branch->condition, fission(branch->then_case),
                                                branch->else_case ? fission(branch->else_case) : nullptr);
      }
      case StmtKind::LetStmt: {
        auto* let = as<LetStmtNode>(s);
        if (!uses_thread(let->value) && !reads_memory(let->value))
          return std::make_shared<LetStmtNode>(let->var, let->value, fission(let->body));
        if (reads_memory(let->value)) refuse("after a value read from memory before it (" + let->var->name + ")");
        recomputed_.emplace_back(let->var, let->value);
        per_thread_.insert(let->var.get());
        Stmt body = fission(let->body);
        recomputed_.pop_back();
        return body;
      }
      case StmtKind::Allocate: {
        auto* a = as<AllocateNode>(s);
        if (a->buffer->scope != "local") return std::make_shared<AllocateNode>(a->buffer, fission(a->body));
        return per_thread_copies(*a);
      }
      case StmtKind::DeclBuffer: {
        auto* d = as<DeclBufferNode>(s);
        return std::make_shared<DeclBufferNode>(d->buffer, fission(d->body));
      }
      case StmtKind::BufferStore:
      case StmtKind::Block:
      case StmtKind::BlockRealize:
      case StmtKind::Evaluate:
      case StmtKind::AllocateConst:
      case StmtKind::AttrStmt:
        break;
    }
    refuse("in a statement tsch cannot split");
  }

  // A local buffer alive across a barrier: one copy per thread, indexed by the thread.
  Stmt per_thread_copies(const AllocateNode& a) {
    // In int64: a symbolic block size times a buffer's size must not wrap (the allocation
    // checks the product for overflow; the launch check bounds the block size).
    DataType i64 = DataType::int64();
    PrimExpr size = make_int(1, i64);
    for (const auto& d : a.buffer->shape) size = mul(size, cast(i64, d));
    PrimExpr thread = make_int(0, i64);
    PrimExpr count = make_int(1, i64);
    for (const Axis& t : threads_) {
      thread = add(mul(thread, cast(i64, t.extent)), cast(i64, t.var));
      count = mul(count, cast(i64, t.extent));
    }
    size = arith_simplify(size);
    Buffer copies = buffer_with(a.buffer, a.buffer->name, {arith_simplify(mul(count, size))}, "local");
    class Redirect : public IRMutator {
     public:
      Redirect(const BufferNode* from, Buffer to, PrimExpr base)
          : from_(from), to_(std::move(to)), base_(std::move(base)) {}
      Stmt mutate_BufferStore(const BufferStoreNode& n, const Stmt& self) override {
        Stmt out = IRMutator::mutate_BufferStore(n, self);
        auto* st = as<BufferStoreNode>(out);
        if (st->buffer->data != from_->data) return out;
        return std::make_shared<BufferStoreNode>(to_, st->value, std::vector<PrimExpr>{add(base_, st->indices.at(0))});
      }
      PrimExpr mutate_BufferLoad(const BufferLoadNode& n, const PrimExpr& self) override {
        PrimExpr out = IRMutator::mutate_BufferLoad(n, self);
        auto* l = as<BufferLoadNode>(out);
        if (l->buffer->data != from_->data) return out;
        return std::make_shared<BufferLoadNode>(l->dtype, to_, std::vector<PrimExpr>{add(base_, l->indices.at(0))});
      }

     private:
      const BufferNode* from_;
      Buffer to_;
      PrimExpr base_;
    };
    TSCH_INTERNAL_ASSERT(a.buffer->shape.size() == 1) << "a local buffer of a lowered kernel is flat";
    Stmt body = Redirect(a.buffer.get(), copies, mul(thread, size)).mutate(a.body);
    return std::make_shared<AllocateNode>(copies, fission(body));
  }

  static PrimExpr arith_simplify(const PrimExpr& e) {
    int64_t v;
    return as_const_int(e, &v) ? make_int(v, e->dtype) : e;
  }

  ThreadOrder order_;
  std::map<std::string, Axis> axes_;
  std::vector<Axis> threads_;  // z, y, x
  std::unordered_set<const VarNode*> thread_vars_, per_thread_;
  std::unordered_map<const VarNode*, PrimExpr> canonical_;
  std::vector<std::pair<Var, PrimExpr>> recomputed_;
};

class EmulateKernels : public IRMutator {
 public:
  explicit EmulateKernels(ThreadOrder order) : order_(order) {}
  Stmt mutate_For(const ForNode& loop, const Stmt& self) override {
    if (!is_thread_loop(self)) return IRMutator::mutate_For(loop, self);
    return KernelEmulation(self, order_).run(self);
  }

 private:
  ThreadOrder order_;
};

}  // namespace

IRModule threads_as_loops(const IRModule& module, ThreadOrder order) {
  // Warp shuffles first become exchanges through shared memory between barriers.
  IRModule lowered = emulate_warp_shuffles(module);
  auto out = std::make_shared<IRModuleNode>();
  out->attrs = lowered->attrs;
  for (const auto& [name, base] : lowered->functions) {
    PrimFunc f = as_prim_func(base);
    out->functions.emplace_back(name, f ? with_body(f, EmulateKernels(order).mutate(f->body)) : base);
  }
  return out;
}

}  // namespace tsch::transform
