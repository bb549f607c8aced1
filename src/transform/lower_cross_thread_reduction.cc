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

// Lowers one reduction block, `realize` under the loops `loops` (outermost first).
class ReductionLowering {
 public:
  ReductionLowering(const BlockRealizeNode& realize, const StmtNode* original, const std::vector<const ForNode*>& loops)
      : realize_(realize), block_(*realize.block), original_(original), loops_(loops) {}

  // Null when the block is not a cross-thread reduction; refuses one tsch cannot lower.
  Stmt run(const StmtNode** top) {
    // Step 1. Check: the reduction loops, the update, the threads.
    if (!classify_iterators() || !find_reduction_loops()) return nullptr;
    check_update();
    thread_positions();
    // Step 2. Rewrite.
    *top = rebuild_ ? nest_.front() : serial_.empty() ? original_ : serial_.front();
    return rewrite();
  }

 private:
  // The variables the spatial and the reduction iterators' bindings use; false without a
  // reduction iterator.
  bool classify_iterators() {
    bool has_reduce = false;
    for (size_t i = 0; i < block_.iter_vars.size(); ++i) {
      bool reduce = block_.iter_vars[i].type == IterType::CommReduce;
      has_reduce |= reduce;
      for_each_expr(realize_.iter_values[i], [&](const PrimExpr& e) {
        if (auto* v = as<VarNode>(e)) (reduce ? reduce_vars_ : spatial_vars_).insert(v);
      });
    }
    return has_reduce;
  }

  bool reduction_loop(const ForNode* l) const {
    return reduce_vars_.count(l->loop_var.get()) && !spatial_vars_.count(l->loop_var.get());
  }

  // The reduction loops around the block: bound to threadIdx (the threads of the reduction),
  // or serial (each thread's share). False when none is bound to threadIdx.
  bool find_reduction_loops() {
    // The reduction nest: the loops around the block, innermost first, while each holds only
    // the next one.
    const StmtNode* child = original_;
    for (auto it = loops_.rbegin(); it != loops_.rend(); ++it) {
      const ForNode* l = *it;
      if (!reduction_loop(l) || l->body.get() != child) break;
      nest_.insert(nest_.begin(), l);
      child = l;
    }
    for (const ForNode* l : loops_) {
      // A thread loop both spatial and reduction (a fused i and k) has threads updating the
      // same element with no reduction between them.
      if (is_thread_idx(l) && reduce_vars_.count(l->loop_var.get()) && spatial_vars_.count(l->loop_var.get()))
        refuse(block_.name,
               "the thread-bound loop " + l->loop_var->name + " drives both a spatial and a reduction iterator");
      if (!reduction_loop(l)) continue;
      if (l->for_kind == ForKind::ThreadBinding && !is_thread_idx(l))
        refuse(block_.name, "its reduction loop " + l->loop_var->name + " is bound to " + l->thread_tag +
                                " (a reduction across thread blocks)");
      reduction_loops_.push_back(l);
    }
    if (std::none_of(reduction_loops_.begin(), reduction_loops_.end(), is_thread_idx)) return false;
    if (nest_.size() == reduction_loops_.size()) {
      // One perfect nest holds them all: `for k_0: for k_1 (threadIdx.x): B`.
      rebuild_ = true;
      for (const ForNode* l : nest_) (is_thread_idx(l) ? threads_ : serial_).push_back(l);
    } else {
      // The thread loops hold more than the block (what it reads computed per thread, as
      // rfactor + compute_at give): they stay; the serial loops must be the perfect nest
      // right around the block.
      rebuild_ = false;
      for (auto it = nest_.rbegin(); it != nest_.rend() && !is_thread_idx(*it); ++it)
        serial_.insert(serial_.begin(), *it);
      for (const ForNode* l : reduction_loops_) {
        if (is_thread_idx(l)) {
          threads_.push_back(l);
        } else if (std::find(serial_.begin(), serial_.end(), l) == serial_.end()) {
          refuse(block_.name,
                 "its reduction loop " + l->loop_var->name +
                     " is neither bound to threadIdx nor in the nest of reduction loops right around the block");
        }
      }
    }
    for (const ForNode* l : reduction_loops_) nest_vars_.insert(l->loop_var.get());
    return true;
  }

  // The update and the reducer, the init, and the predicate's parts.
  void check_update() {
    std::unordered_map<const VarNode*, PrimExpr> bind;
    for (size_t i = 0; i < block_.iter_vars.size(); ++i) bind[block_.iter_vars[i].var.get()] = realize_.iter_values[i];
    auto* update = as<BufferStoreNode>(block_.body);
    if (!update) refuse(block_.name, "its body is not one store");
    reducer_ = match_reducer(*update);
    if (!reducer_) refuse(block_.name, "its update is not X[...] = X[...] op value with op one of +, *, max, min");
    if (!block_.alloc_buffers.empty() || !block_.match_buffers.empty())
      refuse(block_.name, "it allocates or matches buffers");
    for (const auto& i : update->indices) {
      index_.push_back(substitute(i, bind));
      if (uses_any(index_.back(), nest_vars_))
        refuse(block_.name, "the element it updates depends on a reduction loop");
    }
    value_ = substitute(reducer_->value, bind);
    out_ = update->buffer;
    t_ = out_->dtype;
    // The init: a value that does not depend on the reduction; with + and * it must be the
    // identity (each thread starts from it).
    if (block_.init) {
      auto* s = as<BufferStoreNode>(block_.init);
      if (!s || s->buffer != out_) refuse(block_.name, "its init is not one store to the reduced element");
      init_ = substitute(s->value, bind);
      if (uses_any(init_, nest_vars_)) refuse(block_.name, "its init depends on a reduction loop");
      if (!reducer_->idempotent() && !expr_deep_equal(init_, reducer_->identity(t_)))
        refuse(block_.name, "its init is not the identity of the reduction");
    }
    // The predicate: its conjuncts on reduction loops guard the update, the others the result.
    std::vector<PrimExpr> terms;
    split_conjuncts(realize_.predicate, terms);
    for (const auto& c : terms) (uses_any(c, nest_vars_) ? update_guard_ : result_guard_).push_back(c);
  }

  // Threads: those of the reduction (in nest order) give the position in the tree; other
  // threadIdx loops around it each reduce their own row of red_buf.
  void thread_positions() {
    auto extent_of = [&](const ForNode* l) {
      int64_t e;
      if (!as_const_int(l->extent, &e) || !is_zero(l->min))
        refuse(block_.name, "the thread loop " + l->loop_var->name + " has a symbolic extent");
      return e;
    };
    for (const ForNode* l : threads_) {
      int64_t e = extent_of(l);
      lane_ = add(mul(lane_, make_int(e)), l->loop_var);
      lanes_ *= e;
    }
    for (const ForNode* l : loops_) {
      if (!is_thread_idx(l) || nest_vars_.count(l->loop_var.get())) continue;
      int64_t e = extent_of(l);
      group_ = add(mul(group_, make_int(e)), l->loop_var);
      groups_ *= e;
    }
  }

  Stmt rewrite() {
    // TVM's warp-level allreduce (LowerThreadAllreduce): when one threadIdx.x loop of at most
    // 32 threads, a power of two, reduces a 32-bit scalar, each group of lanes lies inside one
    // warp (threadIdx.x is the innermost thread index and the block's x extent is the lane
    // count), so register shuffles combine it, no shared memory or barrier needed. Other
    // reductions go through a tree over shared memory.
    bool warp = threads_.size() == 1 && threads_[0]->thread_tag == "threadIdx.x" && lanes_ > 1 && lanes_ <= kWarpSize &&
                (lanes_ & (lanes_ - 1)) == 0 && t_.lanes == 1 && t_.bits == 32 &&
                (t_.is_float() || t_.is_int() || t_.is_uint());
    acc_ = make_buffer(out_->name + "_normal_reduce", t_, {make_int(1)}, "local");
    red_ = warp ? make_buffer(out_->name + "_red_buf", t_, {make_int(1)}, "local")
                : make_buffer(out_->name + "_red_buf", t_, {make_int(groups_), make_int(lanes_)}, "shared");
    buffers_ = {acc_, red_};
    // 1. The in-thread reduction.
    in_thread_reduction();
    // 2. Across the threads.
    PrimExpr result = warp ? warp_reduction() : tree_reduction();
    // 3. One thread writes the result.
    if (!init_) result = reducer_->combine(buffer_load(out_, index_), result);
    std::vector<PrimExpr> write_guard = result_guard_;
    write_guard.insert(write_guard.begin(), make_binary(ExprKind::EQ, lane_, make_int(0)));
    body_.push_back(when(conjunction(write_guard), store(out_, index_, result)));
    Stmt inner = make_seq(std::move(body_));
    for (auto it = threads_.rbegin(); rebuild_ && it != threads_.rend(); ++it) {
      auto loop = std::make_shared<ForNode>(**it);
      loop->body = inner;
      inner = loop;
    }
    return opaque_block(inner);
  }

  void in_thread_reduction() {
    PrimExpr zero = make_int(0);
    body_.push_back(store(acc_, {zero}, init_ && reducer_->idempotent() ? init_ : reducer_->identity(t_)));
    Stmt step =
        when(conjunction(update_guard_), store(acc_, {zero}, reducer_->combine(buffer_load(acc_, {zero}), value_)));
    for (auto it = serial_.rbegin(); it != serial_.rend(); ++it) {
      auto loop = std::make_shared<ForNode>(**it);
      loop->body = step;
      step = loop;
    }
    body_.push_back(step);
  }

  // Shuffles down by lanes/2, ..., 1 (lane 0 of each group then holds the whole), and lane
  // 0's value broadcast to the group, as TVM does.
  PrimExpr warp_reduction() {
    PrimExpr zero = make_int(0);
    Buffer mask = make_buffer("mask", DataType::uint(32), {make_int(1)}, "local");
    Buffer t0 = make_buffer("t0", t_, {make_int(1)}, "local");
    buffers_.push_back(mask);
    buffers_.push_back(t0);
    auto shuffle = [&](const char* op, int64_t arg) {
      return std::make_shared<CallNode>(t_, op,
                                        std::vector<PrimExpr>{buffer_load(mask, {zero}), buffer_load(red_, {zero}),
                                                              make_int(arg), make_int(lanes_), make_int(kWarpSize)});
    };
    body_.push_back(store(red_, {zero}, buffer_load(acc_, {zero})));
    body_.push_back(store(
        mask, {zero}, std::make_shared<CallNode>(DataType::uint(32), "tvm_warp_activemask", std::vector<PrimExpr>{})));
    for (int64_t offset = lanes_ / 2; offset >= 1; offset /= 2) {
      body_.push_back(store(t0, {zero}, shuffle("tvm_warp_shuffle_down", offset)));
      body_.push_back(store(red_, {zero}, reducer_->combine(buffer_load(red_, {zero}), buffer_load(t0, {zero}))));
    }
    body_.push_back(store(red_, {zero}, shuffle("tvm_warp_shuffle", 0)));
    return buffer_load(red_, {zero});
  }

  // The tree over red_buf: fold the lanes past the largest power of two, then halve.
  PrimExpr tree_reduction() {
    auto slot = [&](PrimExpr l) { return std::vector<PrimExpr>{group_, std::move(l)}; };
    body_.push_back(store(red_, slot(lane_), buffer_load(acc_, {make_int(0)})));
    int64_t half = 1;
    while (half * 2 <= lanes_) half *= 2;
    auto fold = [&](int64_t active, int64_t offset) {
      PrimExpr other = buffer_load(red_, slot(add(lane_, make_int(offset))));
      body_.push_back(when(make_binary(ExprKind::LT, lane_, make_int(active)),
                           store(red_, slot(lane_), reducer_->combine(buffer_load(red_, slot(lane_)), other))));
    };
    if (half < lanes_) fold(lanes_ - half, half);
    for (int64_t s = half / 2; s >= 1; s /= 2) fold(s, s);
    return buffer_load(red_, slot(make_int(0)));
  }

  // An opaque block holding the new buffers; it reads what the reduction read.
  Stmt opaque_block(const Stmt& inner) const {
    auto opaque = std::make_shared<BlockNode>();
    opaque->name = block_.name + "_cross_thread";
    auto whole = [](const Buffer& b) {
      BufferRegion r{b, {}};
      for (const auto& d : b->shape) r.region.push_back(Range{make_int(0, d->dtype), d});
      return r;
    };
    std::unordered_set<const BufferNode*> seen;
    for (const auto& r : block_.reads)
      if (seen.insert(r.buffer.get()).second) opaque->reads.push_back(whole(r.buffer));
    opaque->writes.push_back(whole(out_));
    opaque->alloc_buffers = buffers_;
    opaque->body = inner;
    return std::make_shared<BlockRealizeNode>(std::vector<PrimExpr>{}, make_bool(true), opaque);
  }

  const BlockRealizeNode& realize_;
  const BlockNode& block_;
  const StmtNode* original_;
  const std::vector<const ForNode*>& loops_;
  // Step 1: what the checks found.
  std::unordered_set<const VarNode*> spatial_vars_, reduce_vars_;
  std::vector<const ForNode*> nest_, threads_, serial_, reduction_loops_;
  bool rebuild_ = false;  // the whole nest is rebuilt, thread loops outside (TVM moves them so)
  std::unordered_set<const VarNode*> nest_vars_;
  std::optional<Reducer> reducer_;
  std::vector<PrimExpr> index_;
  PrimExpr value_, init_;
  Buffer out_;
  DataType t_;
  std::vector<PrimExpr> update_guard_, result_guard_;
  PrimExpr lane_ = make_int(0), group_ = make_int(0);
  int64_t lanes_ = 1, groups_ = 1;
  // Step 2: what the rewrite builds.
  Buffer acc_, red_;
  std::vector<Buffer> buffers_;
  std::vector<Stmt> body_;
};

class CrossThreadReduction : public IRMutator {
 public:
  Stmt mutate_For(const ForNode& loop, const Stmt& self) override {
    // A loop that starts a lowered reduction nest is replaced as a whole.
    loops_.push_back(&loop);
    Stmt out = IRMutator::mutate_For(loop, self);
    loops_.pop_back();
    auto it = replaced_.find(self.get());
    return it != replaced_.end() ? it->second : out;
  }

  Stmt mutate_BlockRealize(const BlockRealizeNode& realize, const Stmt& self) override {
    Stmt out = IRMutator::mutate_BlockRealize(realize, self);
    if (realize.block->iter_vars.empty()) return out;
    const StmtNode* top = nullptr;
    Stmt lowered = lower(*as<BlockRealizeNode>(out), self.get(), &top);
    if (!lowered) return out;
    if (top == self.get()) return lowered;
    replaced_[top] = lowered;
    return out;
  }

 private:
  // The lowered form of `realize` (null when it is not a cross-thread reduction), and in
  // `top` the statement it replaces: the outermost loop of the reduction nest (or the block).
  Stmt lower(const BlockRealizeNode& realize, const StmtNode* original, const StmtNode** top) {
    return ReductionLowering(realize, original, loops_).run(top);
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
