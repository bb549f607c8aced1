// tir.LowerWarpMemory: a buffer of storage scope "warp" is striped across the lanes of a warp
// (TVM's rule; width = the threadIdx.x extent, at most the warp size). For an allocation of
// n * width * m elements whose stores write element m * lane + (width * m) * y + x (x < m,
// y < n; m is threadIdx.x's coefficient in the stores), each lane keeps its n * m elements
// in a "local" buffer at m * y + x; a store is the lane's own, a load of another lane's
// element is T.tvm_warp_shuffle(mask, local[m * y + x], lane, width, 32). Refused (with the
// reason): a store to another lane's element, a load whose position in the lane depends on
// the lane (a shuffle reads the same register in every lane), a symbolic size or width.
#include <vector>

#include "arith/int_set.h"
#include "arith/simplify.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "ir/printer.h"
#include "support/error.h"
#include "transform/emulate_mma.h"
#include "transform/mma_builtins.h"
#include "transform/pass.h"

namespace tsch::transform {
namespace {

using namespace ir;

constexpr int64_t kWarpSize = 32;

bool uses(const PrimExpr& e, const VarNode* v) {
  return uses_var(e, [v](const VarNode* x) { return x == v; });
}

// The mma builtin an Evaluate statement calls with `buf`'s data as a warp operand.
const CallNode* mma_call_on(const Stmt& s, const BufferNode* buf) {
  auto* ev = as<EvaluateNode>(s);
  auto* c = ev ? as<CallNode>(ev->value) : nullptr;
  if (!c || !is_mma_call(*c)) return nullptr;
  for (auto [data, offset] : warp_operands(*c)) {
    if (data < c->args.size() && as<VarNode>(c->args[data]) == buf->data.get()) return c;
  }
  return nullptr;
}

// Loops and threadIdx.x bindings around the statement being rewritten, for the simplifier.
class ScopedLoops : public IRMutator {
 protected:
  Stmt mutate_For(const ForNode& loop, const Stmt& self) override {
    const ForNode* saved = lane_loop_;
    if (loop.for_kind == ForKind::ThreadBinding && loop.thread_tag == "threadIdx.x") lane_loop_ = &loop;
    dom_[loop.loop_var.get()] = {loop.min,
                                 arith::simplify(sub(add(loop.min, loop.extent), make_int(1, loop.extent->dtype)))};
    Stmt out = IRMutator::mutate_For(loop, self);
    dom_.erase(loop.loop_var.get());
    lane_loop_ = saved;
    return out;
  }
  PrimExpr simplify(const PrimExpr& e) const { return arith::simplify(e, dom_); }
  const ForNode* lane_loop_ = nullptr;
  arith::VarDomain dom_;
};

// threadIdx.x's coefficient in the indices of the stores to `buf` (one for all of them).
class StoreCoefficient : public ScopedLoops {
 public:
  StoreCoefficient(const BufferNode* buf) : buf_(buf) {}
  using IRMutator::mutate;
  int64_t find(const Stmt& body) {
    mutate(body);
    return m_;
  }

 private:
  Stmt mutate_Evaluate(const EvaluateNode& n, const Stmt& self) override {
    const CallNode* c = mma_call_on(self, buf_);
    if (!c) return ScopedLoops::mutate_Evaluate(n, self);
    // T.mma_fill's local_size is m; T.ptx_ldmatrix's local offset moves by m a lane.
    if (c->op == "mma_fill") update(check_mma_fill(*c));
    if (c->op == "ptx_ldmatrix" && as<VarNode>(c->args[3]) == buf_->data.get())
      update(coefficient(c->args.at(4), "T.ptx_ldmatrix's offset"));
    return self;
  }
  Stmt mutate_BufferStore(const BufferStoreNode& st, const Stmt& self) override {
    if (st.buffer.get() != buf_) return ScopedLoops::mutate_BufferStore(st, self);
    update(coefficient(st.indices.at(0), "a store"));
    return self;
  }
  int64_t coefficient(const PrimExpr& idx, const char* what) {
    TSCH_USER_ASSERT(lane_loop_, ValueError)
        << "the warp buffer " << buf_->name << " is written outside a loop bound to threadIdx.x";
    const Var& tx = lane_loop_->loop_var;
    int64_t m = 0;
    PrimExpr step = arith::simplify(sub(substitute(idx, {{tx.get(), add(tx, make_int(1, tx->dtype))}}), idx));
    TSCH_USER_ASSERT(as_const_int(step, &m) && m > 0, NotImplementedError)
        << "not supported yet: " << what << " to the warp buffer " << buf_->name << " at " << script(idx)
        << ", not a constant positive multiple of threadIdx.x (" << tx->name << ") plus the lane's own offset";
    return m;
  }
  void update(int64_t m) {
    TSCH_USER_ASSERT(m_ == 0 || m_ == m, NotImplementedError)
        << "not supported yet: writes to the warp buffer " << buf_->name << " with different strides of threadIdx.x ("
        << m_ << " and " << m << ")";
    m_ = m;
  }
  const BufferNode* buf_;
  int64_t m_ = 0;
};

class WarpAccessRewriter : public ScopedLoops {
 public:
  WarpAccessRewriter(const BufferNode* warp, Buffer local, int64_t width, int64_t m)
      : warp_(warp), local_(std::move(local)), width_(width), m_(m) {}
  using IRMutator::mutate;

 private:
  PrimExpr mutate_BufferLoad(const BufferLoadNode& n, const PrimExpr& self) override {
    PrimExpr t = ScopedLoops::mutate_BufferLoad(n, self);
    auto* load = as<BufferLoadNode>(t);
    if (load->buffer.get() != warp_) return t;
    TSCH_USER_ASSERT(load->dtype.lanes == 1, NotImplementedError)
        << "not supported yet: a vector load of the warp buffer " << warp_->name;
    TSCH_USER_ASSERT(lane_loop_, ValueError)
        << "the warp buffer " << warp_->name << " is read outside a loop bound to threadIdx.x";
    const PrimExpr& idx = load->indices.at(0);
    PrimExpr lane = lane_of(idx), at = local_index(idx);
    TSCH_USER_ASSERT(!uses(at, lane_loop_->loop_var.get()), NotImplementedError)
        << "not supported yet: a load of the warp buffer " << warp_->name << " at " << script(idx)
        << ": its place within the lane, " << script(at)
        << ", depends on threadIdx.x (a shuffle reads the same register in every lane)";
    PrimExpr value = std::make_shared<BufferLoadNode>(load->dtype, local_, std::vector<PrimExpr>{at});
    if (is_zero(simplify(sub(lane, lane_loop_->loop_var)))) return value;  // the lane's own element
    PrimExpr mask = call(DataType::uint(32), "tvm_warp_activemask", {});
    return call(load->dtype, "tvm_warp_shuffle", {mask, value, lane, make_int(width_), make_int(kWarpSize)});
  }

  Stmt mutate_Evaluate(const EvaluateNode& n, const Stmt& self) override {
    if (const CallNode* c = mma_call_on(self, warp_)) {
      // Each warp operand's offset becomes the lane's local index (TVM's SplitIndexByGroup).
      std::vector<PrimExpr> args;
      for (const auto& a : c->args) args.push_back(mutate(a));
      for (auto [data, offset] : warp_operands(*c)) {
        if (as<VarNode>(c->args[data]) != warp_->data.get()) continue;
        // An operand that names a lane must name the calling one (a register is the lane's own).
        TSCH_USER_ASSERT(!lane_loop_ || !uses(args[offset], lane_loop_->loop_var.get()) ||
                             is_zero(simplify(sub(lane_of(args[offset]), lane_loop_->loop_var))),
                         ValueError)
            << "T." << c->op << ": the offset " << script(args[offset]) << " into the warp buffer " << warp_->name
            << " is in another lane's part, not threadIdx.x (" << lane_loop_->loop_var->name << ")'s own";
        args[data] = local_->data;
        args[offset] = local_index(args[offset]);
      }
      return std::make_shared<EvaluateNode>(call(c->dtype, c->op, args));
    }
    return ScopedLoops::mutate_Evaluate(n, self);
  }
  Stmt mutate_BufferStore(const BufferStoreNode& n, const Stmt& self) override {
    Stmt t = ScopedLoops::mutate_BufferStore(n, self);
    auto* st = as<BufferStoreNode>(t);
    if (st->buffer.get() != warp_) return t;
    const PrimExpr& idx = st->indices.at(0);
    TSCH_USER_ASSERT(is_zero(simplify(sub(lane_of(idx), lane_loop_->loop_var))), ValueError)
        << "cannot store to the warp buffer " << warp_->name << " at " << script(idx)
        << ": the element belongs to another lane than threadIdx.x (" << lane_loop_->loop_var->name << ")";
    return std::make_shared<BufferStoreNode>(local_, st->value, std::vector<PrimExpr>{local_index(idx)});
  }
  // Element i is lane (i % (width * m)) // m's, at (i // (width * m)) * m + i % m there.
  PrimExpr lane_of(const PrimExpr& i) const {
    DataType t = i->dtype;
    return simplify(floordiv(mod(i, width_ * m_), make_int(m_, t)));
  }
  PrimExpr local_index(const PrimExpr& i) const {
    DataType t = i->dtype;
    PrimExpr group = make_int(0, t);
    arith::Interval range = arith::eval_interval(i, dom_);
    int64_t lo, hi;
    // An index known to be inside the first width * m elements (`(2j + 2) % 64` over 64) is in group 0.
    if (!(range.min && range.max && as_const_int(simplify(range.min), &lo) && as_const_int(simplify(range.max), &hi) &&
          lo >= 0 && hi < width_ * m_))
      group = floordiv(i, make_int(width_ * m_, t));
    return simplify(add(mul(group, make_int(m_, t)), mod(i, m_)));
  }
  // i % k, where (a % c) % k is a % k when k divides c.
  static PrimExpr mod(const PrimExpr& i, int64_t k) {
    int64_t c;
    if (i->kind == ExprKind::FloorMod && as_const_int(binary_b(i), &c) && c > 0 && c % k == 0)
      return mod(binary_a(i), k);
    return floormod(i, make_int(k, i->dtype));
  }
  const BufferNode* warp_;
  Buffer local_;
  int64_t width_, m_;
};

class WarpMemoryLowerer : public IRMutator {
  static constexpr int64_t kSymbolicWidth = -1;

 public:
  explicit WarpMemoryLowerer(bool keep_mma_buffers) : keep_mma_buffers_(keep_mma_buffers) {}
  Stmt mutate_For(const ForNode& loop, const Stmt& self) override {
    if (loop.for_kind != ForKind::ThreadBinding || loop.thread_tag != "threadIdx.x")
      return IRMutator::mutate_For(loop, self);
    // A symbolic extent matters only to a warp buffer under it (kSymbolicWidth).
    int64_t width = 0;
    if (!as_const_int(loop.extent, &width)) width = kSymbolicWidth;
    int64_t saved = width_;
    width_ = width;
    Stmt out = IRMutator::mutate_For(loop, self);
    width_ = saved;
    return out;
  }
  Stmt mutate_Allocate(const AllocateNode& n, const Stmt& self) override {
    Stmt t = IRMutator::mutate_Allocate(n, self);
    auto* alloc = as<AllocateNode>(t);
    if (alloc->buffer->scope != "warp") return t;
    const Buffer& buf = alloc->buffer;
    if (keep_mma_buffers_) {
      bool mma = false;
      for_each_stmt(alloc->body, [&](const Stmt& x) { mma = mma || mma_call_on(x, buf.get()); });
      if (mma) return t;
    }
    TSCH_USER_ASSERT(width_ != kSymbolicWidth, NotImplementedError)
        << "not supported yet: the warp buffer " << buf->name << " in a kernel whose threadIdx.x extent is symbolic";
    int64_t width = width_ ? width_ : thread_extent(alloc->body);
    TSCH_USER_ASSERT(width > 0 && width <= kWarpSize, ValueError)
        << "the warp buffer " << buf->name << " needs threadIdx.x of at most " << kWarpSize
        << " threads (the lanes of a warp), got " << (width > 0 ? std::to_string(width) : std::string("none"));
    int64_t size = 0;
    TSCH_USER_ASSERT(buf->shape.size() == 1 && as_const_int(buf->shape[0], &size), NotImplementedError)
        << "not supported yet: the warp buffer " << buf->name << " of a symbolic size";
    int64_t m = StoreCoefficient(buf.get()).find(alloc->body);
    if (m == 0) m = 1;  // never stored: read only
    TSCH_USER_ASSERT(size % (width * m) == 0, ValueError)
        << "the warp buffer " << buf->name << " has " << size << " elements, not a multiple of threadIdx.x's " << width
        << " lanes times " << m << " elements each";
    Buffer local = buffer_with(buf, buf->name, {make_int(size / width, buf->shape[0]->dtype)}, "local");
    Stmt body = WarpAccessRewriter(buf.get(), local, width, m).mutate(alloc->body);
    return std::make_shared<AllocateNode>(local, body);
  }

 private:
  // The threadIdx.x extent of the loops in `s` (a warp buffer allocated above its binding).
  static int64_t thread_extent(const Stmt& s) {
    int64_t width = 0;
    for_each_stmt(s, [&](const Stmt& x) {
      auto* loop = as<ForNode>(x);
      int64_t e;
      if (loop && loop->for_kind == ForKind::ThreadBinding && loop->thread_tag == "threadIdx.x" &&
          as_const_int(loop->extent, &e))
        width = e;
    });
    return width;
  }
  int64_t width_ = 0;
  bool keep_mma_buffers_;
};

}  // namespace

Pass lower_warp_memory() {
  return {"tir.LowerWarpMemory",
          [](const PrimFunc& f) { return with_body(f, WarpMemoryLowerer(false).mutate(f->body)); }};
}

Pass lower_warp_memory_keeping_mma_buffers() {
  return {"tir.LowerWarpMemory",
          [](const PrimFunc& f) { return with_body(f, WarpMemoryLowerer(true).mutate(f->body)); }};
}

}  // namespace tsch::transform
