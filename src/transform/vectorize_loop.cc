// tir.VectorizeLoop: a loop marked vectorized with a constant extent becomes one vector
// statement: its variable turns into Ramp(min, 1, lanes), scalar operands next to vector ones
// are broadcast, and accesses with vector indices become vector loads and stores. Loops this
// cannot handle (symbolic extent, inner loops, branches, reductions into one element) run as
// scalar loops, with a note. Loops of more than 64 iterations become a loop over vectors of
// at most 64 lanes.
#include "arith/known_divisor.h"
#include "arith/simplify.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "ir/printer.h"
#include "support/error.h"
#include "transform/pass.h"
#include "transform/pipeline.h"

namespace tsch::transform {
namespace {

using ir::ExprKind;
using ir::PrimExpr;
using ir::StmtKind;

struct CannotVectorize {
  std::string why;
};

PrimExpr broadcast(const PrimExpr& e, int lanes) {
  if (e->dtype.lanes == lanes) return e;
  return std::make_shared<ir::BroadcastNode>(e, lanes);
}

template <ExprKind K>
PrimExpr make_node(ir::DataType t, PrimExpr a, PrimExpr b) {
  return std::make_shared<ir::BinaryNode<K>>(t, std::move(a), std::move(b));
}

// The one value of every lane of `e` (a scalar, or a Broadcast's value), or null.
PrimExpr uniform_value(const PrimExpr& e) {
  if (e->dtype.lanes == 1) return e;
  if (auto* b = ir::as<ir::BroadcastNode>(e)) return b->value;
  return nullptr;
}

PrimExpr vector_binary(ExprKind kind, PrimExpr a, PrimExpr b) {
  int lanes = std::max(a->dtype.lanes, b->dtype.lanes);
  auto* ra = ir::as<ir::RampNode>(a);
  auto* rb = ir::as<ir::RampNode>(b);
  PrimExpr ua = uniform_value(a), ub = uniform_value(b);
  if (ua && ub) {
    PrimExpr scalar = ir::make_binary(kind, ua, ub);
    return lanes == 1 ? scalar : broadcast(scalar, lanes);
  }
  // Keep index arithmetic in Ramp form so code generation sees contiguous accesses.
  if (kind == ExprKind::Add || kind == ExprKind::Sub) {
    if (ra && ub) return std::make_shared<ir::RampNode>(ir::make_binary(kind, ra->base, ub), ra->stride, lanes);
    if (rb && ua && kind == ExprKind::Add)
      return std::make_shared<ir::RampNode>(ir::add(ua, rb->base), rb->stride, lanes);
    if (ra && rb)
      return std::make_shared<ir::RampNode>(ir::make_binary(kind, ra->base, rb->base),
                                            ir::make_binary(kind, ra->stride, rb->stride), lanes);
  }
  if (kind == ExprKind::Mul) {
    if (ra && ub) return std::make_shared<ir::RampNode>(ir::mul(ra->base, ub), ir::mul(ra->stride, ub), lanes);
    if (rb && ua) return std::make_shared<ir::RampNode>(ir::mul(ua, rb->base), ir::mul(ua, rb->stride), lanes);
  }
  // A contiguous run of `lanes` starting at a multiple of `lanes` stays inside one block of a
  // divisor that `lanes` divides: `Ramp(4t, 1, 4) // 8` is `Broadcast(4t // 8)`, and `% 8` a
  // Ramp again (TVM's vectorized index simplification; it keeps a fused loop's fetch contiguous).
  int64_t c;
  if ((kind == ExprKind::FloorDiv || kind == ExprKind::FloorMod) && ra && ir::is_one(ra->stride) && ub &&
      ir::as_const_int(ub, &c) && c > 0 && c % ra->lanes == 0 &&
      arith::known_multiple_of(arith::simplify(ra->base), ra->lanes)) {
    if (kind == ExprKind::FloorDiv) return broadcast(ir::floordiv(ra->base, ub), lanes);
    return std::make_shared<ir::RampNode>(ir::floormod(ra->base, ub), ra->stride, lanes);
  }
  if (a->dtype.lanes == 1 && b->dtype.lanes == 1) return ir::make_binary(kind, a, b);
  a = broadcast(a, lanes);
  b = broadcast(b, lanes);
  bool cmp = kind >= ExprKind::EQ && kind <= ExprKind::GE;
  ir::DataType t = cmp ? ir::DataType::bool_(lanes) : a->dtype;
  switch (kind) {
#define TSCH_CASE(name) \
  case ExprKind::name:  \
    return make_node<ExprKind::name>(t, a, b);
    TSCH_IR_BINARY_KINDS(TSCH_CASE)
#undef TSCH_CASE
    case ExprKind::IntImm:
    case ExprKind::FloatImm:
    case ExprKind::StringImm:
    case ExprKind::Var:
    case ExprKind::Not:
    case ExprKind::Select:
    case ExprKind::Cast:
    case ExprKind::BufferLoad:
    case ExprKind::Call:
    case ExprKind::Ramp:
    case ExprKind::Broadcast:
    case ExprKind::Let:
      break;
  }
  throw CannotVectorize{"operator"};
}

class Vectorizer : public ir::IRMutator {
 public:
  Vectorizer(const ir::VarNode* var, PrimExpr ramp) : var_(var), ramp_(std::move(ramp)) {}

  using IRMutator::mutate;
  // Whole-node with every kind listed: a new one must say how it vectorizes (or refuse); the
  // per-node defaults would vectorize it by its children.
  PrimExpr mutate(const PrimExpr& e) override {
    switch (e->kind) {
      TSCH_IR_BINARY_KINDS(TSCH_IR_BINARY_CASE) {
        PrimExpr a = mutate(ir::binary_a(e)), b = mutate(ir::binary_b(e));
        if (a == ir::binary_a(e) && b == ir::binary_b(e)) return e;
        return vector_binary(e->kind, a, b);
      }
      case ExprKind::Var:
        return e.get() == var_ ? ramp_ : e;
      case ExprKind::IntImm:
      case ExprKind::FloatImm:
      case ExprKind::StringImm:
        return e;
      case ExprKind::Ramp:
      case ExprKind::Broadcast:
      case ExprKind::Let:
        throw CannotVectorize{"nested vector expression"};
      case ExprKind::BufferLoad: {
        auto* load = ir::as<ir::BufferLoadNode>(e);
        PrimExpr idx = mutate(load->indices[0]);
        if (idx == load->indices[0]) return e;
        return std::make_shared<ir::BufferLoadNode>(load->dtype.with_lanes(idx->dtype.lanes), load->buffer,
                                                    std::vector<PrimExpr>{idx});
      }
      case ExprKind::Cast: {
        auto* c = ir::as<ir::CastNode>(e);
        PrimExpr v = mutate(c->value);
        if (v == c->value) return e;
        return std::make_shared<ir::CastNode>(c->dtype.with_lanes(v->dtype.lanes), v);
      }
      case ExprKind::Not: {
        auto* n = ir::as<ir::NotNode>(e);
        PrimExpr v = mutate(n->a);
        return v == n->a ? e : std::make_shared<ir::NotNode>(v);
      }
      case ExprKind::Select: {
        auto* s = ir::as<ir::SelectNode>(e);
        PrimExpr c = mutate(s->condition), t = mutate(s->true_value), f = mutate(s->false_value);
        if (c == s->condition && t == s->true_value && f == s->false_value) return e;
        int lanes = std::max({c->dtype.lanes, t->dtype.lanes, f->dtype.lanes});
        return std::make_shared<ir::SelectNode>(broadcast(c, lanes), broadcast(t, lanes), broadcast(f, lanes));
      }
      case ExprKind::Call: {
        auto* call = ir::as<ir::CallNode>(e);
        if (call->op == "if_then_else") throw CannotVectorize{"if_then_else"};
        std::vector<PrimExpr> args;
        int lanes = 1;
        bool changed = false;
        for (const auto& a : call->args) {
          args.push_back(mutate(a));
          changed |= args.back() != a;
          lanes = std::max(lanes, args.back()->dtype.lanes);
        }
        if (!changed) return e;
        for (auto& a : args) a = broadcast(a, lanes);
        return std::make_shared<ir::CallNode>(call->dtype.with_lanes(lanes), call->op, std::move(args));
      }
    }
    throw CannotVectorize{"expression"};  // not reached: the switch covers every kind
  }

  // T.ptx_cp_async(dst, dst_offset, src, src_offset, bytes) of each lane's element: one copy
  // of lanes * bytes when both runs are contiguous, start at a multiple of the lane count and
  // make 8 or 16 bytes (cp.async's sizes; its addresses must be aligned to them).
  ir::Stmt async_copy(const ir::EvaluateNode& ev) {
    auto* c = ir::as<ir::CallNode>(ev.value);
    if (!c || c->op != "ptx_cp_async" || c->args.size() != 5) throw CannotVectorize{"a statement kind"};
    PrimExpr dst = mutate(c->args[1]), src = mutate(c->args[3]);
    if (dst == c->args[1] && src == c->args[3]) throw CannotVectorize{"an asynchronous copy to one element"};
    auto* rd = ir::as<ir::RampNode>(dst);
    auto* rs = ir::as<ir::RampNode>(src);
    int64_t bytes;
    if (!rd || !rs || !ir::is_one(rd->stride) || !ir::is_one(rs->stride) || !ir::as_const_int(c->args[4], &bytes))
      throw CannotVectorize{"an asynchronous copy of elements that are not contiguous"};
    int64_t total = bytes * rd->lanes;
    if ((total != 8 && total != 16) || !arith::known_multiple_of(arith::simplify(rd->base), rd->lanes) ||
        !arith::known_multiple_of(arith::simplify(rs->base), rs->lanes))
      throw CannotVectorize{"an asynchronous copy not of 8 or 16 aligned bytes"};
    return std::make_shared<ir::EvaluateNode>(ir::call(
        c->dtype, c->op, {c->args[0], rd->base, c->args[2], rs->base, ir::make_int(total, c->args[4]->dtype)}));
  }

  // Whole-node with every kind listed: a new one must say how it vectorizes (or refuse).
  ir::Stmt mutate(const ir::Stmt& s) override {
    switch (s->kind) {
      case StmtKind::BufferStore: {
        auto* store = ir::as<ir::BufferStoreNode>(s);
        PrimExpr idx = mutate(store->indices[0]), value = mutate(store->value);
        if (idx->dtype.lanes == 1 && value->dtype.lanes != 1)
          throw CannotVectorize{"all lanes store to one element (a reduction)"};
        if (idx == store->indices[0] && value == store->value) return s;
        return std::make_shared<ir::BufferStoreNode>(store->buffer, broadcast(value, idx->dtype.lanes),
                                                     std::vector<PrimExpr>{idx});
      }
      case StmtKind::SeqStmt:
        return mutate_children(s);
      case StmtKind::Evaluate:
        return async_copy(*ir::as<ir::EvaluateNode>(s));
      case StmtKind::LetStmt: {
        auto* let = ir::as<ir::LetStmtNode>(s);
        if (mutate(let->value) != let->value) throw CannotVectorize{"a let binding that depends on the loop variable"};
        return mutate_children(s);
      }
      case StmtKind::For:
        throw CannotVectorize{"an inner loop"};
      case StmtKind::IfThenElse:
        throw CannotVectorize{"a branch"};
      case StmtKind::Block:
      case StmtKind::BlockRealize:
      case StmtKind::Allocate:
      case StmtKind::DeclBuffer:
      case StmtKind::AllocateConst:
      case StmtKind::AttrStmt:
        break;
    }
    throw CannotVectorize{"a statement kind"};
  }

 private:
  const ir::VarNode* var_;
  PrimExpr ramp_;
};

// Vectors wider than this are split into chunks: a vectorized fused loop of 16384
// iterations would otherwise become one 16384-lane vector, which LLVM takes minutes to
// legalize. 64 lanes is four AVX-512 registers of float32.
constexpr int64_t kMaxLanes = 64;

// The widest chunk of at most kMaxLanes lanes that divides `lanes` evenly, or 1.
int64_t chunk_lanes(int64_t lanes) {
  for (int64_t c = kMaxLanes; c > 1; --c) {
    if (lanes % c == 0) return c;
  }
  return 1;
}

class LoopVectorizer : public ir::IRMutator {
 public:
  explicit LoopVectorizer(bool enabled) : enabled_(enabled) {}
  // Post-order: a loop is vectorized after the loops inside it.
  ir::Stmt mutate_For(const ir::ForNode& n, const ir::Stmt& self) override {
    ir::Stmt t = IRMutator::mutate_For(n, self);
    auto* loop = ir::as<ir::ForNode>(t);
    if (loop->for_kind != ir::ForKind::Vectorized) return t;
    TSCH_USER_ASSERT(loop->has_trivial_step(), ValueError)
        << "tir.VectorizeLoop: loop " << loop->loop_var->name << " has a step; tir.CanonicalizeLoop must run first";
    int64_t lanes;
    std::string why;
    if (!enabled_) {
      // Falls through to the serial loop below.
    } else if (!ir::as_const_int(loop->extent, &lanes)) {
      why = "its extent " + ir::script(loop->extent) + " is not a constant";
    } else if (lanes > kMaxLanes && chunk_lanes(lanes) == 1) {
      why =
          "its extent " + std::to_string(lanes) + " has no divisor of at most " + std::to_string(kMaxLanes) + " lanes";
    } else if (lanes > 1) {
      try {
        if (lanes > kMaxLanes) return vectorize_in_chunks(*loop, lanes);
        PrimExpr ramp =
            std::make_shared<ir::RampNode>(loop->min, ir::make_int(1, loop->min->dtype), static_cast<int>(lanes));
        return Vectorizer(loop->loop_var.get(), ramp).mutate(loop->body);
      } catch (const CannotVectorize& e) {
        // Only "this body has no vector form" falls back; anything else is a bug to report.
        why = "its body has " + e.why;
      }
    }
    if (!why.empty()) lowering_notes().push_back("loop " + loop->loop_var->name + " runs as a scalar loop: " + why);
    auto f = std::make_shared<ir::ForNode>(*loop);
    f->for_kind = ir::ForKind::Serial;
    return f;
  }

 private:
  // for v in T.vectorized(n) with n > kMaxLanes: for v_o in range(n / c), vector body of c lanes.
  ir::Stmt vectorize_in_chunks(const ir::ForNode& loop, int64_t lanes) {
    int64_t chunk = chunk_lanes(lanes);
    ir::DataType t = loop.min->dtype;
    ir::Var outer = ir::make_var(loop.loop_var->name + "_o", loop.loop_var->dtype);
    PrimExpr base = arith::simplify(ir::add(loop.min, ir::mul(PrimExpr(outer), ir::make_int(chunk, t))));
    PrimExpr ramp = std::make_shared<ir::RampNode>(base, ir::make_int(1, t), static_cast<int>(chunk));
    ir::Stmt body = Vectorizer(loop.loop_var.get(), ramp).mutate(loop.body);
    lowering_notes().push_back("loop " + loop.loop_var->name + " is vectorized in chunks of " + std::to_string(chunk) +
                               " lanes (its extent " + std::to_string(lanes) + " is above " +
                               std::to_string(kMaxLanes) + ")");
    return std::make_shared<ir::ForNode>(outer, ir::make_int(0, t), ir::make_int(lanes / chunk, t), ir::ForKind::Serial,
                                         body);
  }

  bool enabled_;
};

}  // namespace

Pass vectorize_loop() {
  // PassContext config tir.disable_vectorize: vectorized loops run as serial loops (no note).
  return prim_func_pass(
      {"tir.VectorizeLoop", 0, {}}, [](const ir::PrimFunc& f, const ir::IRModule&, const PassContext& ctx) {
        return with_body(f, LoopVectorizer(!ctx.config_flag("tir.disable_vectorize")).mutate(f->body));
      });
}

}  // namespace tsch::transform
