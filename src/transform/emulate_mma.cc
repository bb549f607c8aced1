#include "transform/emulate_mma.h"

#include <unordered_map>

#include "arith/simplify.h"
#include "ir/buffer.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "ir/printer.h"
#include "support/error.h"
#include "transform/mma_builtins.h"

namespace tsch::transform {
namespace {

using namespace ir;

constexpr int64_t kWarp = 32;

// Integer index arithmetic written once for numbers (the unit tests) and IR (the emulation).
struct Ix {
  PrimExpr e;
};
Ix operator+(Ix a, Ix b) { return {add(a.e, b.e)}; }
Ix operator*(int64_t a, Ix b) { return {mul(make_int(a), b.e)}; }
Ix operator*(Ix a, int64_t b) { return {mul(a.e, make_int(b))}; }
Ix operator/(Ix a, int64_t b) { return {floordiv(a.e, make_int(b))}; }
Ix operator%(Ix a, int64_t b) { return {floormod(a.e, make_int(b))}; }

template <typename I>
struct Slot {
  I lane, element;
};

// PTX ISA "Matrix fragments for mma.m16n8k16" (.f16) and "mma.m16n8k32" (.s8): groupID = lane / 4
// holds row groupID (and + 8), threadID_in_group = lane % 4 its columns.
template <typename I>
Slot<I> a_slot(int64_t k_dim, I r, I k) {
  if (k_dim == 16) return {4 * (r % 8) + (k % 8) / 2, k % 2 + 2 * (r / 8) + 4 * (k / 8)};
  return {4 * (r % 8) + (k % 16) / 4, k % 4 + 4 * (r / 8) + 8 * (k / 16)};
}
template <typename I>
Slot<I> b_slot(int64_t k_dim, I k, I c) {
  if (k_dim == 16) return {4 * c + (k % 8) / 2, k % 2 + 2 * (k / 8)};
  return {4 * c + (k % 16) / 4, k % 4 + 4 * (k / 16)};
}
template <typename I>
Slot<I> c_slot(I r, I c) {
  return {4 * (r % 8) + c / 2, c % 2 + 2 * (r / 8)};
}

Stmt loop(const Var& v, int64_t extent, Stmt body) {
  return std::make_shared<ForNode>(v, make_int(0), make_int(extent), ForKind::Serial, std::move(body));
}
PrimExpr i32(const PrimExpr& e) { return cast(DataType::int32(), e); }

class MmaEmulation : public IRMutator {
 public:
  MmaEmulation(const Stmt& kernel, Var lane_x, std::unordered_set<const VarNode*> x_vars)
      : lane_x_(std::move(lane_x)), x_vars_(std::move(x_vars)) {
    for_each_stmt(kernel, [&](const Stmt& s) {
      auto* a = as<AllocateNode>(s);
      if (!a) return;
      memory_[a->buffer->data.get()] = a->buffer;
      if (a->buffer->scope != "warp") return;
      auto local = std::make_shared<BufferNode>(*a->buffer);
      local->scope = "local";
      warp_[a->buffer->data.get()] = {local, 0};
    });
    find_shares(kernel);
  }

  Stmt mutate_Allocate(const AllocateNode& a, const Stmt& self) override {
    if (!warp_.count(a.buffer->data.get())) return IRMutator::mutate_Allocate(a, self);
    return std::make_shared<AllocateNode>(warp_.at(a.buffer->data.get()).local, mutate(a.body));
  }
  Stmt mutate_BufferStore(const BufferStoreNode& st, const Stmt& self) override {
    elementwise(st.buffer, "written");
    return IRMutator::mutate_BufferStore(st, self);
  }
  Stmt mutate_Evaluate(const EvaluateNode& ev, const Stmt& self) override {
    auto* c = as<CallNode>(ev.value);
    if (!c || !is_mma_call(*c)) return IRMutator::mutate_Evaluate(ev, self);
    for (auto [data, offset] : warp_operands(*c)) {
      auto* v = as<VarNode>(c->args[data]);
      TSCH_USER_ASSERT(v && warp_.count(v), NotImplementedError)
          << "not supported yet: T." << c->op << " on " << script(c->args[data])
          << ", not a \"warp\" buffer, on the CPU emulation (it runs the "
          << "builtin in lane 0, which cannot reach the other lanes' local registers; use a warp buffer, as TVM's mma "
             "intrinsics do)";
    }
    Stmt body = c->op == "ptx_ldmatrix" ? ldmatrix(*c)
                : c->op == "ptx_mma"    ? mma(*c)
                : c->op == "mma_store"  ? store(*c)
                                        : fill(*c);
    // Lane 0 of each warp does the warp's work (threadIdx.x is one warp: checked).
    return std::make_shared<IfThenElseNode>(make_binary(ExprKind::EQ, lane_x_, make_int(0, lane_x_->dtype)), body,
                                            nullptr);
  }
  PrimExpr mutate_BufferLoad(const BufferLoadNode& l, const PrimExpr& self) override {
    elementwise(l.buffer, "read");
    return IRMutator::mutate_BufferLoad(l, self);
  }

 private:
  struct Warp {
    Buffer local;
    int64_t share;  // m: elements of each lane's part in a group of 32 * m
  };

  void elementwise(const Buffer& b, const char* what) {
    TSCH_USER_ASSERT(!warp_.count(b->data.get()), NotImplementedError)
        << "not supported yet: the warp buffer " << b->name << " is " << what
        << " element by element and by the mma builtins on the CPU "
        << "emulation (which runs the builtins in lane 0 and cannot order the other lanes' accesses with them); run it "
           "on a CUDA device, or "
        << "tensorize every block that accesses it with the mma intrinsics of tvm.tir.tensor_intrin.cuda that use "
           "T.mma_store / T.mma_fill";
  }

  // Each warp buffer's per-lane share m, as LowerWarpMemory finds it.
  void find_shares(const Stmt& kernel) {
    for_each_expr(kernel, [&](const PrimExpr& e) {
      auto* c = as<CallNode>(e);
      if (!c || (c->op != "mma_fill" && c->op != "ptx_ldmatrix")) return;
      auto it = warp_.find(as<VarNode>(c->args.at(c->op == "mma_fill" ? 1 : 3)));
      if (it == warp_.end()) return;
      int64_t m = 0;
      if (c->op == "mma_fill") {
        m = check_mma_fill(*c);
      } else {
        PrimExpr step = arith_step(c->args.at(4));
        TSCH_USER_ASSERT(as_const_int(step, &m) && m > 0, NotImplementedError)
            << "not supported yet: T.ptx_ldmatrix's offset " << script(c->args[4]) << " into " << it->second.local->name
            << " is not a constant positive multiple of threadIdx.x plus the lane's own offset";
      }
      TSCH_USER_ASSERT(it->second.share == 0 || it->second.share == m, NotImplementedError)
          << "not supported yet: writes to the warp buffer " << it->second.local->name
          << " with different strides of threadIdx.x (" << it->second.share << " and " << m << ")";
      it->second.share = m;
    });
    for (auto& [v, w] : warp_) {
      if (w.share == 0) w.share = 1;
    }
  }
  // threadIdx.x's coefficient in `e`.
  PrimExpr arith_step(const PrimExpr& e) const {
    return arith::simplify(sub(at_lane(e, make_int(1)), at_lane(e, make_int(0))));
  }

  // `e` with threadIdx.x replaced by `lane`.
  PrimExpr at_lane(const PrimExpr& e, const PrimExpr& lane) const {
    std::unordered_map<const VarNode*, PrimExpr> vmap;
    for (const VarNode* v : x_vars_) vmap[v] = cast(v->dtype, lane);
    return i32(substitute(e, vmap));
  }
  // Element x of lane `lane`'s part, its part starting at `offset` (LowerWarpMemory's
  // local index: group * m + offset % m, group = offset / (32 * m)).
  PrimExpr warp_index(const Warp& w, const PrimExpr& offset, const PrimExpr& lane, const PrimExpr& x) const {
    int64_t m = w.share;
    PrimExpr local =
        add(add(mul(floordiv(offset, make_int(kWarp * m)), make_int(m)), floormod(offset, make_int(m))), x);
    return add(add(mul(floordiv(local, make_int(m)), make_int(kWarp * m)), mul(lane, make_int(m))),
               floormod(local, make_int(m)));
  }
  const Warp& warp(const PrimExpr& data) const { return warp_.at(as<VarNode>(data)); }

  // The memory a pointer operand points into and the element it points at.
  std::pair<Buffer, PrimExpr> pointee(const PrimExpr& p, DataType t) {
    PrimExpr data = p, offset = make_int(0);
    if (auto* c = as<CallNode>(p); c && c->op == "tvm_access_ptr" && c->args.size() == 5)
      data = c->args[1], offset = i32(c->args[2]);
    auto* v = as<VarNode>(data);
    TSCH_USER_ASSERT(v, ValueError) << "the pointer operand " << script(p) << " is a buffer's .data or access_ptr";
    auto it = memory_.find(v);
    if (it != memory_.end()) {
      TSCH_USER_ASSERT(it->second->dtype == t, ValueError)
          << "the mma builtin reads " << t.to_string() << " elements from " << it->second->name << " of "
          << it->second->dtype.to_string();
      return {it->second, offset};
    }
    auto view = std::make_shared<BufferNode>(v->name, t, std::vector<PrimExpr>{make_int(1)});
    view->data = std::static_pointer_cast<const VarNode>(data);
    memory_[v] = view;
    return {view, offset};
  }

  Stmt ldmatrix(const CallNode& c) {
    auto [trans, num] = check_ptx_ldmatrix(c);
    const Warp& w = warp(c.args[3]);
    auto [smem, base] = pointee(c.args[5], c.dtype);
    Var l = make_var("lane"), j = make_var("mma_m"), x = make_var("mma_x");
    PrimExpr dst_offset = at_lane(c.args[4], l);
    auto put = [&](const PrimExpr& element, const PrimExpr& src) -> Stmt {
      return std::make_shared<BufferStoreNode>(w.local, buffer_load(smem, {src}),
                                               std::vector<PrimExpr>{warp_index(w, dst_offset, l, element)});
    };
    if (trans && c.dtype.bits == 8) {
      // TVM's loop: lane t's element i is row (i % 8) / 4 * 16 + (t % 4) * 4 + i % 4, column
      // t / 4 + (i / 8) * 8 of the tile (operand 7 is its stride).
      PrimExpr s = at_lane(c.args[6], l);
      Ix i{x}, t{l};
      PrimExpr row = ((i % 8) / 4 * 16 + 4 * (t % 4) + i % 4).e, col = (t / 4 + 8 * (i / 8)).e;
      return loop(l, kWarp, loop(x, 16, put(x, add(base, add(mul(row, s), col)))));
    }
    // One 32-bit register per matrix: `per` elements.
    int64_t per = 32 / c.dtype.bits;
    Ix t{l}, m{j}, e{x};
    PrimExpr element = (per * m + e).e, src;
    if (!trans) {
      // Row t / 4 of matrix m, at lane 8m + t / 4's address; the lane's 4 bytes of it.
      src = add(add(base, at_lane(c.args[6], (8 * m + t / 4).e)), (per * (t % 4) + e).e);
    } else {
      // Column t / 4 of matrix m: rows 2 (t % 4) and 2 (t % 4) + 1 (16-bit elements).
      src = add(add(base, at_lane(c.args[6], (8 * m + 2 * (t % 4) + e).e)), (t / 4).e);
    }
    return loop(l, kWarp, loop(j, num, loop(x, per, put(element, src))));
  }

  Stmt mma(const CallNode& c) {
    PtxMma m = check_ptx_mma(c);
    const Warp &wa = warp(c.args[6]), &wb = warp(c.args[8]), &wc = warp(c.args[10]);
    TSCH_USER_ASSERT(wa.local->dtype == m.a && wb.local->dtype == m.b && wc.local->dtype == m.c, ValueError)
        << "T.ptx_mma " << m.ptx_a << " x " << m.ptx_b << " -> " << m.ptx_c << " on buffers of "
        << wa.local->dtype.to_string() << ", " << wb.local->dtype.to_string() << " and " << wc.local->dtype.to_string();
    Var r = make_var("mma_i"), col = make_var("mma_j"), k = make_var("mma_k");
    auto element = [&](const Warp& w, size_t offset, Slot<Ix> s) {
      return warp_index(w, at_lane(c.args[offset], s.lane.e), s.lane.e, s.element.e);
    };
    PrimExpr at_c = element(wc, 11, c_slot(Ix{r}, Ix{col}));
    PrimExpr product = mul(cast(m.c, buffer_load(wa.local, {element(wa, 7, a_slot(m.k, Ix{r}, Ix{k}))})),
                           cast(m.c, buffer_load(wb.local, {element(wb, 9, b_slot(m.k, Ix{k}, Ix{col}))})));
    Stmt update = std::make_shared<BufferStoreNode>(wc.local, add(buffer_load(wc.local, {at_c}), product),
                                                    std::vector<PrimExpr>{at_c});
    return loop(r, m.m, loop(col, m.n, loop(k, m.k, update)));
  }

  Stmt store(const CallNode& c) {
    check_mma_store(c);
    const Warp& w = warp(c.args[3]);
    auto [dst, base] = pointee(c.args[2], c.dtype);
    Var l = make_var("lane"), x = make_var("local_id");
    Ix t{l}, i{x};
    PrimExpr row = (8 * (i % 4 / 2) + t / 4).e, col = (8 * (i / 4) + 2 * (t % 4) + i % 2).e;
    PrimExpr at = add(base, add(mul(row, at_lane(c.args[5], l)), col));
    PrimExpr value = buffer_load(w.local, {warp_index(w, at_lane(c.args[4], l), l, x)});
    return loop(l, kWarp, loop(x, 8, std::make_shared<BufferStoreNode>(dst, value, std::vector<PrimExpr>{at})));
  }

  Stmt fill(const CallNode& c) {
    int64_t size = check_mma_fill(c);
    const Warp& w = warp(c.args[1]);
    Var l = make_var("lane"), x = make_var("local_id");
    PrimExpr at = warp_index(w, at_lane(c.args[2], l), l, x);
    return loop(
        l, kWarp,
        loop(x, size,
             std::make_shared<BufferStoreNode>(w.local, make_const(w.local->dtype, 0), std::vector<PrimExpr>{at})));
  }

  Var lane_x_;
  std::unordered_set<const VarNode*> x_vars_;
  std::unordered_map<const VarNode*, Warp> warp_;
  std::unordered_map<const VarNode*, Buffer> memory_;
};

}  // namespace

Stmt emulate_mma(const Stmt& kernel, const Var& lane_x, const PrimExpr& x_extent,
                 const std::unordered_set<const VarNode*>& x_vars) {
  bool any = false;
  for_each_expr(kernel, [&](const PrimExpr& e) {
    if (auto* c = as<CallNode>(e); c && is_mma_call(*c)) any = true;
  });
  if (!any) return kernel;
  int64_t extent = 0;
  TSCH_USER_ASSERT(lane_x && as_const_int(x_extent, &extent) && extent == kWarp, NotImplementedError)
      << "not supported yet: the mma builtins (T.ptx_ldmatrix, T.ptx_mma, T.mma_store, T.mma_fill) in a kernel whose "
         "threadIdx.x extent is "
      << (lane_x ? script(x_extent) : std::string("not bound"))
      << "; they need threadIdx.x to be the 32 lanes of a warp (bind the warps to "
      << "threadIdx.y / threadIdx.z)";
  return MmaEmulation(kernel, lane_x, x_vars).mutate(kernel);
}

FragmentSlot mma_a_slot(int64_t k_dim, int64_t row, int64_t col) {
  auto s = a_slot<int64_t>(k_dim, row, col);
  return {s.lane, s.element};
}
FragmentSlot mma_b_slot(int64_t k_dim, int64_t row, int64_t col) {
  auto s = b_slot<int64_t>(k_dim, row, col);
  return {s.lane, s.element};
}
FragmentSlot mma_c_slot(int64_t row, int64_t col) {
  auto s = c_slot<int64_t>(row, col);
  return {s.lane, s.element};
}

}  // namespace tsch::transform
