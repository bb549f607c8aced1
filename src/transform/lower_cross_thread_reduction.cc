// tir.LowerCrossThreadReduction: a reduction block whose reduction loops are bound to
// threadIdx (`sch.bind(k_inner, "threadIdx.x")`) would have every thread of the block update
// the same element — a race on a GPU. As TVM does, the reduction is split: each thread reduces
// its share into a local accumulator over the reduction loops that are not bound (the
// in-thread reduction), the threads combine their accumulators, and one thread writes the
// result. TVM emits `T.tvm_thread_allreduce` here and lowers it in LowerThreadAllreduce; tsch
// lowers it at once: within one warp (at most 32 threads on threadIdx.x, a power of two, a
// 32-bit value) by register shuffles as TVM does (T.tvm_warp_shuffle_down, then
// T.tvm_warp_shuffle broadcasting lane 0); otherwise by a tree over a shared buffer
// (`red_buf`): each thread stores its value, then at each level the first half of the threads
// combine with the second half, and tir.ThreadSync places the barriers between the levels.
//
// The reduction loops (a loop whose variable only reduction iterators use) either form one
// perfect nest around the block (rebuilt with the thread-bound loops outside), or the serial
// ones form a perfect nest right around it and all others are bound to threadIdx; the update
// must be `X[I] = X[I] op e` for op in +, *, max, min. Anything else is "not supported yet".
#include <fmt/format.h>

#include <unordered_map>
#include <unordered_set>

#include "ir/expr_equal.h"
#include "ir/functor.h"
#include "ir/op.h"
#include "support/error.h"
#include "transform/pass.h"

namespace tsch::transform {
namespace {

using namespace ir;

// Threads per warp on NVIDIA GPUs (the target's thread_warp_size).
constexpr int64_t kWarpSize = 32;

bool is_thread_idx(const ForNode* loop) {
  return loop->for_kind == ForKind::ThreadBinding && loop->thread_tag.rfind("threadIdx", 0) == 0;
}

bool uses_any(const PrimExpr& e, const std::unordered_set<const VarNode*>& vars) {
  return e && uses_var(e, [&](const VarNode* v) { return vars.count(v) > 0; });
}

[[noreturn]] void refuse(const std::string& block, const std::string& why) {
  TSCH_USER_ASSERT(false, NotImplementedError) << "not supported yet: the cross-thread reduction of block \"" << block
                                               << "\" (a reduction loop bound to threadIdx): " << why;
}

// The combiner of an update `X[I] = X[I] op e`.
struct Reducer {
  ExprKind op;
  PrimExpr value;  // e
  PrimExpr combine(const PrimExpr& a, const PrimExpr& b) const { return make_binary(op, a, b); }
  // The value whose combination with x is x (max/min: the lowest/highest value of the type).
  PrimExpr identity(DataType t) const {
    switch (op) {
      case ExprKind::Add:
        return make_const(t, 0);
      case ExprKind::Mul:
        return make_const(t, 1);
      case ExprKind::IntImm:
      case ExprKind::FloatImm:
      case ExprKind::StringImm:
      case ExprKind::Var:
      case ExprKind::Sub:
      case ExprKind::Div:
      case ExprKind::Mod:
      case ExprKind::FloorDiv:
      case ExprKind::FloorMod:
      case ExprKind::Min:
      case ExprKind::Max:
      case ExprKind::EQ:
      case ExprKind::NE:
      case ExprKind::LT:
      case ExprKind::LE:
      case ExprKind::GT:
      case ExprKind::GE:
      case ExprKind::And:
      case ExprKind::Or:
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
    return op == ExprKind::Max ? min_value(t) : max_value(t);
  }
  // max and min give the same result whatever number of times a value takes part.
  bool idempotent() const { return op == ExprKind::Max || op == ExprKind::Min; }
};

// The operands of a binary node of one of the reducers' kinds.
std::pair<PrimExpr, PrimExpr> operands(const PrimExpr& e) {
  switch (e->kind) {
    case ExprKind::Add:
      return {as<AddNode>(e)->a, as<AddNode>(e)->b};
    case ExprKind::Mul:
      return {as<MulNode>(e)->a, as<MulNode>(e)->b};
    case ExprKind::Max:
      return {as<MaxNode>(e)->a, as<MaxNode>(e)->b};
    case ExprKind::Min:
      return {as<MinNode>(e)->a, as<MinNode>(e)->b};
    case ExprKind::IntImm:
    case ExprKind::FloatImm:
    case ExprKind::StringImm:
    case ExprKind::Var:
    case ExprKind::Sub:
    case ExprKind::Div:
    case ExprKind::Mod:
    case ExprKind::FloorDiv:
    case ExprKind::FloorMod:
    case ExprKind::EQ:
    case ExprKind::NE:
    case ExprKind::LT:
    case ExprKind::LE:
    case ExprKind::GT:
    case ExprKind::GE:
    case ExprKind::And:
    case ExprKind::Or:
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
  return {};
}

std::optional<Reducer> match_reducer(const BufferStoreNode& store) {
  ExprKind op = store.value->kind;
  if (op != ExprKind::Add && op != ExprKind::Mul && op != ExprKind::Max && op != ExprKind::Min) return std::nullopt;
  auto [a, b] = operands(store.value);
  auto is_self = [&](const PrimExpr& e) {
    auto* l = as<BufferLoadNode>(e);
    if (!l || l->buffer != store.buffer || l->indices.size() != store.indices.size()) return false;
    for (size_t i = 0; i < l->indices.size(); ++i)
      if (!expr_deep_equal(l->indices[i], store.indices[i])) return false;
    return true;
  };
  auto reads_self = [&](const PrimExpr& e) {
    bool found = false;
    for_each_expr(e, [&](const PrimExpr& x) {
      if (auto* l = as<BufferLoadNode>(x)) found = found || l->buffer == store.buffer;
    });
    return found;
  };
  if (is_self(a) && !reads_self(b)) return Reducer{op, b};
  if (is_self(b) && !reads_self(a)) return Reducer{op, a};
  return std::nullopt;
}

Stmt store(const Buffer& b, std::vector<PrimExpr> indices, PrimExpr value) {
  return std::make_shared<BufferStoreNode>(b, std::move(value), std::move(indices));
}

Stmt when(const PrimExpr& cond, Stmt body) {
  if (!cond || is_one(cond)) return body;
  return std::make_shared<IfThenElseNode>(cond, std::move(body), nullptr);
}

PrimExpr conjunction(const std::vector<PrimExpr>& terms) {
  PrimExpr out;
  for (const auto& t : terms) out = out ? make_binary(ExprKind::And, out, t) : t;
  return out;
}

void split_conjuncts(const PrimExpr& e, std::vector<PrimExpr>& out) {
  if (!e || is_one(e)) return;
  if (e->kind == ExprKind::And) {
    auto* b = as<AndNode>(e);
    split_conjuncts(b->a, out);
    split_conjuncts(b->b, out);
    return;
  }
  out.push_back(e);
}

class CrossThreadReduction : public IRMutator {
 public:
  using IRMutator::mutate;
  Stmt mutate(const Stmt& s) override {
    if (auto* loop = as<ForNode>(s)) {
      // A loop that starts a lowered reduction nest is replaced as a whole.
      loops_.push_back(loop);
      Stmt out = mutate_children(s);
      loops_.pop_back();
      auto it = replaced_.find(s.get());
      return it != replaced_.end() ? it->second : out;
    }
    auto* realize = as<BlockRealizeNode>(s);
    if (!realize) return mutate_children(s);
    Stmt out = mutate_children(s);
    if (realize->block->iter_vars.empty()) return out;
    const StmtNode* top = nullptr;
    Stmt lowered = lower(*as<BlockRealizeNode>(out), s.get(), &top);
    if (!lowered) return out;
    if (top == s.get()) return lowered;
    replaced_[top] = lowered;
    return out;
  }

 private:
  // The lowered form of `realize` (null when it is not a cross-thread reduction), and in
  // `top` the statement it replaces: the outermost loop of the reduction nest (or the block).
  Stmt lower(const BlockRealizeNode& realize, const StmtNode* original, const StmtNode** top) {
    const BlockNode& block = *realize.block;
    std::unordered_set<const VarNode*> spatial_vars, reduce_vars;
    bool has_reduce = false;
    for (size_t i = 0; i < block.iter_vars.size(); ++i) {
      bool reduce = block.iter_vars[i].type == IterType::CommReduce;
      has_reduce |= reduce;
      for_each_expr(realize.iter_values[i], [&](const PrimExpr& e) {
        if (auto* v = as<VarNode>(e)) (reduce ? reduce_vars : spatial_vars).insert(v);
      });
    }
    if (!has_reduce) return nullptr;
    auto reduction_loop = [&](const ForNode* l) {
      return reduce_vars.count(l->loop_var.get()) && !spatial_vars.count(l->loop_var.get());
    };
    // The reduction nest: the loops around the block, innermost first, while each holds only
    // the next one.
    std::vector<const ForNode*> nest;
    const StmtNode* child = original;
    for (auto it = loops_.rbegin(); it != loops_.rend(); ++it) {
      const ForNode* l = *it;
      if (!reduction_loop(l) || l->body.get() != child) break;
      nest.insert(nest.begin(), l);
      child = l;
    }
    // The reduction loops around the block: bound to threadIdx (the threads of the
    // reduction), or serial (each thread's share).
    std::vector<const ForNode*> threads, serial;
    bool rebuild;  // the whole nest is rebuilt, thread loops outside (TVM moves them so)
    std::vector<const ForNode*> reduction_loops;
    for (const ForNode* l : loops_) {
      // A thread loop both spatial and reduction (a fused i and k) has threads updating the
      // same element with no reduction between them.
      if (is_thread_idx(l) && reduce_vars.count(l->loop_var.get()) && spatial_vars.count(l->loop_var.get()))
        refuse(block.name,
               "the thread-bound loop " + l->loop_var->name + " drives both a spatial and a reduction iterator");
      if (!reduction_loop(l)) continue;
      if (l->for_kind == ForKind::ThreadBinding && !is_thread_idx(l))
        refuse(block.name, "its reduction loop " + l->loop_var->name + " is bound to " + l->thread_tag +
                               " (a reduction across thread blocks)");
      reduction_loops.push_back(l);
    }
    if (std::none_of(reduction_loops.begin(), reduction_loops.end(), is_thread_idx)) return nullptr;
    if (nest.size() == reduction_loops.size()) {
      // One perfect nest holds them all: `for k_0: for k_1 (threadIdx.x): B`.
      rebuild = true;
      for (const ForNode* l : nest) (is_thread_idx(l) ? threads : serial).push_back(l);
    } else {
      // The thread loops hold more than the block (what it reads computed per thread, as
      // rfactor + compute_at give): they stay; the serial loops must be the perfect nest
      // right around the block.
      rebuild = false;
      for (auto it = nest.rbegin(); it != nest.rend() && !is_thread_idx(*it); ++it) serial.insert(serial.begin(), *it);
      for (const ForNode* l : reduction_loops) {
        if (is_thread_idx(l)) {
          threads.push_back(l);
        } else if (std::find(serial.begin(), serial.end(), l) == serial.end()) {
          refuse(block.name,
                 "its reduction loop " + l->loop_var->name +
                     " is neither bound to threadIdx nor in the nest of reduction loops right around the block");
        }
      }
    }
    // The update and the reducer.
    std::unordered_map<const VarNode*, PrimExpr> bind;
    for (size_t i = 0; i < block.iter_vars.size(); ++i) bind[block.iter_vars[i].var.get()] = realize.iter_values[i];
    auto* update = as<BufferStoreNode>(block.body);
    if (!update) refuse(block.name, "its body is not one store");
    std::optional<Reducer> reducer = match_reducer(*update);
    if (!reducer) refuse(block.name, "its update is not X[...] = X[...] op value with op one of +, *, max, min");
    if (!block.alloc_buffers.empty() || !block.match_buffers.empty())
      refuse(block.name, "it allocates or matches buffers");
    std::unordered_set<const VarNode*> nest_vars;
    for (const ForNode* l : reduction_loops) nest_vars.insert(l->loop_var.get());
    std::vector<PrimExpr> index;
    for (const auto& i : update->indices) {
      index.push_back(substitute(i, bind));
      if (uses_any(index.back(), nest_vars)) refuse(block.name, "the element it updates depends on a reduction loop");
    }
    PrimExpr value = substitute(reducer->value, bind);
    DataType t = update->buffer->dtype;
    const Buffer& out = update->buffer;
    // The init: a value that does not depend on the reduction; with + and * it must be the
    // identity (each thread starts from it).
    PrimExpr init;
    if (block.init) {
      auto* s = as<BufferStoreNode>(block.init);
      if (!s || s->buffer != out) refuse(block.name, "its init is not one store to the reduced element");
      init = substitute(s->value, bind);
      if (uses_any(init, nest_vars)) refuse(block.name, "its init depends on a reduction loop");
      if (!reducer->idempotent() && !expr_deep_equal(init, reducer->identity(t)))
        refuse(block.name, "its init is not the identity of the reduction");
    }
    // The predicate: its conjuncts on reduction loops guard the update, the others the result.
    std::vector<PrimExpr> update_guard, result_guard;
    std::vector<PrimExpr> terms;
    split_conjuncts(realize.predicate, terms);
    for (const auto& c : terms) (uses_any(c, nest_vars) ? update_guard : result_guard).push_back(c);
    // Threads: those of the reduction (in nest order) give the position in the tree; other
    // threadIdx loops around it each reduce their own row of red_buf.
    PrimExpr lane = make_int(0), group = make_int(0);
    int64_t lanes = 1, groups = 1;
    auto extent_of = [&](const ForNode* l) {
      int64_t e;
      if (!as_const_int(l->extent, &e) || !is_zero(l->min))
        refuse(block.name, "the thread loop " + l->loop_var->name + " has a symbolic extent");
      return e;
    };
    for (const ForNode* l : threads) {
      int64_t e = extent_of(l);
      lane = add(mul(lane, make_int(e)), l->loop_var);
      lanes *= e;
    }
    for (const ForNode* l : loops_) {
      if (!is_thread_idx(l) || nest_vars.count(l->loop_var.get())) continue;
      int64_t e = extent_of(l);
      group = add(mul(group, make_int(e)), l->loop_var);
      groups *= e;
    }
    // TVM's warp-level allreduce (LowerThreadAllreduce): when one threadIdx.x loop of at most
    // 32 threads, a power of two, reduces a 32-bit scalar, each group of lanes lies inside one
    // warp (threadIdx.x is the innermost thread index and the block's x extent is the lane
    // count), so register shuffles combine it, no shared memory or barrier needed. Other
    // reductions go through a tree over shared memory.
    bool warp = threads.size() == 1 && threads[0]->thread_tag == "threadIdx.x" && lanes > 1 && lanes <= kWarpSize &&
                (lanes & (lanes - 1)) == 0 && t.lanes == 1 && t.bits == 32 &&
                (t.is_float() || t.is_int() || t.is_uint());
    Buffer acc = make_buffer(out->name + "_normal_reduce", t, {make_int(1)}, "local");
    Buffer red = warp ? make_buffer(out->name + "_red_buf", t, {make_int(1)}, "local")
                      : make_buffer(out->name + "_red_buf", t, {make_int(groups), make_int(lanes)}, "shared");
    PrimExpr zero = make_int(0);
    auto slot = [&](PrimExpr l) { return std::vector<PrimExpr>{group, std::move(l)}; };
    std::vector<Stmt> body;
    // 1. The in-thread reduction.
    body.push_back(store(acc, {zero}, init && reducer->idempotent() ? init : reducer->identity(t)));
    Stmt step = when(conjunction(update_guard), store(acc, {zero}, reducer->combine(buffer_load(acc, {zero}), value)));
    for (auto it = serial.rbegin(); it != serial.rend(); ++it) {
      auto loop = std::make_shared<ForNode>(**it);
      loop->body = step;
      step = loop;
    }
    body.push_back(step);
    std::vector<Buffer> buffers = {acc, red};
    PrimExpr result;
    if (warp) {
      // 2. Shuffles down by lanes/2, ..., 1 (lane 0 of each group then holds the whole), and
      // lane 0's value broadcast to the group, as TVM does.
      Buffer mask = make_buffer("mask", DataType::uint(32), {make_int(1)}, "local");
      Buffer t0 = make_buffer("t0", t, {make_int(1)}, "local");
      buffers.push_back(mask);
      buffers.push_back(t0);
      auto shuffle = [&](const char* op, int64_t arg) {
        return std::make_shared<CallNode>(t, op,
                                          std::vector<PrimExpr>{buffer_load(mask, {zero}), buffer_load(red, {zero}),
                                                                make_int(arg), make_int(lanes), make_int(kWarpSize)});
      };
      body.push_back(store(red, {zero}, buffer_load(acc, {zero})));
      body.push_back(
          store(mask, {zero},
                std::make_shared<CallNode>(DataType::uint(32), "tvm_warp_activemask", std::vector<PrimExpr>{})));
      for (int64_t offset = lanes / 2; offset >= 1; offset /= 2) {
        body.push_back(store(t0, {zero}, shuffle("tvm_warp_shuffle_down", offset)));
        body.push_back(store(red, {zero}, reducer->combine(buffer_load(red, {zero}), buffer_load(t0, {zero}))));
      }
      body.push_back(store(red, {zero}, shuffle("tvm_warp_shuffle", 0)));
      result = buffer_load(red, {zero});
    } else {
      // 2. The tree over red_buf: fold the lanes past the largest power of two, then halve.
      body.push_back(store(red, slot(lane), buffer_load(acc, {zero})));
      int64_t half = 1;
      while (half * 2 <= lanes) half *= 2;
      auto fold = [&](int64_t active, int64_t offset) {
        PrimExpr other = buffer_load(red, slot(add(lane, make_int(offset))));
        body.push_back(when(make_binary(ExprKind::LT, lane, make_int(active)),
                            store(red, slot(lane), reducer->combine(buffer_load(red, slot(lane)), other))));
      };
      if (half < lanes) fold(lanes - half, half);
      for (int64_t s = half / 2; s >= 1; s /= 2) fold(s, s);
      result = buffer_load(red, slot(make_int(0)));
    }
    // 3. One thread writes the result.
    if (!init) result = reducer->combine(buffer_load(out, index), result);
    std::vector<PrimExpr> write_guard = result_guard;
    write_guard.insert(write_guard.begin(), make_binary(ExprKind::EQ, lane, make_int(0)));
    body.push_back(when(conjunction(write_guard), store(out, index, result)));
    Stmt inner = make_seq(std::move(body));
    for (auto it = threads.rbegin(); rebuild && it != threads.rend(); ++it) {
      auto loop = std::make_shared<ForNode>(**it);
      loop->body = inner;
      inner = loop;
    }
    // An opaque block holding the new buffers; it reads what the reduction read.
    auto opaque = std::make_shared<BlockNode>();
    opaque->name = block.name + "_cross_thread";
    auto whole = [](const Buffer& b) {
      BufferRegion r{b, {}};
      for (const auto& d : b->shape) r.region.push_back(Range{make_int(0, d->dtype), d});
      return r;
    };
    std::unordered_set<const BufferNode*> seen;
    for (const auto& r : block.reads)
      if (seen.insert(r.buffer.get()).second) opaque->reads.push_back(whole(r.buffer));
    opaque->writes.push_back(whole(out));
    opaque->alloc_buffers = buffers;
    opaque->body = inner;
    *top = rebuild ? nest.front() : serial.empty() ? original : serial.front();
    return std::make_shared<BlockRealizeNode>(std::vector<PrimExpr>{}, make_bool(true), opaque);
  }

  std::vector<const ForNode*> loops_;
  std::unordered_map<const StmtNode*, Stmt> replaced_;
};

}  // namespace

Pass lower_cross_thread_reduction() {
  return {"tir.LowerCrossThreadReduction",
          [](const PrimFunc& f) { return with_body(f, CrossThreadReduction().mutate(f->body)); }};
}

}  // namespace tsch::transform
